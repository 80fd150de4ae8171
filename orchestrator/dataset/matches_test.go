package dataset

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// containsAll reports the first of wants that s lacks ("" if none).
func containsAll(s string, wants ...string) string {
	for _, w := range wants {
		if !strings.Contains(s, w) {
			return w
		}
	}
	return ""
}

// A database holding exactly the workload's tables, engine and row counts
// matches, whatever else it and other schemas hold; the counts are exact
// (COUNT(*) of each benchmark table), never the TABLE_ROWS estimate.
func TestMatchesPreparedDataset(t *testing.T) {
	srv := newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 4, 10000)
	srv.add(&mariaTable{schema: "sbtest", name: "notes", engine: "MyISAM", count: 3})
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest_v", kind: "VIEW"})
	srv.add(&mariaTable{schema: "sbtest", name: "sbtest0", engine: "InnoDB"})
	srv.sbtest("other", "sbtest", 9, 5)
	srv.find("sbtest", "sbtest3").estimate = 9871 // InnoDB's guess
	db := openCatalog(t, srv)

	ok, why, err := Matches(context.Background(), db, Spec{Database: "sbtest", Tables: 4, TableSize: 10000, Engine: "InnoDB"})
	if err != nil || !ok {
		t.Fatalf("Matches = %v %q %v, want a match", ok, why, err)
	}
	if miss := containsAll(why, "sbtest", "sbtest4", "10000"); miss != "" {
		t.Errorf("reason %q does not say %q", why, miss)
	}
	want := []string{"sbtest.sbtest1", "sbtest.sbtest2", "sbtest.sbtest3", "sbtest.sbtest4"}
	if got := srv.scanned(); !slices.Equal(got, want) {
		t.Errorf("tables counted %v, want %v", got, want)
	}
}

// The engine is compared without regard to case (MariaDB shows ROCKSDB,
// workloads say rocksdb), any engine matches when none is asked, and other
// prefixes than sysbench's work.
func TestMatchesEngineAndPrefix(t *testing.T) {
	srv := newMariaCatalog()
	for _, n := range []string{"orders1", "orders2"} {
		srv.add(&mariaTable{schema: "shop", name: n, engine: "ROCKSDB", count: 50})
	}
	srv.sbtest("shop", "sbtest", 7, 1) // not named like this workload's tables
	db := openCatalog(t, srv)
	ctx := context.Background()
	for _, spec := range []Spec{
		{Database: "shop", Tables: 2, TablePrefix: "orders", Engine: "rocksdb"},
		{Database: "shop", Tables: 2, TablePrefix: "orders", Engine: "RocksDB", TableSize: 50},
		{Database: "shop", Tables: 2, TablePrefix: "orders"},
	} {
		if ok, why, err := Matches(ctx, db, spec); err != nil || !ok {
			t.Errorf("%+v: Matches = %v %q %v, want a match", spec, ok, why, err)
		}
	}
	ok, why, err := Matches(ctx, db, Spec{Database: "shop", Tables: 2, TablePrefix: "orders", Engine: "innodb"})
	if err != nil || ok || containsAll(why, "orders1", "ROCKSDB", "innodb") != "" {
		t.Errorf("wrong engine: Matches = %v %q %v", ok, why, err)
	}
}

// What differs is said, and a structural difference is found without
// reading any table in full.
func TestMatchesReasons(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		setup func(*mariaCatalog)
		spec  Spec
		want  []string // in the reason
		not   []string // not in the reason
	}{
		{"no database", func(s *mariaCatalog) { s.sbtest("sbtest_old", "sbtest", 4, 100) },
			Spec{Database: "sbtest", Tables: 4}, []string{"sbtest", "does not exist"}, nil},
		{"an empty database", func(s *mariaCatalog) { s.schemas["sbtest"] = true },
			Spec{Database: "sbtest", Tables: 2}, []string{"sbtest1", "sbtest2", "missing", "0 of 2"}, nil},
		{"tables missing", func(s *mariaCatalog) { s.sbtest("sbtest", "sbtest", 2, 100) },
			Spec{Database: "sbtest", Tables: 4, TableSize: 100}, []string{"sbtest3", "sbtest4", "missing", "2 of 4"}, []string{"sbtest1", "sbtest2,"}},
		{"tables beyond the count", func(s *mariaCatalog) { s.sbtest("sbtest", "sbtest", 6, 100) },
			Spec{Database: "sbtest", Tables: 4, TableSize: 100}, []string{"sbtest5", "sbtest6"}, []string{"missing", "sbtest4"}},
		{"wrong engine", func(s *mariaCatalog) {
			s.sbtest("sbtest", "sbtest", 2, 100)
			s.find("sbtest", "sbtest2").engine = "ROCKSDB"
		}, Spec{Database: "sbtest", Tables: 2, TableSize: 100, Engine: "innodb"}, []string{"sbtest2", "ROCKSDB"}, []string{"sbtest1"}},
		{"a view in a table's place", func(s *mariaCatalog) {
			s.sbtest("sbtest", "sbtest", 1, 100)
			s.add(&mariaTable{schema: "sbtest", name: "sbtest2", kind: "VIEW"})
		}, Spec{Database: "sbtest", Tables: 2, TableSize: 100}, []string{"sbtest2", "view"}, []string{"sbtest1"}},
	} {
		srv := newMariaCatalog()
		c.setup(srv)
		ok, why, err := Matches(ctx, openCatalog(t, srv), c.spec)
		if err != nil || ok {
			t.Errorf("%s: Matches = %v %q %v, want no match", c.name, ok, why, err)
			continue
		}
		if miss := containsAll(why, c.want...); miss != "" {
			t.Errorf("%s: reason %q does not say %q", c.name, why, miss)
		}
		for _, n := range c.not {
			if strings.Contains(why, n) {
				t.Errorf("%s: reason %q says %q", c.name, why, n)
			}
		}
		if got := srv.scanned(); len(got) != 0 {
			t.Errorf("%s: tables read in full %v though the structure already differs", c.name, got)
		}
	}
}

