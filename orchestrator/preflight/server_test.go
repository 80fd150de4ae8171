package preflight

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
	"github.com/orch-bench/orch/topology"
)

// manualServer answers SELECTs as the MySQL 8.0 manual describes them:
// VERSION() and @@version_comment, and the table
// information_schema.ENGINES (columns ENGINE and SUPPORT; the rows are
// the manual's SHOW ENGINES example), with LOWER() and WHERE col IN (...).
type manualServer struct {
	version, comment string
	engines          [][2]string
	enginesErr       error
}

var mysql80Engines = [][2]string{
	{"ARCHIVE", "YES"}, {"BLACKHOLE", "YES"}, {"MRG_MYISAM", "YES"}, {"FEDERATED", "NO"},
	{"MyISAM", "YES"}, {"PERFORMANCE_SCHEMA", "YES"}, {"InnoDB", "DEFAULT"}, {"MEMORY", "YES"},
	{"CSV", "YES"},
}

var selectRE = regexp.MustCompile(`(?is)^\s*SELECT\s+(.*?)(?:\s+FROM\s+(\S+))?(?:\s+WHERE\s+(\w+)\s+IN\s*\((.*)\))?\s*$`)

func (s *manualServer) Handle(_ context.Context, q string) (sqlfake.Result, error) {
	m := selectRE.FindStringSubmatch(q)
	if m == nil {
		return sqlfake.Result{}, &mysql.MySQLError{Number: 1064, SQLState: [5]byte([]byte("42000")), Message: "You have an error in your SQL syntax"}
	}
	exprs := strings.Split(m[1], ",")
	rows := [][2]string{{}} // no FROM: one row
	if m[2] != "" {
		if !strings.EqualFold(m[2], "information_schema.ENGINES") {
			return sqlfake.Result{}, &mysql.MySQLError{Number: 1146, SQLState: [5]byte([]byte("42S02")), Message: "Table '" + m[2] + "' doesn't exist"}
		}
		if s.enginesErr != nil {
			return sqlfake.Result{}, s.enginesErr
		}
		rows = s.engines
	}
	var res sqlfake.Result
	for _, e := range exprs {
		res.Cols = append(res.Cols, strings.TrimSpace(e))
	}
	for _, r := range rows {
		if m[3] != "" && !inList(s.value(m[3], r), m[4]) {
			continue
		}
		var out []any
		for _, e := range exprs {
			v, err := s.eval(strings.TrimSpace(e), r)
			if err != nil {
				return sqlfake.Result{}, err
			}
			out = append(out, v)
		}
		res.Rows = append(res.Rows, out)
	}
	return res, nil
}

func (s *manualServer) eval(e string, row [2]string) (string, error) {
	switch up := strings.ToUpper(e); {
	case up == "VERSION()":
		return s.version, nil
	case up == "@@VERSION_COMMENT":
		return s.comment, nil
	case up == "ENGINE" || up == "SUPPORT":
		return s.value(up, row), nil
	case strings.HasPrefix(up, "LOWER(") && strings.HasSuffix(up, ")"):
		v, err := s.eval(e[len("LOWER("):len(e)-1], row)
		return strings.ToLower(v), err
	}
	return "", &mysql.MySQLError{Number: 1054, SQLState: [5]byte([]byte("42S22")), Message: "Unknown column '" + e + "' in 'field list'"}
}

func (s *manualServer) value(col string, row [2]string) string {
	if strings.EqualFold(col, "SUPPORT") {
		return row[1]
	}
	return row[0]
}

// inList: v among the quoted strings of list ('YES','DEFAULT').
func inList(v, list string) bool {
	for _, item := range strings.Split(list, ",") {
		if strings.Trim(strings.TrimSpace(item), "'") == v {
			return true
		}
	}
	return false
}

func openManual(s *manualServer) *sql.DB {
	return sqlfake.Open(func(context.Context) (sqlfake.Session, error) { return s, nil })
}

// A pool the command already opened: the server's own version wins over
// the binary's, its loaded engines are listed, then plugin files.
func TestProbeHostReadsAnOpenServer(t *testing.T) {
	h := dbHost(topology.RoleMaster)
	out := edit(t, debianDB, "plugin_file=ha_rocksdb.so\n", "plugin_file=ha_rocksdb.so\nplugin_file=ha_tokudb.so\nplugin_file=ha_rocksdb.so\n")
	db := openManual(&manualServer{version: "8.0.36", comment: "MySQL Community Server - GPL", engines: mysql80Engines})
	defer db.Close()
	f := &Facts{Host: h.Name}
	probeHost(context.Background(), h, newCannedHost("db1", out), f, db)
	if f.MySQL != "up" || f.Server != "MySQL 8.0.36" {
		t.Errorf("server %q, %q", f.MySQL, f.Server)
	}
	want := []string{"archive", "blackhole", "csv", "innodb", "memory", "mrg_myisam", "myisam", "performance_schema",
		// ha_rocksdb.so found in two plugin directories is listed once.
		"rocksdb (plugin file, not loaded)", "tokudb (plugin file, not loaded)"}
	if !slices.Equal(f.Engines, want) {
		t.Errorf("engines\n got %q\nwant %q", f.Engines, want)
	}
}

