package server

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		intended, actual string
		same             bool
	}{
		{"128M", "134217728", true},
		{"4G", "4294967296", true},
		{"1k", "1024", true},
		{"ON", "1", true}, {"on", "ON", true}, {"TRUE", "ON", true}, {"yes", "ON", true},
		{"OFF", "0", true}, {"false", "OFF", true},
		{"2", "2", true}, {"2", "ON", false},
		{"ROCKSDB", "RocksDB", true},
		{"AFTER_SYNC", "after_sync", true},
		{"0.5", "0.500000", true},
		{"STRICT_TRANS_TABLES, NO_ENGINE_SUBSTITUTION", "STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION", true},
		{"relay-bin", "/var/lib/mysql/relay-bin", true},
		{"relay-bin", "/var/lib/mysql/other-bin", false},
		{"128M", "134217729", false},
		{"1000000000000000000", "1000000000000000000", true},
		{"", "", true}, {"", "x", false},
	} {
		if got := sameValue(c.intended, c.actual); got != c.same {
			t.Errorf("sameValue(%q, %q) = %v", c.intended, c.actual, got)
		}
	}
}

func TestSQLLiteral(t *testing.T) {
	for _, c := range []struct{ value, current, want string }{
		{"256M", "134217728", "268435456"},
		{"1", "0", "1"},
		{"0.25", "1.000000", "0.25"},
		{"ON", "OFF", "ON"},
		{"off", "ON", "OFF"},
		{"ROW", "MIXED", "'ROW'"},
		{"AFTER_SYNC", "AFTER_COMMIT", "'AFTER_SYNC'"},
		{"10M", "", "'10M'"}, // a size only for a numeric variable
		{"it's", "x", `'it''s'`},
	} {
		if got := sqlLiteral(c.value, c.current); got != c.want {
			t.Errorf("sqlLiteral(%q, %q) = %s, want %s", c.value, c.current, got, c.want)
		}
	}
}

func TestShownValue(t *testing.T) {
	if shownValue("log_bin", "mysql-bin", false) != "ON" || shownValue("skip_name_resolve", "", true) != "ON" ||
		shownValue("sync_binlog", "0", false) != "0" {
		t.Error("shownValue")
	}
}

// labDefaults is `my_print_defaults --mysqld` on the lab's master (MariaDB
// 10.11 on Debian 12) with orch's file in mariadb.conf.d.
const labDefaults = `--socket=/run/mysqld/mysqld.sock
--pid-file=/run/mysqld/mysqld.pid
--basedir=/usr
--bind-address=127.0.0.1
--expire_logs_days=10
--log_error=/var/log/mysql/error.log
--innodb_buffer_pool_size=128M
--server_id=1
--bind_address=0.0.0.0
--log_bin=mysql-bin
--loose-rocksdb_block_cache_size=64M
--skip-log-slave-updates
--skip_name_resolve
--plugin_load_add=provider_lz4
--plugin-load-add=ha_rocksdb.so
`

func TestDefaultsWinners(t *testing.T) {
	opts := parseDefaults(labDefaults)
	for _, c := range []struct{ name, value string }{
		{"bind_address", "0.0.0.0"}, // the later one wins
		{"rocksdb_block_cache_size", "64M"},
		{"log_slave_updates", "OFF"},
		{"skip_name_resolve", ""},
	} {
		w, ok := winner(opts, c.name)
		if !ok || w.value != c.value {
			t.Errorf("winner(%s) = %+v, %v; want %q", c.name, w, ok, c.value)
		}
	}
	if _, ok := winner(opts, "sync_binlog"); ok {
		t.Error("sync_binlog is set nowhere")
	}
	if !hasOption(opts, "plugin_load_add", "ha_rocksdb.so") || !hasOption(opts, "plugin_load_add", "provider_lz4") {
		t.Error("plugin_load_add accumulates")
	}
	// mysqld --print-defaults: one line of arguments after a heading.
	pd := parseDefaults("mysqld would have been started with the following arguments:\n--bind-address=127.0.0.1 --server_id=3 --skip-log-bin\n")
	if w, _ := winner(pd, "server_id"); w.value != "3" {
		t.Errorf("print-defaults: %+v", pd)
	}
	if w, _ := winner(pd, "log_bin"); w.value != "OFF" {
		t.Errorf("print-defaults skip-log-bin: %+v", w)
	}
	// A value holding spaces stays one option.
	if sp := parseDefaults("--init_connect=SET NAMES utf8mb4 --x\n"); len(sp) != 1 || sp[0].value != "SET NAMES utf8mb4 --x" {
		t.Errorf("value with spaces: %+v", sp)
	}
}

