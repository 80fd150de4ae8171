package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// dbiCells makes one run directory per capture in testdata/dbinsert (real
// output of PerconaFT's db-insert and db-insert-bdb through the driver's
// script: 4 batches of 65,536, --cachesize 67108864) with results.json as
// the runner writes it and the workload in manifest.json.
func dbiCells(t *testing.T) (string, []load.DBInsertRun) {
	t.Helper()
	root := t.TempDir()
	var runs []load.DBInsertRun
	for i, name := range []string{"tokudb-r1", "bdb-r1", "bdb-r2", "tokudb-r2"} {
		raw, err := os.Open(filepath.Join("testdata", "dbinsert", "captured-"+name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := bench.ParseDBInsert(name, raw)
		raw.Close()
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(map[string]any{"benchmark": res})
		man := `{"workload": {"Options": {"CacheSize": 67108864}}, "remote": {"host": "master"}}`
		dir := filepath.Join(root, "cells", name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "results.json"), doc, 0o644)
		os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(man), 0o644)
		// The host's series (hand-made values): 2 s at 1.048576 MB and 5
		// flushes a second.
		os.MkdirAll(filepath.Join(dir, "timeseries"), 0o755)
		os.WriteFile(filepath.Join(dir, "timeseries", "master-os.csv"), []byte("t,elapsed_s,interval_s,disk_write_mbps,disk_flushes_ps\n"+
			"2026-12-06T04:00:01.000Z,1.000,,,\n2026-12-06T04:00:02.000Z,2.000,1.000,1.048576,5.0\n2026-12-06T04:00:03.000Z,3.000,1.000,1.048576,5.0\n"), 0o644)
		lib, _, _ := strings.Cut(name, "-")
		runs = append(runs, load.DBInsertRun{Label: lib, Rep: 1 + i/2, Dir: dir, State: "ok"})
	}
	return root, runs
}

func TestDBInsertReport(t *testing.T) {
	root, runs := dbiCells(t)
	answer, paths, err := render.WriteDBInsert(root, runs)
	if err != nil {
		t.Fatal(err)
	}
	// Totals from the captures: fractal tree 398,691 and 465,610/s, Berkeley
	// DB 1,091,994 and 858,737/s: 975,365.5 / 432,150.5 = 2.257; bytes on
	// disk 21,028,864 and 21,045,248 against 8,441,856 twice: 2.49x.
	for _, want := range []string{"Berkeley DB (bdb) inserted 2.26x as fast as the fractal tree (tokudb) in all",
		"ratio's 95% CI [", "over 2 and 2 runs, which holds 1: not a significant difference", "its files took 2.49x the bytes on disk (20.1 MiB vs 8.1 MiB)"} {
		if !strings.Contains(answer, want) {
			t.Errorf("answer %q lacks %q", answer, want)
		}
	}
	if len(paths) != 2 {
		t.Fatalf("paths %v", paths)
	}
	md := string(mustReadFile(t, filepath.Join(root, load.FileDBInsert)))
	// The seed's table: batch 0 after 2 x 65,536 16-byte records, Berkeley
	// DB's random rates 1,063,827 and 651,005/s: mean 857,416.
	for _, want := range []string{
		"| batch | data inserted | tokudb serial | tokudb random | bdb serial | bdb random |",
		"| 0 | 2.0 MiB |", " 857,416 |", "| 3 | 8.0 MiB |",
		"--cachesize 64.0 MiB",
		// CPU: (0.83+0.16 s and 0.76+0.12 s) / 524,288 insertions = 1.78 µs;
		// (0.35+0.03 and 0.40+0.03) / 524,288 = 0.77 µs.
		"Berkeley DB (bdb): 0.77 µs of CPU per insertion",
		"no collapse of random insertions",
		// 2,097,152 bytes and 10 flushes over 524,288 insertions.
		"| 1.78 | 4.0 | 19.1 |", "1.78 µs of CPU per insertion (user+sys of the program), 4.0 bytes written to the host's disk and 19.1 disk flushes per 10^6 insertions",
		"![random insertions per batch](plots/dbinsert-random.svg)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("dbinsert.md lacks %q:\n%s", want, md)
		}
	}
	svg := string(mustReadFile(t, filepath.Join(root, "plots", "dbinsert-random.svg")))
	if !strings.HasPrefix(strings.TrimSpace(svg), "<?xml") || !strings.Contains(svg, "random insertions per batch") ||
		!strings.Contains(svg, "Berkeley DB (bdb)") || strings.Count(svg, "<path") < 4 {
		t.Errorf("plot: %.300s", svg)
	}
}

