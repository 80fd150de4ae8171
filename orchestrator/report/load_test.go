package report

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

const matrixDir = "testdata/matrix"

func TestLoadMatrix(t *testing.T) {
	in, err := load.Load([]string{matrixDir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Baseline != "innodb" || in.WarmupS == nil || *in.WarmupS != 2 || in.Home != matrixDir {
		t.Errorf("baseline %q, warm-up %v, home %q: want innodb, 2 and the matrix dir", in.Baseline, in.WarmupS, in.Home)
	}
	var got []string
	for _, r := range in.Runs {
		got = append(got, r.ID+" "+r.Label+" "+r.State)
	}
	want := []string{"01-innodb-r1 innodb ok", "02-rocksdb-r1 rocksdb ok", "03-innodb-r2 innodb ok",
		"04-rocksdb-r2 rocksdb ok", "05-innodb-r3 innodb failed", "06-rocksdb-r3 rocksdb pending"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The pending cell has no directory: listed, without figures.
	if p := in.Runs[5]; p.Bench != nil || p.Workload != "pure-random-writes" || p.Usable() {
		t.Errorf("pending cell: %+v", p)
	}
	if e := in.Runs[4].Error; !strings.Contains(e, "stalled") {
		t.Errorf("failed cell error = %q, want the matrix's reason", e)
	}
	if _, ok := in.NoEffect["binlog_order_commits"]; !ok {
		t.Errorf("no_effect = %v, want binlog_order_commits", in.NoEffect)
	}
}

func TestLoadRunDirViaSymlinkAndFile(t *testing.T) {
	abs, err := filepath.Abs("testdata/runs/20261129T221023Z-pure-random-writes-innodb")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(abs, filepath.Join(root, "latest")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "latest"), filepath.Join(abs, "results.json")} {
		in, err := load.Load([]string{p})
		if err != nil {
			t.Fatal(err)
		}
		r := in.Runs[0]
		// The label names the real directory, not the "latest" link.
		if r.Label != "20261129T221023Z-pure-random-writes-innodb" || r.Workload != "pure-random-writes" || r.State != "ok" || in.Home != abs {
			t.Errorf("%s: label %q workload %q state %q home %q", p, r.Label, r.Workload, r.State, in.Home)
		}
		h := r.Health
		if !h.SemiSync || h.FallbackS != 0 || h.NoTx != 0 || h.MaxLagS != 0 || h.MaxLagTx != 1044 || h.Consistency != "ok" {
			t.Errorf("health = %+v", h)
		}
		if h.TableBytes != 14745600+589824 || h.DatadirBytes != 321547439 {
			t.Errorf("sizes: tables %v datadir %v, want the master's 15335424 and 321547439", h.TableBytes, h.DatadirBytes)
		}
	}
}

func TestLoadRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "notes.json")
	if err := os.WriteFile(garbage, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), garbage, empty} {
		_, err := load.Load([]string{p})
		var ie *load.InputError
		if !errors.As(err, &ie) || ie.Path != p {
			t.Errorf("%s: err = %v, want an InputError naming it", p, err)
		}
	}
}

func TestLoadKeepsSameNamedInputsApart(t *testing.T) {
	// Three files of one name in three directories are three runs; the
	// same file given twice is one.
	src := mustReadFile(t, "testdata/parse/legacy-0.5.json")
	var paths []string
	for _, d := range []string{"a", "b", "c"} {
		p := filepath.Join(t.TempDir(), d, "legacy-0.5.json")
		writeFile(t, p, src)
		paths = append(paths, p)
	}
	in, err := load.Load(append(paths, paths[0]))
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, r := range in.Runs {
		labels = append(labels, r.Label)
	}
	if want := []string{"legacy-0.5", "legacy-0.5 (2)", "legacy-0.5 (3)"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
	if in.Home != "" {
		t.Errorf("home = %q for several inputs, want none", in.Home)
	}
}

func TestSpansFromEvents(t *testing.T) {
	r, err := load.ReadRunDir(filepath.Join(matrixDir, "cells/04-rocksdb-r2"))
	if err != nil {
		t.Fatal(err)
	}
	// Monitor start 22:10:24.501; semi-sync off 27.100..30.200; slave2 cut
	// off 31.000..33.000.
	want := []load.Span{
		{From: 2.599, To: 5.699, What: "semi-sync off", Host: "master"},
		{From: 6.499, To: 8.499, What: "fault: slave2 cut off from the master", Host: "slave2"},
	}
	if len(r.Spans) != len(want) {
		t.Fatalf("spans = %+v, want %+v", r.Spans, want)
	}
	for i, s := range r.Spans {
		w := want[i]
		if s.What != w.What || s.Host != w.Host || math.Abs(s.From-w.From) > 1e-3 || math.Abs(s.To-w.To) > 1e-3 {
			t.Errorf("span %d = %+v, want %+v", i, s, w)
		}
	}
}

func TestSpansStillOpen(t *testing.T) {
	start := mustTime(t, "2026-11-29T10:00:00Z")
	ev := []load.Event{
		{T: start, Kind: "monitor_start"},
		{T: start.Add(3e9), Host: "master", Kind: "stall"},
		{T: start.Add(4e9), Host: "master", Kind: "fault"},
		{T: start.Add(9e9), Kind: "monitor_stop"},
	}
	got := load.Spans(ev, start)
	// The stall never cleared: shaded to the monitor's stop. The fault
	// has no end event: one second.
	if len(got) != 2 || got[0].What != "stall" || got[0].From != 3 || got[0].To != 9 || got[1].From != 4 || got[1].To != 5 {
		t.Errorf("spans = %+v", got)
	}
}

func TestLagIsWorstSlavePerSecond(t *testing.T) {
	r, err := load.ReadRunDir(filepath.Join(matrixDir, "cells/03-innodb-r2"))
	if err != nil {
		t.Fatal(err)
	}
	// From slave1-mysql.csv and slave2-mysql.csv, the larger of the two at
	// each second of the slave's lag at its own sample time: the master's
	// gtid_pos interpolated linearly between its samples either side (a
	// script's reading, not this code's). The monitor's lag_tx, read
	// against the master's latest sample, said 0, 7, 0, 178, 235, 0, 0, 0,
	// 155, 434, 1044: 0 at 5 s and 6 s with a slave 45 and 161 behind.
	want := []float64{4, 34, 0, 192, 370, 45, 161, 0, 197, 607, 1044}
	if len(r.Lag) != len(want) {
		t.Fatalf("lag = %v, want %v", r.Lag, want)
	}
	for i, p := range r.Lag {
		if p.T != float64(i) || p.V != want[i] {
			t.Errorf("lag[%d] = %v, want {%d %v}", i, p, i, want[i])
		}
	}
}

func TestUnreadableBenchmarkLeavesRunWithoutFigures(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20261130T000000Z-tpcc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"manifest.json": `{"status": "ok", "engine": "innodb", "workload": {"Name": "tpcc"}}`,
		"results.json":  `{"workload": "tpcc", "tool": "hammerdb", "benchmark": {"nopm": 12000}}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep := build(t, analyse.Options{}, dir)
	r := rep.Tables[0].Runs[0]
	if r.Bench != nil || r.Usable() || !strings.Contains(r.Error, `unknown tool "hammerdb"`) {
		t.Errorf("run: bench %v usable %v error %q", r.Bench, r.Usable(), r.Error)
	}
	if rep.Tables[0].Workload != "tpcc" || rep.Tables[0].Baseline.Rate.N != 0 {
		t.Errorf("table %s n=%d", rep.Tables[0].Workload, rep.Tables[0].Baseline.Rate.N)
	}
}
