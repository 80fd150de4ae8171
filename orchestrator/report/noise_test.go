package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// armGroup is a configuration with the given steady-state rates.
func armGroup(label string, xs ...float64) *judge.Group {
	return &judge.Group{Label: label, Steady: xs, Rate: analyse.Describe(xs)}
}

func TestMeasureFloorHandComputed(t *testing.T) {
	// Arm (a) steady at 100 (no variance), arm (b) 97, 100, 103: mean 100,
	// s² = 9, so v_b = 3 and v_a = 0. Fieller: df = 3²/(3²/2) = 2, t =
	// 4.302653; A = 100², disc = t²·3·100², bounds = 1 ± t·√3/100 =
	// 1 ± 0.074524: [0.925476, 1.074524].
	a, b := armGroup("innodb (a)", 100, 100, 100), armGroup("innodb (b)", 97, 100, 103)
	b.Ratio = b.Rate.Mean / a.Rate.Mean
	tt, err := analyse.Welch(b.Steady, a.Steady)
	if err != nil {
		t.Fatal(err)
	}
	b.Test = &tt
	b.CompareWith(a)
	tb := &judge.Table{Workload: "pure-random-writes", Tool: "sysbench", Metric: "writes/s", Baseline: a, Groups: []*judge.Group{a, b}}
	f := tb.MeasureFloor("2026-12-01T120000Z-matrix-pure-random-writes", time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	if f == nil || f.CI == nil {
		t.Fatalf("no floor: %+v", f)
	}
	if math.Abs(f.CI.Low-0.925476) > 1e-5 || math.Abs(f.CI.High-1.074524) > 1e-5 || f.Ratio != 1 || f.NA != 3 || f.NB != 3 {
		t.Errorf("floor %.6f [%.6f, %.6f] n=%d/%d, want 1 [0.925476, 1.074524] n=3/3", f.Ratio, f.CI.Low, f.CI.High, f.NA, f.NB)
	}
	want := "A/A: 1.00x [0.925, 1.07] (n=3 each, p=1): the noise floor of this cluster for pure-random-writes (writes/s)"
	if b.Verdict != want || f.Line() != want {
		t.Errorf("line %q\nwant %q", b.Verdict, want)
	}

	// Two arms apart beyond chance: the floor warns about itself.
	a2, b2 := armGroup("x (a)", 100, 101, 99), armGroup("x (b)", 110, 111, 109)
	tt2, _ := analyse.Welch(b2.Steady, a2.Steady)
	b2.Test, b2.Ratio = &tt2, 1.1
	b2.CompareWith(a2)
	tb2 := &judge.Table{Workload: "w", Metric: "tps", Baseline: a2, Groups: []*judge.Group{a2, b2}}
	if l := tb2.MeasureFloor("d", time.Time{}).Line(); !strings.Contains(l, "WARNING: the two identical arms differ significantly") {
		t.Errorf("significant A/A without a warning: %q", l)
	}
}

func TestUseFloor(t *testing.T) {
	floor := &judge.NoiseFloor{Source: "2026-12-01T120000Z-matrix-w", Date: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC),
		Workload: "w", Metric: "writes/s", Ratio: 1.01, CI: &analyse.RatioCI{Low: 0.97, High: 1.05}, NA: 3, NB: 3,
		Aspects: map[string]string{"threads": "2", "topology": "master -> slave1, slave2"}}
	run := &load.Run{Bench: &load.Bench{}, Params: []load.Param{{Name: "threads", Value: "2"}}, Topology: "master -> slave1, slave2"}
	base := armGroup("innodb", 100, 100)
	in, edge, out := armGroup("knob=1", 102, 102), armGroup("knob=2", 97, 97), armGroup("knob=3", 110, 110)
	for _, g := range []*judge.Group{in, edge, out} {
		g.Ratio, g.Verdict = g.Rate.Mean/100, g.Label+": verdict"
	}
	tb := &judge.Table{Workload: "w", Metric: "writes/s", Baseline: base, Groups: []*judge.Group{base, in, edge, out}, Runs: []*load.Run{run}}
	u := tb.UseFloor([]*judge.NoiseFloor{floor})
	if u == nil || u.NotApplicable != "" {
		t.Fatalf("floor not applied: %+v", u)
	}
	phrase := "; inside the noise floor measured by A/A (2026-12-01T120000Z-matrix-w, 2026-12-01): 1.01x [0.970, 1.05]"
	if in.Verdict != "knob=1: verdict"+phrase || !in.InsideFloor {
		t.Errorf("1.02 inside [0.97, 1.05]: %q", in.Verdict)
	}
	if !edge.InsideFloor {
		t.Errorf("0.97 is on the floor's bound: inside")
	}
	if out.InsideFloor || out.Verdict != "knob=3: verdict" {
		t.Errorf("1.10 outside [0.97, 1.05]: %q", out.Verdict)
	}
	if n := u.Note(); n != "Noise floor (A/A 2026-12-01T120000Z-matrix-w, 3+3 runs): 1.01x [0.970, 1.05]; a verdict whose ratio lies inside it says so" {
		t.Errorf("note %q", n)
	}

	// Another thread count: the floor says nothing about this table.
	run.Params = []load.Param{{Name: "threads", Value: "8"}}
	g := armGroup("k", 101, 101)
	g.Ratio, g.Verdict = 1.01, "k: verdict"
	tb = &judge.Table{Workload: "w", Metric: "writes/s", Baseline: base, Groups: []*judge.Group{base, g}, Runs: []*load.Run{run}}
	u = tb.UseFloor([]*judge.NoiseFloor{floor})
	if u.NotApplicable != "threads: 2 (A/A) vs 8" || g.InsideFloor || g.Verdict != "k: verdict" {
		t.Errorf("other threads: %+v, verdict %q", u, g.Verdict)
	}
	// Another workload.
	tb = &judge.Table{Workload: "v", Metric: "tps", Baseline: base, Groups: []*judge.Group{base}}
	if u = tb.UseFloor([]*judge.NoiseFloor{floor}); !strings.Contains(u.NotApplicable, "it measured w (writes/s), not v (tps)") {
		t.Errorf("other workload: %+v", u)
	}
}

