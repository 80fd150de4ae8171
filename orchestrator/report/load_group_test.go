package report

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// demoLog is the raw sysbench output of one of the demo matrix's cells.
func demoLog(t *testing.T, cell string) []byte {
	return mustReadFile(t, filepath.Join(demoDir, "cells", cell, "benchmark", "run.txt"))
}

// labelsOf counts the runs of each label, in order of first appearance.
func labelsOf(in *load.Input) ([]string, map[string]int) {
	var order []string
	n := map[string]int{}
	for _, r := range in.Runs {
		if n[r.Label] == 0 {
			order = append(order, r.Label)
		}
		n[r.Label]++
	}
	return order, n
}

func TestLoadFoldersAreConfigurations(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "innodb", "run.txt"), demoLog(t, "01-innodb-r1"))
	writeFile(t, filepath.Join(dir, "innodb", "run2.txt"), demoLog(t, "04-innodb-r2"))
	writeFile(t, filepath.Join(dir, "rocksdb", "run.txt"), demoLog(t, "02-rocksdb-r1"))
	writeFile(t, filepath.Join(dir, "rocksdb", "run2.txt"), demoLog(t, "03-rocksdb-r2"))
	// A report written into the folder before is not a repetition, nor
	// is the client's prepare output.
	writeFile(t, filepath.Join(dir, "rocksdb", load.FileCSV), []byte("workload\n"))
	writeFile(t, filepath.Join(dir, "rocksdb", "rocksdb-prepare.txt"), mustReadFile(t, "testdata/logs/sysbench-prepare.txt"))
	in, err := load.Load([]string{filepath.Join(dir, "innodb"), filepath.Join(dir, "rocksdb") + "/"})
	if err != nil {
		t.Fatal(err)
	}
	order, n := labelsOf(in)
	if !reflect.DeepEqual(order, []string{"innodb", "rocksdb"}) || n["innodb"] != 2 || n["rocksdb"] != 2 {
		t.Fatalf("labels %q, runs per label %v; want innodb and rocksdb with 2 each", order, n)
	}
	var ids []string
	for _, r := range in.Runs {
		ids = append(ids, r.ID)
	}
	if want := []string{"innodb/run", "innodb/run2", "rocksdb/run", "rocksdb/run2"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("run ids %q, want %q", ids, want)
	}
	rep, err := judge.Build(in, analyse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rep.Tables[0].Groups {
		if g.Rate.N != 2 {
			t.Errorf("%s: n=%d, want 2", g.Label, g.Rate.N)
		}
	}
}

func TestLoadFolderRefusesWhatIsNoLog(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "innodb", "run.txt"), demoLog(t, "01-innodb-r1"))
	writeFile(t, filepath.Join(dir, "innodb", "notes.txt"), []byte("ran it twice\n"))
	_, err := load.Load([]string{filepath.Join(dir, "innodb")})
	var ie *load.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "notes.txt") || strings.Count(err.Error(), "notes.txt") != 1 {
		t.Errorf("err = %v, want an input error naming notes.txt", err)
	}
	if _, err := load.Load([]string{t.TempDir()}); !errors.As(err, &ie) || !strings.Contains(err.Error(), "no benchmark logs") {
		t.Errorf("empty folder: err = %v, want an input error", err)
	}
}

func TestLoadLabelGlobs(t *testing.T) {
	dir := t.TempDir()
	for i, cell := range []string{"01-innodb-r1", "04-innodb-r2", "02-rocksdb-r1", "03-rocksdb-r2"} {
		// Four files all named run.txt, as a hand-run experiment leaves them.
		writeFile(t, filepath.Join(dir, strings.Repeat("x", i+1), "run.txt"), demoLog(t, cell))
	}
	labels := []load.LabelGlob{{Name: "innodb", Glob: filepath.Join(dir, "x", "run.txt")}, {Name: "innodb", Glob: filepath.Join(dir, "xx", "*.txt")},
		{Name: "rocksdb", Glob: filepath.Join(dir, "xxx*", "run.txt")}}
	// One file also given on the command line is read once.
	in, err := load.LoadLabelled([]string{filepath.Join(dir, "xx", "run.txt")}, labels)
	if err != nil {
		t.Fatal(err)
	}
	order, n := labelsOf(in)
	if !reflect.DeepEqual(order, []string{"innodb", "rocksdb"}) || n["innodb"] != 2 || n["rocksdb"] != 2 {
		t.Fatalf("labels %q, runs per label %v; want innodb and rocksdb with 2 each", order, n)
	}
	_, err = load.LoadLabelled(nil, []load.LabelGlob{{Name: "a", Glob: filepath.Join(dir, "x", "*")}, {Name: "b", Glob: filepath.Join(dir, "x*", "run.txt")}})
	if err == nil || !strings.Contains(err.Error(), "--label a and --label b") {
		t.Errorf("a file in two labels: err = %v", err)
	}
	if _, err = load.LoadLabelled(nil, []load.LabelGlob{{Name: "a", Glob: filepath.Join(dir, "none*")}}); err == nil || !strings.Contains(err.Error(), "matches no file") {
		t.Errorf("a glob matching nothing: err = %v", err)
	}
}

func TestParseLabelGlob(t *testing.T) {
	if l, err := load.ParseLabelGlob("innodb sync=1=logs/a*.txt"); err != nil || l != (load.LabelGlob{Name: "innodb sync", Glob: "1=logs/a*.txt"}) {
		t.Errorf("got %+v, %v", l, err)
	}
	for _, bad := range []string{"innodb", "=x", "x=", "x=[a"} {
		if _, err := load.ParseLabelGlob(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// A matrix and one of its own cells, in either order, hold the cell once,
// labelled as the matrix labels it.
func TestLoadMatrixAndItsCellCountOnce(t *testing.T) {
	cell := filepath.Join(demoDir, "cells", "01-innodb-r1")
	alone, err := load.Load([]string{demoDir})
	if err != nil {
		t.Fatal(err)
	}
	_, want := labelsOf(alone)
	for _, paths := range [][]string{{demoDir, cell}, {cell, demoDir}} {
		in, err := load.Load(paths)
		if err != nil {
			t.Fatal(err)
		}
		if _, got := labelsOf(in); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: runs per label %v, want %v", paths, got, want)
		}
	}
	// The same cell under two spellings is one run.
	in, err := load.Load([]string{cell + "/", "./" + cell})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Runs) != 1 {
		t.Errorf("one cell given twice: %d runs", len(in.Runs))
	}
}