// Row counts: TableSize is compared exactly; ExactRows with TableSize 0
// wants empty tables; neither means no table is read in full.
func TestMatchesRowCounts(t *testing.T) {
	ctx := context.Background()
	srv := newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 3, 1000)
	srv.find("sbtest", "sbtest2").count = 998 // TABLE_ROWS still says 1000
	db := openCatalog(t, srv)
	ok, why, err := Matches(ctx, db, Spec{Database: "sbtest", Tables: 3, TableSize: 1000})
	if err != nil || ok || containsAll(why, "sbtest2", "998", "1000") != "" {
		t.Errorf("one table short: Matches = %v %q %v", ok, why, err)
	}

	srv = newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 3, 0)
	db = openCatalog(t, srv)
	if ok, why, err := Matches(ctx, db, Spec{Database: "sbtest", Tables: 3, ExactRows: true}); err != nil || !ok {
		t.Errorf("empty tables wanted and present: Matches = %v %q %v", ok, why, err)
	}
	srv.find("sbtest", "sbtest3").count = 1
	ok, why, err = Matches(ctx, db, Spec{Database: "sbtest", Tables: 3, ExactRows: true})
	if err != nil || ok || !strings.Contains(why, "sbtest3") {
		t.Errorf("a row in a table wanted empty: Matches = %v %q %v", ok, why, err)
	}

	srv = newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 3, 1000)
	srv.find("sbtest", "sbtest1").count = 7
	db = openCatalog(t, srv)
	if ok, why, err := Matches(ctx, db, Spec{Database: "sbtest", Tables: 3}); err != nil || !ok {
		t.Errorf("any count: Matches = %v %q %v", ok, why, err)
	}
	if got := srv.scanned(); len(got) != 0 {
		t.Errorf("tables read in full %v when the row count does not matter", got)
	}
}

// Names that need quoting reach the server as one value and one
// identifier each.
func TestMatchesQuotesNames(t *testing.T) {
	srv := newMariaCatalog()
	srv.sbtest("o'brien-bench", "sbtest", 2, 10)
	srv.sbtest("o", "sbtest", 2, 99) // what a badly quoted name would find
	ok, why, err := Matches(context.Background(), openCatalog(t, srv), Spec{Database: "o'brien-bench", Tables: 2, TableSize: 10})
	if err != nil || !ok {
		t.Fatalf("Matches = %v %q %v", ok, why, err)
	}
	if got := srv.scanned(); !slices.Equal(got, []string{"o'brien-bench.sbtest1", "o'brien-bench.sbtest2"}) {
		t.Errorf("tables counted %v", got)
	}
}

// A server that cannot answer is an error naming what was being read and
// keeping the server's own error; it is never a "no match".
func TestMatchesServerFailures(t *testing.T) {
	spec := Spec{Database: "sbtest", Tables: 3, TableSize: 100}
	for _, c := range []struct {
		name   string
		refuse string // statements that get the lost connection
		want   string
	}{
		{"database lookup", "SELECT SCHEMA_NAME", "sbtest"},
		{"table listing", "SELECT TABLE_NAME", "sbtest"},
		{"row count", "SELECT COUNT(*) FROM `sbtest`.`sbtest2`", "sbtest.sbtest2"},
	} {
		srv := newMariaCatalog()
		srv.sbtest("sbtest", "sbtest", 3, 100)
		srv.refuse = func(q string) error {
			if strings.HasPrefix(q, c.refuse) {
				return errLostConnection
			}
			return nil
		}
		ok, why, err := Matches(context.Background(), openCatalog(t, srv), spec)
		var me *mysql.MySQLError
		if err == nil || ok || why != "" || !errors.As(err, &me) || me.Number != 2013 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Matches = %v %q %v, want an error naming %q with the server's 2013", c.name, ok, why, err, c.want)
		}
	}

	// A server that never answers: the check ends with the caller's
	// deadline, saying so.
	srv := newMariaCatalog()
	srv.hang = true
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, _, err := Matches(ctx, openCatalog(t, srv), spec)
	if err == nil || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("hung server: %v", err)
	}
}