func TestCheckWinners(t *testing.T) {
	opts := parseDefaults(labDefaults)
	file := "/etc/mysql/mariadb.conf.d/99-orch.cnf"
	ok := []Var{{Name: "bind_address", Value: "0.0.0.0"}, {Name: "server_id", Value: "1"}, {Name: "log_bin", Value: "mysql-bin"},
		{Name: "plugin_load_add", Value: "ha_rocksdb.so"}, {Name: "innodb_buffer_pool_size", Value: "134217728"}}
	if err := checkWinners("master 10.0.0.1", file, "my_print_defaults --mysqld", ok, opts); err != nil {
		t.Error(err)
	}
	err := checkWinners("master 10.0.0.1", file, "my_print_defaults --mysqld", []Var{{Name: "server_id", Value: "1"}, {Name: "expire_logs_days", Value: "3"}}, opts)
	if err == nil || err.Error() != "master 10.0.0.1: the server would not use orch's settings: expire_logs_days = 10 wins over orch's 3 "+
		"(an option file read after "+file+" sets it); check with `my_print_defaults --mysqld`" {
		t.Error(err)
	}
	// Debian's conf.d is read first: nothing of orch's file shows.
	err = checkWinners("master 10.0.0.1", "/etc/mysql/conf.d/99-orch.cnf", "my_print_defaults --mysqld", []Var{{Name: "sync_binlog", Value: "0"}, {Name: "binlog_format", Value: "ROW"}}, opts)
	if err == nil || !strings.Contains(err.Error(), "/etc/mysql/conf.d/99-orch.cnf is not read by the server") {
		t.Error(err)
	}
}

func TestRelevantErrors(t *testing.T) {
	mariadb := `2026-11-29 21:40:10 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1-log source revision  as process 123
2026-11-29 21:40:13 0 [Warning] Could not increase number of max_open_files to more than 20000 (request: 32184)
2026-11-29 21:40:13 0 [ERROR] mariadbd: unknown variable 'binlog_sync=0'
2026-11-29 21:40:13 0 [ERROR] Aborting
2026-11-29 21:40:13 0 [ERROR] mariadbd: unknown variable 'binlog_sync=0'
`
	if got := relevantErrors(mariadb, 5); !slices.Equal(got, []string{"[ERROR] mariadbd: unknown variable 'binlog_sync=0'"}) {
		t.Errorf("mariadb: %q", got)
	}
	mysql8 := "2026-01-01T10:00:00.000000Z 0 [ERROR] [MY-000067] [Server] unknown variable 'binlog_sync=0'.\n" +
		"2026-01-01T10:00:00.000001Z 0 [ERROR] [MY-010119] [Server] Aborting\n"
	if got := relevantErrors(mysql8, 5); !slices.Equal(got, []string{"[ERROR] unknown variable 'binlog_sync=0'."}) {
		t.Errorf("mysql 8: %q", got)
	}
	if got := relevantErrors("x [ERROR] Aborting\n", 5); !slices.Equal(got, []string{"[ERROR] Aborting"}) {
		t.Errorf("only a consequence: %q", got)
	}
	if got := relevantErrors("a\nb\nc\n", 2); !slices.Equal(got, []string{"b", "c"}) {
		t.Errorf("no [ERROR]: %q", got)
	}
	if errorLogPath("", "./host.err", "/var/lib/mysql/") != "/var/lib/mysql/host.err" ||
		errorLogPath("/x.log", "/y.log", "/d") != "/x.log" || errorLogPath("", "stderr", "/d") != "" {
		t.Error("errorLogPath")
	}
}