// aaFixture writes an A/A matrix built from the fixture's two rocksdb cells,
// each run as both arms: the arms then have the same rates.
func aaFixture(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "2026-12-01T120000Z-matrix-pure-random-writes")
	type cell struct {
		ID, Label, Arm, From string
		Rep                  int
	}
	cells := []cell{
		{"01-rocksdb-a-r1", "rocksdb (a)", "a", "02-rocksdb-r1", 1}, {"02-rocksdb-b-r1", "rocksdb (b)", "b", "04-rocksdb-r2", 1},
		{"03-rocksdb-b-r2", "rocksdb (b)", "b", "02-rocksdb-r1", 2}, {"04-rocksdb-a-r2", "rocksdb (a)", "a", "04-rocksdb-r2", 2},
	}
	var docs []map[string]any
	for _, c := range cells {
		copyDir(t, filepath.Join("testdata", "matrix", "cells", c.From), filepath.Join(dir, "cells", c.ID))
		docs = append(docs, map[string]any{"id": c.ID, "label": c.Label, "engine": "rocksdb", "arm": c.Arm, "rep": c.Rep,
			"state": "ok", "dir": "cells/" + c.ID, "started": "2026-12-01T12:00:00Z"})
	}
	m := map[string]any{"version": 1, "workload": "pure-random-writes", "engines": []string{"rocksdb"}, "knobs": []any{},
		"repeat": 2, "baseline": "rocksdb (a)", "aa": true, "warmup_s": 2, "cells": docs}
	data, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(dir, load.FileMatrix), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestAAReportEndToEnd(t *testing.T) {
	root := t.TempDir()
	aa := aaFixture(t, root)
	rep, paths, err := render.Generate([]string{aa}, "", []string{render.FormatMarkdown, render.FormatCSV}, analyse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Floors) != 1 {
		t.Fatalf("floors %+v", rep.Floors)
	}
	f := rep.Floors[0]
	// The arms hold the same two runs: ratio exactly 1 and a CI around it.
	if f.Ratio != 1 || f.CI == nil || f.CI.Low >= 1 || f.CI.High <= 1 || f.NA != 2 || f.Source != filepath.Base(aa) || f.Date.Format("2006-01-02") != "2026-12-01" {
		t.Errorf("floor %+v", f)
	}
	if !strings.Contains(render.Summary(rep), "A/A: 1.00x [") || !strings.Contains(render.Summary(rep), "(n=2 each, p=1): the noise floor of this cluster") {
		t.Errorf("summary without the A/A line:\n%s", render.Summary(rep))
	}
	md, _ := os.ReadFile(filepath.Join(aa, load.FileMarkdown))
	if !strings.Contains(string(md), "A/A: 1.00x [") {
		t.Errorf("report.md without the A/A line")
	}
	var nf struct {
		Measured []map[string]any `json:"measured"`
	}
	data, err := os.ReadFile(filepath.Join(aa, load.FileNoiseFloor))
	if err != nil || json.Unmarshal(data, &nf) != nil || len(nf.Measured) != 1 || nf.Measured[0]["ratio"] != 1.0 || nf.Measured[0]["ci95_low"] == nil {
		t.Errorf("noise-floor.json %s (%v) in %v", data, err, paths)
	}

	// The regular fixture matrix held against it: its first run lasted
	// 15 s, the A/A's 10 s, so the floor is named and refused.
	reg, err := judge.Build(loadOne(t, filepath.Join("testdata", "matrix")), analyse.Options{NoiseFloor: aa, AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	u := reg.Tables[0].Floor
	if u == nil || u.NotApplicable != "time_s: 10 (A/A) vs 15" || !strings.Contains(render.Summary(reg), "Noise floor of "+aa+" not applicable: time_s: 10 (A/A) vs 15") {
		t.Errorf("floor use %+v\n%s", u, render.Summary(reg))
	}
	// Not an A/A matrix: an input error naming it.
	if _, err := judge.Build(loadOne(t, filepath.Join("testdata", "matrix")), analyse.Options{NoiseFloor: filepath.Join("testdata", "matrix"), AllowMixed: true}); err == nil || !strings.Contains(err.Error(), "not an A/A matrix") {
		t.Errorf("a plain matrix as noise floor: %v", err)
	}
}

func loadOne(t *testing.T, p string) *load.Input {
	t.Helper()
	in, err := load.Load([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	return in
}
