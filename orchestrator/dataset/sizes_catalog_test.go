package dataset

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// sizesServer holds a benchmark database of two InnoDB tables and one
// MyRocks table (listed out of name order, as the catalogue may), a view,
// another schema's MyISAM table and the mysql schema.
func sizesServer() *mariaCatalog {
	srv := newMariaCatalog()
	srv.myrocks = true
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest3", engine: "ROCKSDB", estimate: 3000, data: 500000, index: 50000, flushed: true})
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "InnoDB", estimate: 1000, data: 1000000, index: 200000, free: 4194304})
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest2", engine: "InnoDB", estimate: 2000, data: 2000000, index: 300000})
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest_v", kind: "VIEW"})
	srv.add(&mariaTable{schema: "other", name: "t1", engine: "MyISAM", estimate: 10, data: 7000, index: 1024})
	return srv
}

// Without an executor, every table's lengths come from the catalogue, per
// table (by name) and per engine, and the datadir's size is what every
// schema's base tables take.
func TestSizesFromCatalogue(t *testing.T) {
	rep, err := Sizes(context.Background(), openCatalog(t, sizesServer()), "sbtest", SizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []TableSize{
		{Table: "sbtest1", Engine: "innodb", Rows: 1000, DataBytes: 1000000, IndexBytes: 200000, FreeBytes: 4194304},
		{Table: "sbtest2", Engine: "innodb", Rows: 2000, DataBytes: 2000000, IndexBytes: 300000},
		{Table: "sbtest3", Engine: "rocksdb", Rows: 3000, DataBytes: 500000, IndexBytes: 50000}, // DATA_FREE NULL
	}
	if len(rep.Tables) != len(want) {
		t.Fatalf("tables %+v, want %+v", rep.Tables, want)
	}
	for i := range want {
		if rep.Tables[i] != want[i] {
			t.Errorf("table %d: %+v, want %+v", i, rep.Tables[i], want[i])
		}
	}
	engines := []EngineSize{
		{Engine: "innodb", Tables: 2, DataBytes: 3000000, IndexBytes: 500000},
		{Engine: "rocksdb", Tables: 1, DataBytes: 500000, IndexBytes: 50000},
	}
	if len(rep.Engines) != 2 || rep.Engines[0] != engines[0] || rep.Engines[1] != engines[1] {
		t.Errorf("engines %+v, want %+v", rep.Engines, engines)
	}
	if rep.Database != "sbtest" || rep.DataBytes != 3500000 || rep.IndexBytes != 550000 {
		t.Errorf("totals: %s %d + %d", rep.Database, rep.DataBytes, rep.IndexBytes)
	}
	// sbtest 4050000 + other.t1 8024 + mysql.global_priv 12288.
	if rep.Datadir != "/var/lib/mysql" || rep.DatadirSource != SourceCatalog || rep.DatadirBytes != 4070312 {
		t.Errorf("datadir %q: %d bytes from %s, want /var/lib/mysql: 4070312 from the catalogue", rep.Datadir, rep.DatadirBytes, rep.DatadirSource)
	}
	if rep.Paths != nil || rep.EngineDiskBytes != nil || rep.BinlogBytes != 0 || rep.Note != "" {
		t.Errorf("facts without du: %+v", rep)
	}
}

// Refresh flushes MyRocks' memtable before the tables are analysed (until
// then a MyRocks table reads 0 bytes) and analyses without binary logging,
// so the slaves are not made to analyse too.
func TestSizesRefresh(t *testing.T) {
	newServer := func() *mariaCatalog {
		srv := newMariaCatalog()
		srv.myrocks = true
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "InnoDB", data: 16384, index: 16384, onDisk: [2]int64{10485760, 2097152}})
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest2", engine: "ROCKSDB", onDisk: [2]int64{3145728, 524288}})
		return srv
	}
	ctx := context.Background()
	stale, err := Sizes(ctx, openCatalog(t, newServer()), "sbtest", SizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stale.Tables[0].DataBytes != 16384 || stale.Tables[1].DataBytes != 0 {
		t.Fatalf("without refresh: %+v", stale.Tables)
	}

	srv := newServer()
	rep, err := Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Refresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tables[0].DataBytes != 10485760 || rep.Tables[0].IndexBytes != 2097152 ||
		rep.Tables[1].DataBytes != 3145728 || rep.Tables[1].IndexBytes != 524288 || rep.Note != "" {
		t.Errorf("refreshed: %+v (note %q)", rep.Tables, rep.Note)
	}
	if n := len(srv.received("ANALYZE")); n != 2 {
		t.Errorf("%d tables analysed, want 2", n)
	}
	if len(srv.binlog) != 0 {
		t.Errorf("written to the binary log: %q", srv.binlog)
	}

	// A server without MyRocks has no flush to do (and no variable to do
	// it with).
	srv = newMariaCatalog()
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "InnoDB", data: 16384, onDisk: [2]int64{65536, 16384}})
	rep, err = Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Refresh: true})
	if err != nil || rep.Tables[0].DataBytes != 65536 {
		t.Fatalf("InnoDB only: %+v %v", rep, err)
	}
}