// DropBeyond drops the benchmark tables numbered past the workload's count
// in its database, binary-logged so the slaves drop them too, and nothing
// else: not other tables, not the wanted ones, not another schema's.
func TestDropBeyondLeftovers(t *testing.T) {
	srv := newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 12, 100)
	// Names the client never makes, some of which strconv.Atoi would
	// read as a number (sbtest+5): none is orch's to drop.
	for _, n := range []string{"sbtest_notes", "sbtest01", "sbtest0", "notes", "sbtestx", "sbtest+5", "sbtest-3", "sbtest 4"} {
		srv.add(&mariaTable{schema: "sbtest", name: n, engine: "InnoDB"})
	}
	srv.sbtest("other", "sbtest", 9, 100)
	db := openCatalog(t, srv)
	ctx := context.Background()
	spec := Spec{Database: "sbtest", Tables: 2, TableSize: 100, Engine: "innodb"}

	dropped, err := DropBeyond(ctx, db, spec)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dropped)
	want := []string{"sbtest10", "sbtest11", "sbtest12", "sbtest3", "sbtest4", "sbtest5", "sbtest6", "sbtest7", "sbtest8", "sbtest9"}
	if !slices.Equal(dropped, want) {
		t.Errorf("dropped %v, want %v", dropped, want)
	}
	if got, want := srv.names("sbtest"), []string{"notes", "sbtest 4", "sbtest+5", "sbtest-3", "sbtest0", "sbtest01", "sbtest1", "sbtest2", "sbtest_notes", "sbtestx"}; !slices.Equal(got, want) {
		t.Errorf("left in sbtest: %v, want %v", got, want)
	}
	if got := srv.names("other"); len(got) != 9 {
		t.Errorf("another schema's tables were touched: %v", got)
	}
	srv.mu.Lock()
	logged := len(srv.binlog)
	srv.mu.Unlock()
	if logged != len(want) {
		t.Errorf("%d drops binary-logged, want %d (the slaves must drop them too)", logged, len(want))
	}
	if ok, why, err := Matches(ctx, db, spec); err != nil || !ok {
		t.Errorf("after DropBeyond: Matches = %v %q %v", ok, why, err)
	}

	// Nothing beyond the count: nothing dropped, nothing sent.
	dropped, err = DropBeyond(ctx, db, spec)
	if err != nil || len(dropped) != 0 || len(srv.received("DROP")) != len(want) {
		t.Errorf("second DropBeyond = %v %v (%d drops sent in all)", dropped, err, len(srv.received("DROP")))
	}
}

// A spec that does not say how many tables are wanted drops nothing (0
// would make every benchmark table a leftover); a failed drop stops there
// and says which table, returning only what is really gone.
func TestDropBeyondRefusals(t *testing.T) {
	ctx := context.Background()
	srv := newMariaCatalog()
	srv.sbtest("sbtest", "sbtest", 5, 100)
	db := openCatalog(t, srv)
	for _, bad := range []Spec{{Database: "sbtest"}, {Database: "sbtest", Tables: -1}, {Tables: 2}, {Database: "sbtest", Tables: 2, TablePrefix: "sb%"}} {
		if dropped, err := DropBeyond(ctx, db, bad); err == nil || len(dropped) != 0 {
			t.Errorf("%+v: DropBeyond = %v %v, want an error", bad, dropped, err)
		}
	}
	if got := srv.received(""); len(got) != 0 {
		t.Fatalf("an invalid spec reached the server: %q", got)
	}
	if got := srv.names("sbtest"); len(got) != 5 {
		t.Fatalf("tables dropped for an invalid spec: %v left", got)
	}

	srv.refuse = func(q string) error {
		if strings.HasPrefix(q, "DROP") && strings.Contains(q, "`sbtest4`") {
			return mariaError(1205, "Lock wait timeout exceeded; try restarting transaction")
		}
		return nil
	}
	dropped, err := DropBeyond(ctx, db, Spec{Database: "sbtest", Tables: 2})
	if err == nil || containsAll(err.Error(), "sbtest4", "Lock wait timeout exceeded") != "" {
		t.Fatalf("refused drop: %v", err)
	}
	left := srv.names("sbtest")
	if !slices.Contains(left, "sbtest4") || !slices.Contains(left, "sbtest1") || !slices.Contains(left, "sbtest2") {
		t.Errorf("left %v", left)
	}
	for _, d := range dropped {
		if slices.Contains(left, d) {
			t.Errorf("%s reported dropped but still there", d)
		}
	}

	srv.refuse = func(q string) error {
		if strings.Contains(q, "information_schema.TABLES") {
			return errLostConnection
		}
		return nil
	}
	before := len(srv.received("DROP"))
	if dropped, err := DropBeyond(ctx, db, Spec{Database: "sbtest", Tables: 1}); err == nil || len(dropped) != 0 ||
		!strings.Contains(err.Error(), "sbtest") || len(srv.received("DROP")) != before {
		t.Errorf("listing failed: DropBeyond = %v %v", dropped, err)
	}
}
