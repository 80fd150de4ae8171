package server

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// scripted answers commands by the first rule whose key the script
// contains.
type scripted struct {
	rules [][2]string
	ran   []string
}

func (s *scripted) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	s.ran = append(s.ran, c.Script)
	for _, r := range s.rules {
		if strings.Contains(c.Script, r[0]) {
			return executor.Result{Stdout: []byte(r[1])}, nil
		}
	}
	return executor.Result{}, errors.New("scripted: unexpected " + c.Script)
}
func (s *scripted) Upload(context.Context, io.Reader, string, os.FileMode, bool) error { return nil }
func (s *scripted) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, nil
}
func (s *scripted) Name() string { return "scripted" }
func (s *scripted) Close() error { return nil }

func TestProbeDebianMariaDBUnderSystemd(t *testing.T) {
	ex := &scripted{rules: [][2]string{
		{"pid1=$(cat /proc/1/comm)", `pid1=systemd
unit=mariadb
unit=mysqld
initd=mariadb
service=yes
print_defaults=my_print_defaults
thp_enabled=always madvise [never]
thp_defrag=always defer defer+madvise [madvise] never
plugin_file=ha_rocksdb.so
inc=/etc/mysql/my.cnf !includedir /etc/mysql/conf.d/
inc=/etc/mysql/my.cnf !include local.cnf
inc=/etc/mysql/my.cnf !includedir /etc/mysql/mariadb.conf.d/
`},
		{"grep -E '^[[:space:]]*!include' /etc/mysql/local.cnf", "inc=/etc/mysql/local.cnf !includedir /srv/mysql.d\n"},
		{"[ -d /etc/mysql/conf.d ]", "/etc/mysql/conf.d\n/etc/mysql/mariadb.conf.d\n"},
		{"cd /etc/mysql/mariadb.conf.d", "50-client.cnf\n50-mysqld_safe.cnf\n50-server.cnf\n60-galera.cnf\n"},
	}}
	n := &Node{Host: &topology.Host{Name: "master", Address: "10.0.0.1"}, Exec: ex,
		Server: flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 6)}}
	n.Facts.PluginDir = "/usr/lib/mysql/plugin/"
	if err := n.probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := n.Facts
	// /srv/mysql.d does not exist; mariadb.conf.d is the last that does.
	if f.ConfigDir != "/etc/mysql/mariadb.conf.d" || f.Service.Start != "systemctl start mariadb" ||
		f.PrintDefaults != "my_print_defaults --mysqld" || f.ConfigFile != "99-orch.cnf" || f.THPEnabled != "never" || f.THPDefrag != "madvise" ||
		len(f.PluginFiles) != 1 || f.PluginFiles[0] != "ha_rocksdb.so" {
		t.Errorf("facts %+v", f)
	}
	last := ex.ran[len(ex.ran)-2] // then the chosen directory's listing
	want := "[ -d /etc/mysql/conf.d ] && echo /etc/mysql/conf.d\n[ -d /srv/mysql.d ] && echo /srv/mysql.d\n" +
		"[ -d /etc/mysql/mariadb.conf.d ] && echo /etc/mysql/mariadb.conf.d\nexit 0\n"
	if last != want {
		t.Errorf("directories checked in read order:\n%s\nwant:\n%s", last, want)
	}
	if !strings.Contains(ex.ran[0], "d=/usr/lib/mysql/plugin/\nfor f in ha_tokudb.so ha_rocksdb.so;") {
		t.Errorf("probe:\n%s", ex.ran[0])
	}
}

func TestProbeConfiguredDirAndNoIncludes(t *testing.T) {
	probe := "pid1=init\ninitd=mysql\n"
	n := &Node{Host: &topology.Host{Name: "m", Address: "a", MySQL: topology.MySQLConfig{ConfigDir: "/opt/my.d"}},
		Exec: &scripted{rules: [][2]string{{"pid1=", probe}, {"cd /opt/my.d", ""}}}}
	if err := n.probe(context.Background()); err != nil || n.Facts.ConfigDir != "/opt/my.d" ||
		n.Facts.Service.Start != "/etc/init.d/mysql start" {
		t.Errorf("%+v %v", n.Facts, err)
	}
	n = &Node{Host: &topology.Host{Name: "m", Address: "a"}, Exec: &scripted{rules: [][2]string{{"pid1=", probe}}}}
	if err := n.probe(context.Background()); err == nil || err.Error() != "m a: no !includedir in /etc/my.cnf or /etc/mysql/my.cnf: set mysql.config_dir to a directory the server's option files include" {
		t.Error(err)
	}
}

// Debian's and Oracle's MySQL packages name their fragments mysqld.cnf,
// which sorts after 99-orch.cnf: orch's file must still be read last.
func TestConfigFileSortsAfterThePackagesFragments(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, "99-orch.cnf"},
		{[]string{"50-server.cnf", "60-galera.cnf", "99-orch.cnf.bak"}, "99-orch.cnf"}, // MariaDB's
		{[]string{"mysql.cnf", "mysqld.cnf"}, "zz-orch.cnf"},                           // MySQL's mysql.conf.d
		{[]string{"mysql.cnf", "mysqld.cnf", "zz-orch.cnf", "zz-orch.cnf.bak"}, "zz-orch.cnf"},
		{[]string{"zz-orch.cnf"}, "zz-orch.cnf"}, // orch's own, once written
		{[]string{"README", "99-orch.cnf"}, "99-orch.cnf"},
	} {
		if got := configFileFor(c.names); got != c.want {
			t.Errorf("configFileFor(%v) = %s, want %s", c.names, got, c.want)
		}
	}
}
