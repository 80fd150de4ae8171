package dataset

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

func TestSpec(t *testing.T) {
	s := Spec{Database: "sbtest", Tables: 3}
	if got := s.TableNames(); !reflect.DeepEqual(got, []string{"sbtest1", "sbtest2", "sbtest3"}) {
		t.Fatalf("TableNames = %v", got)
	}
	for _, bad := range []Spec{
		{Tables: 1},
		{Database: "d", Tables: 0},
		{Database: "d", Tables: 1, TableSize: -1},
		{Database: "d", Tables: 1, TablePrefix: "sb`test"},
	} {
		if _, _, err := Matches(context.Background(), nil, bad); err == nil {
			t.Errorf("Matches accepted %+v", bad)
		}
	}
}

func TestCompareTables(t *testing.T) {
	base := func(names ...string) []tableInfo {
		var out []tableInfo
		for _, n := range names {
			out = append(out, tableInfo{name: n, kind: "BASE TABLE", engine: "InnoDB"})
		}
		return out
	}
	spec := Spec{Database: "sbtest", Tables: 4, Engine: "innodb"}
	for _, c := range []struct {
		name   string
		tables []tableInfo
		want   []string
	}{
		{"exact, other tables ignored", base("sbtest1", "sbtest2", "sbtest3", "sbtest4", "notes", "sbtest01", "sbtestx"), nil},
		{"missing", base("sbtest1", "sbtest4"), []string{"sbtest2, sbtest3 missing (2 of 4 tables present)"}},
		{"extra", base("sbtest1", "sbtest2", "sbtest3", "sbtest4", "sbtest12", "sbtest5"), []string{"sbtest5, sbtest12 present beyond the 4 tables wanted"}},
		{"empty", nil, []string{"sbtest1, sbtest2, sbtest3 and 1 more missing (0 of 4 tables present)"}},
		{"a view beyond is not a leftover table", append(base("sbtest1", "sbtest2", "sbtest3", "sbtest4"), tableInfo{"sbtest9", "VIEW", ""}), nil},
		{"engine and view", append(base("sbtest1", "sbtest2"),
			tableInfo{"sbtest3", "BASE TABLE", "ROCKSDB"}, tableInfo{"sbtest4", "VIEW", ""}),
			[]string{"sbtest3 is ROCKSDB, want innodb", "sbtest4 is a view, not a table"}},
	} {
		if got := compareTables(spec, c.tables); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// No engine asked: any engine matches.
	if got := compareTables(Spec{Database: "d", Tables: 1}, []tableInfo{{"sbtest1", "BASE TABLE", "TokuDB"}}); got != nil {
		t.Fatalf("any engine: %q", got)
	}
}

func TestCompareValues(t *testing.T) {
	v := func(host string, rows int64, sum string) TableValues {
		return TableValues{Host: host, Exists: true, Rows: rows, Checksum: sum}
	}
	ok := compareValues("sbtest1", []TableValues{v("master", 10, "42"), v("slave1", 10, "42"), v("slave2", 10, "42")})
	if !ok.OK || ok.Mismatches != nil {
		t.Fatalf("equal values: %+v", ok)
	}
	bad := compareValues("sbtest1", []TableValues{v("master", 10, "42"), v("slave1", 10, "41"), {Host: "slave2"}})
	want := []string{
		"slave1: 10 rows, checksum 41 (master: 10 rows, checksum 42)",
		"slave2: no such table (master: 10 rows, checksum 42)",
	}
	if bad.OK || !reflect.DeepEqual(bad.Mismatches, want) {
		t.Fatalf("mismatch: %+v", bad)
	}
	// Same checksum, different count (a checksum collision, or a server
	// whose CHECKSUM TABLE ignores something): still a mismatch.
	if c := compareValues("t", []TableValues{v("master", 10, "42"), v("slave1", 9, "42")}); c.OK {
		t.Fatal("row counts differ but the check passed")
	}
	// An unreadable master fails the check even if slaves agree.
	c := compareValues("t", []TableValues{{Host: "master", Error: "timeout"}, {Host: "slave1", Error: "timeout"}})
	if c.OK || len(c.Mismatches) != 2 || !strings.HasPrefix(c.Mismatches[0], "master: error: timeout") {
		t.Fatalf("errors: %+v", c)
	}
	rep := &ConsistencyReport{Database: "sbtest", Tables: []TableCheck{ok, bad}}
	if got := rep.Summary(); got != "sbtest.sbtest1: "+want[0]+"\nsbtest.sbtest1: "+want[1]+"\n" {
		t.Fatalf("Summary:\n%s", got)
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{"sbtest1": "`sbtest1`", "a`b": "`a``b`", "x; DROP": "`x; DROP`"} {
		if got, err := quoteIdent(in); err != nil || got != want {
			t.Errorf("quoteIdent(%q) = %q, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "a\x00b", "\xff"} {
		if _, err := quoteIdent(bad); err == nil {
			t.Errorf("quoteIdent(%q) accepted", bad)
		}
	}
}

// du runs for real through the local executor on a datadir-like tree whose
// names need quoting.
func TestDuSizes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data dir")
	write := func(rel string, n int) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ibdata1", 1000)
	// The server's name for the schema sb$test (the manual's "Identifier
	// Mapping to File Names": '$' is @0024); a directory with the raw name
	// is some other thing, not measured.
	write("sb@0024test/sbtest1.ibd", 3000)
	write("sb$test/sbtest1.ibd", 99)
	write("#rocksdb/000012.sst", 5000)
	// TokuDB keeps _<database>_<table>_<index>.tokudb in the datadir.
	write("_sb@0024test_sbtest2_main_2_1d.tokudb", 700)
	write("_other_sbtest1_main_2_1d.tokudb", 11)
	rep := &SizeReport{Database: "sb$test", Datadir: dir}
	if err := duSizes(context.Background(), executor.NewLocal("master"), rep, logBasenames{}); err != nil {
		t.Fatal(err)
	}
	if rep.DatadirSource != SourceDu || rep.DatadirBytes < 9000 {
		t.Fatalf("datadir %d bytes from %s, want >= 9000 from du", rep.DatadirBytes, rep.DatadirSource)
	}
	db, rocks := rep.Paths["sb@0024test"], rep.Paths["#rocksdb"]
	if db < 3000 || rocks < 5000 || db >= rep.DatadirBytes || rocks >= rep.DatadirBytes {
		t.Fatalf("paths %v (datadir %d)", rep.Paths, rep.DatadirBytes)
	}
	if e := rep.EngineDiskBytes; len(e) != 3 || e["innodb"] != 3000 || e["tokudb"] != 700 || e["rocksdb"] < 5000 {
		t.Fatalf("engine disk bytes %v, want innodb 3000, tokudb 700, rocksdb >= 5000", e)
	}
	// No MyRocks directory: only what exists is reported.
	os.RemoveAll(filepath.Join(dir, "#rocksdb"))
	rep = &SizeReport{Database: "other", Datadir: dir}
	if err := duSizes(context.Background(), executor.NewLocal("master"), rep, logBasenames{}); err != nil {
		t.Fatal(err)
	}
	if rep.Paths != nil || rep.EngineDiskBytes["tokudb"] != 11 {
		t.Fatalf("paths for missing directories: %v (engines %v)", rep.Paths, rep.EngineDiskBytes)
	}
	rep = &SizeReport{Database: "x", Datadir: filepath.Join(dir, "nope")}
	if err := duSizes(context.Background(), executor.NewLocal("master"), rep, logBasenames{}); err == nil {
		t.Fatal("a missing datadir was measured")
	}
}

func TestParseDu(t *testing.T) {
	got, err := parseDu("123\t.\n45\t#rocksdb\n\n")
	if err != nil || !reflect.DeepEqual(got, map[string]int64{".": 123, "#rocksdb": 45}) {
		t.Fatalf("parseDu = %v, %v", got, err)
	}
	for _, bad := range []string{"123 .\n", "x\t.\n"} {
		if _, err := parseDu(bad); err == nil {
			t.Errorf("parseDu(%q) accepted", bad)
		}
	}
}

// An engine's negative estimate comes out of the catalogue as an unsigned
// 64-bit number (seen from MariaDB 10.5's TokuDB): a count of 0, flagged,
// never an error that loses every size of the run.
func TestCatalogCountReadsWrappedEstimates(t *testing.T) {
	for _, c := range []struct {
		in      string
		n       int64
		wrapped bool
	}{{"0", 0, false}, {"16384", 16384, false}, {"18446744073704469278", 0, true}, {"9223372036854775807", 9223372036854775807, false}} {
		n, wrapped, err := catalogCount(c.in)
		if err != nil || n != c.n || wrapped != c.wrapped {
			t.Errorf("catalogCount(%s) = %d, %v, %v; want %d, %v", c.in, n, wrapped, err, c.n, c.wrapped)
		}
	}
	if _, _, err := catalogCount("many"); err == nil {
		t.Errorf("catalogCount(many): no error")
	}
}