func TestServerFactsWithoutEngines(t *testing.T) {
	h := dbHost(topology.RoleMaster)
	db := openManual(&manualServer{version: "10.11.19-MariaDB-0+deb12u1", comment: "Debian 12",
		enginesErr: &mysql.MySQLError{Number: 1227, SQLState: [5]byte([]byte("42000")), Message: "Access denied; you need (at least one of) the PROCESS privilege(s) for this operation"}})
	defer db.Close()
	f := &Facts{}
	serverFacts(context.Background(), h, db, f, []string{"ha_rocksdb.so"})
	if f.MySQL != "up" || f.Server != "MariaDB 10.11.19" {
		t.Errorf("server %q, %q", f.MySQL, f.Server)
	}
	wantProblem(t, f, false, "db1 10.0.0.5", "PROCESS privilege")
	if !slices.Equal(f.Engines, []string{"rocksdb (plugin file, not loaded)"}) {
		t.Errorf("engines %q", f.Engines)
	}
}

// Engines loaded and plugin files on disk, as loadable merges them.
func TestLoadable(t *testing.T) {
	for _, c := range []struct {
		loaded, files, want []string
	}{
		{nil, nil, nil},
		{[]string{"innodb"}, nil, []string{"innodb"}},
		// MyRocks loaded: its file adds nothing.
		{[]string{"innodb", "rocksdb"}, []string{"ha_rocksdb.so"}, []string{"innodb", "rocksdb"}},
		// A library orch has no engine for is named after its file.
		{[]string{"innodb"}, []string{"ha_spider.so"}, []string{"innodb", "spider (plugin file, not loaded)"}},
		{nil, []string{"ha_tokudb.so", "ha_tokudb.so"}, []string{"tokudb (plugin file, not loaded)"}},
	} {
		if got := loadable(c.loaded, c.files); !slices.Equal(got, c.want) {
			t.Errorf("loadable(%q, %q) = %q, want %q", c.loaded, c.files, got, c.want)
		}
	}
}

// The clients root's socket check runs: MariaDB's, printing what it
// prints when the server lets root in, or refuses it.
const (
	clientLetsRootIn  = "cat >/dev/null; printf '1\\n1\\n'"
	clientRefusesRoot = "cat >/dev/null; echo \"ERROR 1698 (28000): Access denied for user 'root'@'localhost'\" >&2; exit 1"
)

// tunnelHost is a database host on this machine reached through its own
// tunnel, its server the wire server at port, its mariadb client client.
func tunnelHost(t *testing.T, port int, client string) (*topology.Host, *toolHost) {
	h := &topology.Host{Name: "db1", Role: topology.RoleMaster, Address: "127.0.0.1",
		MySQL: topology.MySQLConfig{Port: port, User: "admin", Password: topology.InlineSecret("pw")}}
	return h, newToolHost("db1", toolDir(t, map[string]string{"mariadb": client}))
}

func checkServerFacts(h *topology.Host, ex *toolHost) *Facts {
	f := &Facts{Host: h.Name}
	checkServer(context.Background(), h, ex, f, []string{"ha_tokudb.so"}, nil)
	return f
}