// A failed run (the program killed mid-batch) is listed apart, with where
// its output is, and stays out of the figures.
func TestDBInsertReportFailedRun(t *testing.T) {
	root, runs := dbiCells(t)
	cut := filepath.Join(runs[0].Dir, "results.json")
	raw, _ := os.Open(filepath.Join("testdata", "dbinsert", "captured-tokudb-r1.txt"))
	lines, _ := bench.ParseDBInsert("x", strings.NewReader(strings.Join(strings.SplitAfter(string(mustReadFile(t, raw.Name())), "\n")[:4], "")))
	raw.Close()
	doc, _ := json.Marshal(map[string]any{"benchmark": lines})
	os.WriteFile(cut, doc, 0o644)
	runs[0].State = "failed"
	answer, _, err := render.WriteDBInsert(root, runs)
	if err != nil {
		t.Fatal(err)
	}
	md := string(mustReadFile(t, filepath.Join(root, load.FileDBInsert)))
	if !strings.Contains(answer, "over 2 and 1 runs") && !strings.Contains(answer, "no interval") {
		t.Errorf("answer %q", answer)
	}
	if !strings.Contains(md, "- tokudb repetition 1 (failed): incomplete output; its output is in "+runs[0].Dir+"/benchmark/run.txt") {
		t.Errorf("dbinsert.md:\n%s", md)
	}
}

// The collapse rule: the first batch whose mean random rate is under a
// tenth of batch 0's, named with the records inserted by the batch before
// it against the cache.
func TestDBInsertCollapse(t *testing.T) {
	run := func(random ...float64) *load.DBIRun {
		return &load.DBIRun{BatchSize: 1048576, RecordBytes: 16, CacheSize: 1 << 26, Serial: make([]float64, len(random)), Random: random}
	}
	// Rates in the shape of the seed's Berkeley DB: fast while the data
	// fits, a few thousand per second after.
	c := &load.DBIConfig{Label: "bdb", Runs: []*load.DBIRun{run(700000, 400000, 90000, 2100), run(680000, 380000, 60000, 900)}}
	// Batch 2's mean, 75,000/s, is above a tenth of 690,000/s; batch 3's
	// 1,500/s is not.
	if i := load.Collapse(c); i != 3 {
		t.Fatalf("collapse at %d, want 3", i)
	}
	why := strings.Join(render.DBIWhy([]*load.DBIConfig{c}), "\n")
	if !strings.Contains(why, "Berkeley DB (bdb): random insertions collapsed at batch 3, to 1,500/s from 690,000/s in batch 0, "+
		"once 96.0 MiB of records had been inserted against the 64.0 MiB cache") {
		t.Error(why)
	}
	if i := load.Collapse(&load.DBIConfig{Runs: []*load.DBIRun{run(100, 99, 11)}}); i != -1 {
		t.Errorf("no collapse expected, got %d", i)
	}
}

// TestDBInsertFromMatrixDir: `orch report MATRIXDIR` on a db-insert matrix
// writes dbinsert.md again from the matrix's cells, with the answer the
// matrix printed at its end; a matrix over a server workload has none.
func TestDBInsertFromMatrixDir(t *testing.T) {
	root, runs := dbiCells(t)
	want, _, err := render.WriteDBInsert(root, runs)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, load.FileDBInsert))
	m := schema.Matrix{Workload: "db-insert", Engines: []string{"tokudb", "bdb"}}
	for i, r := range runs {
		m.Cells = append(m.Cells, schema.MatrixCell{ID: filepath.Base(r.Dir), Engine: r.Label, Rep: r.Rep,
			State: schema.CellOK, Dir: filepath.Join("cells", filepath.Base(r.Dir))})
		if i == 1 {
			m.Cells = append(m.Cells, schema.MatrixCell{ID: "pending", Engine: "bdb", Rep: 3, State: schema.CellPending, Dir: "cells/pending"})
		}
	}
	doc, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(root, schema.FileMatrix), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	answer, paths, err := render.RegenerateDBInsert([]string{root})
	if err != nil || answer != want || len(paths) != 2 {
		t.Fatalf("answer %q (want %q), paths %v, %v", answer, want, paths, err)
	}
	if _, err := os.Stat(filepath.Join(root, load.FileDBInsert)); err != nil {
		t.Error(err)
	}
	m.Workload = "pure-random-writes"
	if got, err := load.DBInsertRuns(root, &m); got != nil || err != nil {
		t.Errorf("a server workload's matrix: %v %v", got, err)
	}
	m.Workload = "db-insert"
	m.Cells[0].Dir = "../elsewhere"
	if _, err := load.DBInsertRuns(root, &m); err == nil {
		t.Error("a cell outside the matrix was read")
	}
}