// A profile's faults are named by file and line, never by echoing the
// line: a --profile-dir may point at a file that is not a profile at all
// (the review saw a file's first line printed back).
func TestParseCnfRejects(t *testing.T) {
	for text, want := range map[string]string{
		"server_id = 1\n":                     `p.cnf:1: a line outside any section (want [mysqld] first)`,
		"!includedir /etc/x\n":                "p.cnf:1: a ! directive (!include, !includedir): a profile renders to one self-contained file",
		"[client]\nuser=x\n":                  "p.cnf:1: a section profiles do not use (they may use [mysqld], [mariadb] and [mysqld_safe])",
		"[mysqld]\ninit_connect = a # b\n":    `p.cnf:2: init_connect: value "a # b" holds # or a quote, which an option file would read differently`,
		"[mysqld]\nweird$name = 1\n":          `p.cnf:2: not an option name (letters, digits, '_' and '-' only)`,
		"[mysqld\n":                           `p.cnf:1: malformed section header`,
		"root:$6$secret:19000:0:99999:7:::\n": `p.cnf:1: a line outside any section (want [mysqld] first)`,
	} {
		if _, err := parseCnf("p.cnf", text); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
	f, err := parseCnf("p.cnf", "[mysqld]\nsync_binlog = 0\nloose-Sync-Binlog = 1\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.checkDuplicates("p.cnf"); err == nil || err.Error() != "p.cnf: sync_binlog is set twice (lines 2 and 3)" {
		t.Error(err)
	}
}

func TestParseKnobs(t *testing.T) {
	kv, err := ParseKnobs([]string{"sync-binlog=1", "innodb_buffer_pool_size = 1G"})
	if err != nil || !slices.Equal(kv, []KV{{"sync_binlog", "1"}, {"innodb_buffer_pool_size", "1G"}}) {
		t.Errorf("%v %v", kv, err)
	}
	for _, bad := range [][]string{{"novalue"}, {"a=1", "a=2"}, {"x;y=1"}, {"x=a\nb"}} {
		if _, err := ParseKnobs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseServerHint(t *testing.T) {
	for _, c := range []struct {
		hint, want string
		assumed    bool
	}{
		{"mariadb", "MariaDB 10.11.0", true},
		{"percona:5.7.44", "Percona Server 5.7.44", false},
		{"MySQL-8.0.36", "MySQL 8.0.36", false},
		{"mysql 8.4.0", "MySQL 8.4.0", false},
	} {
		s, assumed, err := ParseServerHint(c.hint)
		if err != nil || s.String() != c.want || assumed != c.assumed {
			t.Errorf("%q: %v %v %v", c.hint, s, assumed, err)
		}
	}
	if _, _, err := ParseServerHint("oracle"); err == nil {
		t.Error("unknown flavour accepted")
	}
	inv := testInventory(nil)
	if _, err := OfflineTarget(inv.Hosts[0], inv, ""); err == nil || !strings.Contains(err.Error(), "set mysql.flavor") {
		t.Error(err)
	}
	inv.Hosts[0].MySQL.Flavor = "percona:5.7.44"
	tg, err := OfflineTarget(inv.Hosts[0], inv, "")
	if err != nil || tg.Server.Flavor != flavor.Percona || tg.Assumed {
		t.Errorf("%+v %v", tg, err)
	}
	cfg, err := Render(tg, Desired{Engine: "tokudb"})
	if err != nil || cfg.Path != "" || !strings.Contains(cfg.Text, "loose-tokudb_cache_size = 4G") {
		t.Errorf("dry run: %v %+v", err, cfg)
	}
}

// TestRenderOverridesAndAbsent: a knob wins over profile.vars; MySQL's
// binlog_order_commits on MariaDB (which never had it) is refused with
// where it can be asked, not written.
func TestRenderOverridesAndAbsent(t *testing.T) {
	s := mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))
	inv := testInventory(map[string]string{"innodb-buffer-pool-size": "128M"})
	_, err := Render(target(t, inv, 0, s), Desired{Knobs: []KV{{"binlog_order_commits", "OFF"}}})
	if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: binlog_order_commits: no such variable on MariaDB 10.11.19: it is MySQL's") ||
		!strings.Contains(err.Error(), "orch lab up --flavor mysql") {
		t.Errorf("binlog_order_commits on MariaDB: %v", err)
	}
	cfg, err := Render(target(t, inv, 0, s), Desired{Knobs: []KV{{"innodb_buffer_pool_size", "256M"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cfg.Text, "# innodb_buffer_pool_size: --knob\ninnodb_buffer_pool_size = 256M\n") ||
		strings.Count(cfg.Text, "\ninnodb_buffer_pool_size") != 1 {
		t.Errorf("the knob wins over profile.vars, once:\n%s", cfg.Text)
	}
	if _, err := Render(target(t, testInventory(nil), 0, s), Desired{Engine: "myisam"}); err == nil ||
		err.Error() != `master 10.0.0.1: unknown engine "myisam" (profiles: innodb, tokudb, rocksdb)` {
		t.Error(err)
	}
}

func TestRenderCustomProfileDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := osWriteFile(dir+"/"+name, text); err != nil {
			t.Fatal(err)
		}
	}
	write("innodb.cnf", "{{template \"base.cnf\" .}}\n# {{.Host}} {{.Role}} {{.Flavor}} {{.Version}} {{.Datadir}}\ninnodb_io_capacity = {{if eq .Role \"master\"}}2000{{else}}1000{{end}}\n")
	write("base.cnf", "[mysqld]\nserver_id = {{.ServerID}}\ndefault_storage_engine = {{.EngineName}}\n")
	s := mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))
	inv := testInventory(nil)
	inv.Profile.Dir = dir
	cfg, err := Render(target(t, inv, 1, s), Desired{})
	if err != nil {
		t.Fatal(err)
	}
	wantBody := "[mysqld]\nserver_id = 2\ndefault_storage_engine = InnoDB\n\n# slave1 slave mariadb 10.11.19 /var/lib/mysql\ninnodb_io_capacity = 1000\n" +
		"# read_only: orch: a slave takes writes from replication only\nread_only = ON\n"
	if !strings.HasSuffix(cfg.Text, wantBody) || !strings.Contains(cfg.Text, "# profile: innodb.cnf ("+dir+"); from the profile dir: base.cnf\n") {
		t.Errorf("got:\n%s", cfg.Text)
	}
	write("rocksdb.cnf", "{{.NoSuchField}}")
	if _, err := Render(target(t, inv, 1, s), Desired{Engine: "rocksdb"}); err == nil || !strings.Contains(err.Error(), "NoSuchField") {
		t.Errorf("a template error: %v", err)
	}
}