// A read-only replica refuses ANALYZE: the sizes are read as they are,
// with a note carrying the server's reason. Other refusals fail.
func TestSizesRefreshRefused(t *testing.T) {
	ctx := context.Background()
	srv := newMariaCatalog()
	srv.readOnly = true
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "InnoDB", data: 16384, onDisk: [2]int64{65536, 16384}})
	rep, err := Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Refresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tables[0].DataBytes != 16384 || !strings.Contains(rep.Note, "running with the --read-only option") {
		t.Errorf("read-only: %+v, note %q", rep.Tables, rep.Note)
	}

	for _, c := range []struct {
		name  string
		setup func(*mariaCatalog)
		want  []string
	}{
		{"crashed table", func(s *mariaCatalog) { s.find("sbtest", "sbtest2").crashed = true },
			[]string{"sbtest2", "is marked as crashed"}},
		{"no SUPER for the flush", func(s *mariaCatalog) {
			s.refuse = func(q string) error {
				if strings.HasPrefix(q, "SET GLOBAL") {
					return mariaError(1227, "Access denied; you need (at least one of) the SUPER privilege(s) for this operation")
				}
				return nil
			}
		}, []string{"SUPER privilege"}},
		{"lost connection in ANALYZE", func(s *mariaCatalog) {
			s.refuse = func(q string) error {
				if strings.HasPrefix(q, "ANALYZE") {
					return errLostConnection
				}
				return nil
			}
		}, []string{"sbtest1", "Lost connection"}},
		{"table listing", func(s *mariaCatalog) {
			s.refuse = func(q string) error {
				if strings.Contains(q, "information_schema.TABLES") {
					return errLostConnection
				}
				return nil
			}
		}, []string{"sbtest", "Lost connection"}},
	} {
		srv := newMariaCatalog()
		srv.myrocks = true
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest1", engine: "ROCKSDB"})
		srv.add(&mariaTable{schema: "sbtest", name: "sbtest2", engine: "MyISAM"})
		c.setup(srv)
		rep, err := Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Refresh: true})
		if err == nil || rep != nil || containsAll(err.Error(), c.want...) != "" {
			t.Errorf("%s: Sizes = %+v, %v; want an error saying %q", c.name, rep, err, c.want)
		}
	}
}

// A server that cannot be read is an error naming the server's cause.
func TestSizesServerFailures(t *testing.T) {
	for _, prefix := range []string{"SELECT TABLE_NAME", "SELECT @@datadir", "SELECT COALESCE("} {
		srv := sizesServer()
		srv.refuse = func(q string) error {
			if strings.HasPrefix(q, prefix) {
				return errLostConnection
			}
			return nil
		}
		rep, err := Sizes(context.Background(), openCatalog(t, srv), "sbtest", SizeOptions{})
		if err == nil || !strings.Contains(err.Error(), "Lost connection") {
			t.Errorf("%s failing: Sizes = %+v, %v", prefix, rep, err)
		}
	}
}