// managed makes h's account orch's own, its password file in dir (made
// when pending is false).
func managed(t *testing.T, h *topology.Host, pending bool) {
	file := filepath.Join(t.TempDir(), "admin.password")
	if !pending {
		if err := os.WriteFile(file, []byte("generated\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h.MySQL.User, h.MySQL.Password, h.MySQL.Managed = "orch_admin", topology.Secret{File: file}, true
}

func TestCheckServerThroughTheTunnel(t *testing.T) {
	t.Run("nothing listens", func(t *testing.T) {
		h, ex := tunnelHost(t, closedPort(t), clientLetsRootIn)
		f := checkServerFacts(h, ex)
		if f.MySQL != "FAILED" {
			t.Errorf("MySQL %q", f.MySQL)
		}
		wantProblem(t, f, true, "db1 127.0.0.1", "running")
		if !slices.Equal(f.Engines, []string{"tokudb (plugin file, not loaded)"}) {
			t.Errorf("engines %q", f.Engines)
		}
	})
	t.Run("login refused", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireRefuses)
		h, ex := tunnelHost(t, srv.Port, clientLetsRootIn)
		f := checkServerFacts(h, ex)
		if f.MySQL != "FAILED" {
			t.Errorf("MySQL %q", f.MySQL)
		}
		wantProblem(t, f, true, "db1 127.0.0.1", "Access denied", "mysql.password")
	})
	t.Run("server answers", func(t *testing.T) {
		// The wire server knows no queries: the login works, the
		// engines cannot be listed.
		srv := startWire(t, "127.0.0.1:0", wireGreets)
		h, ex := tunnelHost(t, srv.Port, clientLetsRootIn)
		f := checkServerFacts(h, ex)
		if f.MySQL != "up" || f.Blocking() {
			t.Errorf("MySQL %q, problems %+v", f.MySQL, f.Problems)
		}
		wantProblem(t, f, false, "db1 127.0.0.1", "SHOW ENGINES")
		if ex.dials.Load() == 0 {
			t.Error("the server was not reached through the host's tunnel")
		}
	})
	t.Run("managed account not made yet", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireGreets)
		h, ex := tunnelHost(t, srv.Port, clientLetsRootIn)
		managed(t, h, true)
		f := checkServerFacts(h, ex)
		if !strings.Contains(f.MySQL, "orch_admin") || len(f.Problems) != 0 {
			t.Errorf("MySQL %q, problems %+v", f.MySQL, f.Problems)
		}
		if srv.conns.Load() != 0 {
			t.Error("logged in with a password that does not exist yet")
		}
		if !slices.Equal(f.Engines, []string{"tokudb (plugin file, not loaded)"}) {
			t.Errorf("engines %q", f.Engines)
		}
	})
	t.Run("managed account, root's socket refused", func(t *testing.T) {
		h, ex := tunnelHost(t, closedPort(t), clientRefusesRoot)
		managed(t, h, true)
		f := checkServerFacts(h, ex)
		if f.MySQL != "FAILED" {
			t.Errorf("MySQL %q", f.MySQL)
		}
		wantProblem(t, f, true, "db1", "ERROR 1698", "unix socket")
	})
	t.Run("managed account's password changed", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireRefuses)
		h, ex := tunnelHost(t, srv.Port, clientLetsRootIn)
		managed(t, h, false)
		f := checkServerFacts(h, ex)
		if f.Blocking() || !strings.Contains(f.MySQL, "orch_admin") {
			t.Errorf("MySQL %q, problems %+v", f.MySQL, f.Problems)
		}
		wantProblem(t, f, false, "db1 127.0.0.1", "orch_admin", "refused")
	})
}

// The probe run for real on this machine, under /bin/sh, with the
// host's programs chosen: what preflight makes of their presence and of
// the versions they print.
func TestProbeHostRealShell(t *testing.T) {
	need(t, "awk", "df")
	t.Run("load box without clients", func(t *testing.T) {
		h := &topology.Host{Name: "lb1", Role: topology.RoleLoadBox, Address: "127.0.0.1"}
		f := probeFacts(h, newToolHost("lb1", toolDir(t, nil)))
		if f.Clients["sysbench"] != "" || f.Clients["mysqlslap"] != "" {
			t.Errorf("clients found: %q, %q", f.Clients["sysbench"], f.Clients["mysqlslap"])
		}
		wantProblem(t, f, true, "lb1 127.0.0.1", "sysbench", "mysqlslap")
	})
	t.Run("load box with sysbench", func(t *testing.T) {
		h := &topology.Host{Name: "lb1", Role: topology.RoleLoadBox, Address: "127.0.0.1"}
		f := probeFacts(h, newToolHost("lb1", toolDir(t, map[string]string{
			"sysbench":     "echo 'sysbench 1.0.20'",
			"mariadb-slap": "echo '/usr/bin/mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)'",
		})))
		if f.Clients["sysbench"] != "sysbench 1.0.20" || !strings.HasPrefix(f.Clients["mysqlslap"], "/usr/bin/mariadb-slap  Ver 1.0") || f.Blocking() {
			t.Errorf("clients %q, %q; problems %+v", f.Clients["sysbench"], f.Clients["mysqlslap"], f.Problems)
		}
	})
	t.Run("database host", func(t *testing.T) {
		datadir := filepath.Join(t.TempDir(), "mysql")
		if err := os.Mkdir(datadir, 0o750); err != nil {
			t.Fatal(err)
		}
		h := &topology.Host{Name: "db1", Role: topology.RoleSlave, Address: "127.0.0.1",
			MySQL: topology.MySQLConfig{Datadir: datadir, Port: closedPort(t), User: "admin", Password: topology.InlineSecret("pw")}}
		f := probeFacts(h, newToolHost("db1", toolDir(t, map[string]string{
			"mariadbd": "echo '/usr/sbin/mysqld  Ver 5.7.44 for Linux on x86_64 (MySQL Community Server (GPL))'",
		})))
		if f.DiskPath != datadir || f.DiskFS == "" || f.DiskSizeMB <= 0 {
			t.Errorf("disk facts of %s: %+v", datadir, f)
		}
		if f.Server != "MySQL 5.7.44" {
			t.Errorf("server %q from %q", f.Server, f.Mysqld)
		}
		if len(f.StackTools) != 0 {
			t.Errorf("stack tools %q on a PATH without them", f.StackTools)
		}
		wantProblem(t, f, false, "db1 127.0.0.1", "gdb")
		if f.MySQL != "FAILED" {
			t.Errorf("MySQL %q with nothing listening", f.MySQL)
		}
		want := "not used"
		if os.Geteuid() == 0 {
			want = "root"
		}
		if f.Sudo != want {
			t.Errorf("sudo %q, want %q", f.Sudo, want)
		}
	})
}