func TestChooseService(t *testing.T) {
	kv := func(pairs ...string) map[string][]string {
		m := map[string][]string{}
		for i := 0; i < len(pairs); i += 2 {
			m[pairs[i]] = append(m[pairs[i]], pairs[i+1])
		}
		return m
	}
	for _, c := range []struct {
		sc    topology.ServiceControl
		facts map[string][]string
		start string
	}{
		{topology.ServiceControl{Start: "/x/start", Stop: "/x/stop"}, kv("pid1", "systemd", "unit", "mysql"), "/x/start"},
		{topology.ServiceControl{}, kv("pid1", "systemd", "unit", "mariadb", "unit", "mysqld"), "systemctl start mariadb"},
		{topology.ServiceControl{Unit: "my sql"}, kv("pid1", "systemd"), "systemctl start 'my sql'"},
		// Debian 12: mariadb.socket starts the server on a connection; it
		// is stopped and started with it. Another unit's socket is not.
		{topology.ServiceControl{}, kv("pid1", "systemd", "unit", "mariadb", "socket", "mariadb mariadb.socket", "socket", "mysql mysql.socket"),
			"systemctl start mariadb.socket mariadb"},
		// systemd installed but not running: /sbin/init may link to it, PID 1 says otherwise.
		{topology.ServiceControl{}, kv("pid1", "tini", "initd", "mariadb", "service", "yes"), "service mariadb start"},
		{topology.ServiceControl{}, kv("pid1", "sh", "initd", "mysql"), "/etc/init.d/mysql start"},
	} {
		s, err := chooseService("h", c.sc, c.facts)
		if err != nil || s.Start != c.start {
			t.Errorf("%+v %v: start %q, want %q (%v)", c.sc, c.facts, s.Start, c.start, err)
		}
	}
	if _, err := chooseService("h", topology.ServiceControl{}, kv("pid1", "sh")); err == nil || !strings.Contains(err.Error(), "set mysql.service") {
		t.Error(err)
	}
	if _, err := chooseService("h", topology.ServiceControl{Start: "x"}, nil); err == nil {
		t.Error("start without stop accepted")
	}
}

func osWriteFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }

// The option-file rules of the flavour table, seen through Render: MySQL
// ignores [mariadb] without a word, so a profile using it is refused;
// MyRocks on MySQL is a one-line error naming the host.
func TestRenderFlavourRules(t *testing.T) {
	dir := t.TempDir()
	if err := osWriteFile(dir+"/innodb.cnf", "[mysqld]\nserver_id = {{.ServerID}}\n[mariadb]\ninnodb_io_capacity = 1000\n"); err != nil {
		t.Fatal(err)
	}
	inv := testInventory(nil)
	inv.Profile.Dir = dir
	_, err := Render(target(t, inv, 0, mustServer(t, flavor.MySQL, flavor.V(8, 0, 36))), Desired{})
	if err == nil || err.Error() != "master 10.0.0.1: MySQL 8.0.36 does not read section [mariadb]: it would ignore innodb_io_capacity" {
		t.Errorf("[mariadb] on MySQL: %v", err)
	}
	if _, err := Render(target(t, inv, 0, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))), Desired{}); err != nil {
		t.Errorf("[mariadb] on MariaDB: %v", err)
	}
	_, err = Render(target(t, testInventory(nil), 0, mustServer(t, flavor.MySQL, flavor.V(8, 4, 3))), Desired{Engine: "rocksdb"})
	if err == nil || err.Error() != "master 10.0.0.1: rocksdb is not available on MySQL 8.4.3 (MyRocks ships with MariaDB and Percona Server 8.0); engines: innodb" {
		t.Errorf("MyRocks on MySQL: %v", err)
	}
}

// The server's own option files set bind-address and sync_binlog
// (Debian's 50-server.cnf, a DBA's file); orch's file, read last, sets its
// profile's values: each one replaced without the user asking is named,
// one the user named (profile.vars, --knob) or set alike is not.
func TestOverriddenNamesTheServersOwnSettings(t *testing.T) {
	opts := parseDefaults("--bind-address=127.0.0.1\n--sync_binlog=0\n--log-bin=/data/binlog/mysql-bin\n--max_connections=500\n" +
		"--bind_address=0.0.0.0\n--sync_binlog=1\n--log_bin=/data/binlog/mysql-bin\n--max_connections=2000\n")
	vars := []Var{
		{Name: "bind_address", Value: "0.0.0.0", Origin: "profile"},
		{Name: "sync_binlog", Value: "1", Origin: "profile"},
		{Name: "log_bin", Value: "/data/binlog/mysql-bin", Origin: "profile"},
		{Name: "max_connections", Value: "2000", Origin: "knob"},
	}
	got := overridden(vars, opts)
	want := []string{
		"bind_address = 127.0.0.1 (the server's own option files) is replaced by the profile's 0.0.0.0; name it in profile.vars or --knob to choose",
		"sync_binlog = 0 (the server's own option files) is replaced by the profile's 1; name it in profile.vars or --knob to choose",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