// With an executor, du measures the datadir, the database's and the
// engines' directories, the InnoDB table files and the binary and relay
// logs (at the basenames the server reports), on a datadir of real files.
func TestSizesWithDu(t *testing.T) {
	dir := t.TempDir()
	files := map[string]int{
		"ibdata1": 1000, "sbtest/sbtest1.ibd": 3000, "sbtest/sbtest2.ibd": 2000, "sbtest/db.opt": 65,
		"#rocksdb/000012.sst": 5000, "mysql-bin.000001": 400, "mysql-bin.000002": 100, "mysql-bin.index": 38,
		"db1-relay-bin.000003": 70, "db1-relay-bin.index": 30,
	}
	total := int64(0)
	for rel, n := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
		total += int64(n)
	}
	srv := sizesServer()
	srv.vars["datadir"] = dir + "/"
	srv.vars["log_bin_basename"] = filepath.Join(dir, "mysql-bin")
	srv.vars["relay_log_basename"] = filepath.Join(dir, "db1-relay-bin")
	rep, err := Sizes(context.Background(), openCatalog(t, srv), "sbtest", SizeOptions{Exec: executor.NewLocal("db1")})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Datadir != dir || rep.DatadirSource != SourceDu || rep.DatadirBytes < total || rep.Note != "" {
		t.Fatalf("datadir %q: %d bytes from %s (note %q), want %s: >= %d from du", rep.Datadir, rep.DatadirBytes, rep.DatadirSource, rep.Note, dir, total)
	}
	if rep.BinlogBytes != 500 || rep.RelayLogBytes != 70 {
		t.Errorf("logs: binlog %d, relay %d; want 500 and 70 (the .index files are not logs)", rep.BinlogBytes, rep.RelayLogBytes)
	}
	if e := rep.EngineDiskBytes; e["innodb"] != 5000 || e["rocksdb"] < 5000 {
		t.Errorf("engines on disk %v, want innodb 5000, rocksdb >= 5000", e)
	}
	if rep.Paths["sbtest"] < 5065 || rep.Paths["#rocksdb"] < 5000 || len(rep.Paths) != 2 {
		t.Errorf("paths %v", rep.Paths)
	}
	// The catalogue's figures are reported alongside.
	if rep.DataBytes != 3500000 || len(rep.Tables) != 3 {
		t.Errorf("catalogue: %d bytes in %d tables", rep.DataBytes, len(rep.Tables))
	}
}

// sudoless is a host whose sudo wants a password.
type sudoless struct{ cmds []executor.Command }

func (h *sudoless) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	h.cmds = append(h.cmds, c)
	return executor.Result{ExitCode: 1}, &executor.ExitError{Host: h.Name(), ExitCode: 1, Stderr: "sudo: a password is required"}
}
func (h *sudoless) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return errors.New("no uploads")
}
func (h *sudoless) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("no downloads")
}
func (h *sudoless) Name() string { return "db1 192.0.2.11" }
func (h *sudoless) Close() error { return nil }

// When du cannot run, the datadir's size comes from the catalogue and the
// note says why, naming the host, after any note about the refresh.
func TestSizesDuFallsBack(t *testing.T) {
	ctx := context.Background()
	host := &sudoless{}
	rep, err := Sizes(ctx, openCatalog(t, sizesServer()), "sbtest", SizeOptions{Exec: host})
	if err != nil {
		t.Fatal(err)
	}
	if len(host.cmds) != 1 || !host.cmds[0].Sudo {
		t.Errorf("commands %+v, want one du as root (the datadir is the server's)", host.cmds)
	}
	if rep.DatadirSource != SourceCatalog || rep.DatadirBytes != 4070312 ||
		containsAll(rep.Note, "db1 192.0.2.11", "sudo: a password is required") != "" || strings.HasPrefix(rep.Note, ";") {
		t.Errorf("fallback: %d bytes from %s, note %q", rep.DatadirBytes, rep.DatadirSource, rep.Note)
	}

	srv := sizesServer()
	srv.readOnly = true
	rep, err = Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Exec: &sudoless{}, Refresh: true})
	if err != nil {
		t.Fatal(err)
	}
	ro := strings.Index(rep.Note, "--read-only")
	pw := strings.Index(rep.Note, "a password is required")
	if ro < 0 || pw < ro || rep.DatadirSource != SourceCatalog {
		t.Errorf("read-only and sudoless: note %q", rep.Note)
	}

	// The log basenames cannot be read: du is not tried.
	srv = sizesServer()
	srv.refuse = func(q string) error {
		if strings.HasPrefix(q, "SHOW GLOBAL VARIABLES") {
			return errLostConnection
		}
		return nil
	}
	host = &sudoless{}
	rep, err = Sizes(ctx, openCatalog(t, srv), "sbtest", SizeOptions{Exec: host})
	if err != nil || len(host.cmds) != 0 || rep.DatadirSource != SourceCatalog || !strings.Contains(rep.Note, "Lost connection") {
		t.Errorf("no log basenames: %+v %v (%d commands)", rep, err, len(host.cmds))
	}
}
