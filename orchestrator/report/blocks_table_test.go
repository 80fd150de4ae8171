package report

import (
	csvpkg "encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// blockedMatrix copies the test matrix and gives it a design: cells 01-02
// ran on east, 03-06 on west; excluded lists cells of incomplete rounds.
func blockedMatrix(t *testing.T, blocks map[string][]string, excluded map[string][]string, failed ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "m")
	copyDir(t, matrixDir, dir)
	p := filepath.Join(dir, load.FileMatrix)
	var doc map[string]any
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var bs []map[string]any
	for _, cl := range []string{"east", "west"} {
		if cells, ok := blocks[cl]; ok {
			b := map[string]any{"cluster": cl, "cells": cells, "excluded": excluded[cl]}
			if len(failed) == 2 && failed[0] == cl {
				b["failed"] = failed[1]
			}
			bs = append(bs, b)
		}
	}
	doc["design"] = map[string]any{"seed": 42, "blocks": bs}
	if data, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var twoBlocks = map[string][]string{
	"east": {"01-innodb-r1", "02-rocksdb-r1"},
	"west": {"03-innodb-r2", "04-rocksdb-r2", "05-innodb-r3", "06-rocksdb-r3"},
}

// steadyOfRun is a run's steady rate as the plain table computes it.
func steadyOfRun(t *testing.T, rep *judge.Report, id string) float64 {
	t.Helper()
	tb := rep.Tables[0]
	for _, g := range tb.Groups {
		for i, r := range g.Runs {
			if r.ID == id {
				return g.Steady[i]
			}
		}
	}
	t.Fatalf("no run %s", id)
	return 0
}

// Two clusters: per-cluster ratios, their geometric mean as the group's
// ratio and verdict, a by-cluster section in the markdown.
func TestReportBlockedByCluster(t *testing.T) {
	plain := build(t, analyse.Options{}, matrixDir)
	rEast := steadyOfRun(t, plain, "02-rocksdb-r1") / steadyOfRun(t, plain, "01-innodb-r1")
	rWest := steadyOfRun(t, plain, "04-rocksdb-r2") / steadyOfRun(t, plain, "03-innodb-r2")

	rep := build(t, analyse.Options{}, blockedMatrix(t, twoBlocks, nil))
	tb := rep.Tables[0]
	sec := tb.Blocks
	if sec == nil || len(sec.Groups) != 1 || strings.Join(sec.Clusters, ",") != "east,west" {
		t.Fatalf("by-cluster section: %+v", sec)
	}
	bg := sec.Groups[0]
	if bg.Label != "rocksdb" || bg.Used != 2 {
		t.Fatalf("group %s used %d clusters", bg.Label, bg.Used)
	}
	near(t, "east ratio", bg.Clusters[0].Ratio, rEast, 1e-12)
	near(t, "west ratio", bg.Clusters[1].Ratio, rWest, 1e-12)
	near(t, "combined", bg.Ratio, math.Sqrt(rEast*rWest), 1e-12)
	rocks := tb.Group("rocksdb")
	if rocks.Ratio != bg.Ratio || !strings.HasSuffix(rocks.Verdict, "combined over 2 clusters") || !strings.Contains(rocks.Verdict, analyse.Ratio(bg.Ratio)) {
		t.Errorf("group ratio %v verdict %q: want the combined %v", rocks.Ratio, rocks.Verdict, bg.Ratio)
	}
	var md strings.Builder
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### By cluster", "seed 42 (orch matrix --seed 42 reproduces it)",
		"| rocksdb | east | 1 / 1 |", "| rocksdb | west | 1 / 1 |", "| rocksdb | combined (2 clusters) |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	recs, col := csvOf(t, func(w io.Writer) error { return render.WriteCSV(rep, w) })
	for run, cluster := range map[string]string{"01-innodb-r1": "east", "04-rocksdb-r2": "west"} {
		found := false
		for _, rec := range recs[1:] {
			found = found || rec[col["run"]] == run && rec[col["cluster"]] == cluster
		}
		if !found {
			t.Errorf("results.csv: no row of %s with cluster %s:\n%q", run, cluster, recs)
		}
	}
	var html strings.Builder
	if err := render.WriteHTML(rep, &html); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `-clusters">By cluster</h3>`) || !strings.Contains(html.String(), "combined (2 clusters)") {
		t.Error("html lacks the by-cluster section")
	}
}

// A run of a round its cluster did not complete is left out: here west's
// rocksdb run, so only east compares both, and the note says why.
func TestReportBlockedExcluded(t *testing.T) {
	plain := build(t, analyse.Options{}, matrixDir)
	rEast := steadyOfRun(t, plain, "02-rocksdb-r1") / steadyOfRun(t, plain, "01-innodb-r1")
	rep := build(t, analyse.Options{}, blockedMatrix(t, twoBlocks, map[string][]string{"west": {"04-rocksdb-r2"}}))
	tb := rep.Tables[0]
	if n := tb.Group("rocksdb").Rate.N; n != 1 {
		t.Errorf("rocksdb n = %d, want 1 (04 excluded)", n)
	}
	bg := tb.Blocks.Groups[0]
	if bg.Used != 1 {
		t.Fatalf("used %d clusters, want east only", bg.Used)
	}
	near(t, "combined = east", bg.Ratio, rEast, 1e-12)
	if !strings.Contains(strings.Join(tb.Blocks.Notes, "\n"), "Left out of the statistics: 04-rocksdb-r2") {
		t.Errorf("notes: %v", tb.Blocks.Notes)
	}
}

// A cluster taken out before it ran anything: the plain analysis of the
// cluster that ran everything, and a note saying what happened.
func TestReportClusterTakenOut(t *testing.T) {
	all := []string{"01-innodb-r1", "02-rocksdb-r1", "03-innodb-r2", "04-rocksdb-r2", "05-innodb-r3", "06-rocksdb-r3"}
	plain := build(t, analyse.Options{}, matrixDir)
	rep := build(t, analyse.Options{}, blockedMatrix(t, map[string][]string{"east": all, "west": {}}, nil, "west", "unreachable: west-m: no route to host"))
	tb := rep.Tables[0]
	if tb.Blocks == nil || len(tb.Blocks.Rows) != 0 {
		t.Fatalf("section %+v: want notes only", tb.Blocks)
	}
	if got, want := tb.Group("rocksdb").Ratio, plain.Tables[0].Group("rocksdb").Ratio; got != want {
		t.Errorf("ratio %v, want the plain %v", got, want)
	}
	var md strings.Builder
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Cluster west was taken out of the schedule: unreachable: west-m: no route to host.") {
		t.Errorf("markdown does not say west was taken out:\n%s", md.String())
	}
}

// A design of one cluster is today's analysis, figure for figure.
func TestReportOneClusterDesignIsPlain(t *testing.T) {
	plain := build(t, analyse.Options{}, matrixDir)
	dir := blockedMatrix(t, map[string][]string{"east": {"01-innodb-r1", "02-rocksdb-r1", "03-innodb-r2", "04-rocksdb-r2", "05-innodb-r3", "06-rocksdb-r3"}}, nil)
	one := build(t, analyse.Options{}, dir)
	if one.Tables[0].Blocks != nil {
		t.Fatal("one cluster got a by-cluster section")
	}
	var a, b strings.Builder
	if err := render.WriteMarkdown(plain, &a); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteMarkdown(one, &b); err != nil {
		t.Fatal(err)
	}
	strip := func(s, dir string) string { // the inputs' paths differ, and the head names the design's cluster
		return strings.ReplaceAll(strings.ReplaceAll(s, dir, "DIR"), " on cluster east;", " on cluster lab;")
	}
	if strip(a.String(), matrixDir) != strip(b.String(), dir) {
		t.Errorf("one-cluster design changed the report:\n%s\n----\n%s", a.String(), b.String())
	}
}

// Two clusters, one analysis: the answer's interval and p, the By-cluster
// table's combined row and configurations.csv's row are the same figures,
// and the comparison is significant exactly when that interval excludes 1
// (issue 36: the answer printed one analysis's interval with another's p).
func TestTwoClustersOneAnalysis(t *testing.T) {
	dir := blockedMatrix(t, twoBlocks, nil)
	for _, opts := range []analyse.Options{{}, {Analysis: "unpaired"}} {
		rep := build(t, opts, dir)
		tb := rep.Tables[0]
		rocks := tb.Group("rocksdb")
		bg := tb.Blocks.Groups[0]
		if rocks.Test == nil || rocks.RatioCI == nil {
			t.Fatalf("%+v: rocksdb has no test or interval: %v %v", opts, rocks.TestErr, rocks.RatioCIErr)
		}
		if bg.Test == nil || bg.Test.P != rocks.Test.P || bg.CILow != rocks.RatioCI.Low || bg.CIHigh != rocks.RatioCI.High || bg.Ratio != rocks.Ratio {
			t.Errorf("%+v: combined row %v [%v, %v] p %+v, answer %v [%v, %v] p %v", opts, bg.Ratio, bg.CILow, bg.CIHigh, bg.Test, rocks.Ratio, rocks.RatioCI.Low, rocks.RatioCI.High, rocks.Test.P)
		}
		// Each cluster's row by the same analysis: the combined ratio is
		// their geometric mean (blocked: west's is its two rounds' own).
		near(t, fmt.Sprintf("%+v: combined vs the clusters' rows", opts), bg.Ratio, math.Sqrt(bg.Clusters[0].Ratio*bg.Clusters[1].Ratio), 1e-12)
		excludes1 := rocks.RatioCI.Low > 1 || rocks.RatioCI.High < 1
		if rocks.Test.Significant() != excludes1 {
			t.Errorf("%+v: significant %v, interval [%v, %v]", opts, rocks.Test.Significant(), rocks.RatioCI.Low, rocks.RatioCI.High)
		}
		recs, col := csvOf(t, func(w io.Writer) error { return render.WriteConfigurationsCSV(rep, w) })
		for _, rec := range recs[1:] {
			if rec[col["label"]] != "rocksdb" {
				continue
			}
			if rec[col["ratio_ci95_low"]] != render.F4(rocks.RatioCI.Low) || rec[col["ratio_ci95_high"]] != render.F4(rocks.RatioCI.High) ||
				rec[col["significant"]] != strconv.FormatBool(excludes1) {
				t.Errorf("%+v: configurations.csv %q, want [%s, %s] significant %v", opts, rec, render.F4(rocks.RatioCI.Low), render.F4(rocks.RatioCI.High), excludes1)
			}
		}
		if want := map[string]string{"": "blocked", "unpaired": "unpaired"}[opts.Analysis]; tb.Analysis.Used != want {
			t.Errorf("%+v: analysed %s, want %s", opts, tb.Analysis.Used, want)
		}
	}
}

// An analysis pre-registered in matrix.json cannot be swapped by the
// report after the data.
func TestAnalysisNotChosenAfterTheData(t *testing.T) {
	dir := blockedMatrix(t, twoBlocks, nil)
	p := filepath.Join(dir, load.FileMatrix)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), `"baseline"`, `"analysis":"blocked","baseline"`, 1))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = judge.Build(in, analyse.Options{Analysis: "unpaired", AllowMixed: true})
	var ie *load.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "pre-registered --analysis blocked") {
		t.Errorf("--analysis unpaired on a blocked matrix: %v", err)
	}
	rep, err := judge.Build(in, analyse.Options{Analysis: "blocked", AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	if l := rep.Tables[0].MethodLine(); !strings.Contains(l, "recorded in matrix.json before the runs") {
		t.Errorf("method line: %s", l)
	}
}

// csvOf is what write writes, as records, and its header's columns by name.
func csvOf(t *testing.T, write func(io.Writer) error) ([][]string, map[string]int) {
	t.Helper()
	var b strings.Builder
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csvpkg.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(recs) == 0 {
		t.Fatalf("csv: %v (%d records)", err, len(recs))
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	return recs, col
}

// A cluster with two rounds, blocked: its row is its rounds' geometric
// mean ratio (round effect cancelled), not the ratio of its means. West:
// rounds 100 -> 110 (1.1) and 200 -> 240 (1.2): sqrt(1.1·1.2) = 1.14891,
// where the ratio of means is 350/300 = 1.16667.
func TestClusterRowsByTheTablesAnalysis(t *testing.T) {
	blk := func(c string, r int) stats.Block { return stats.Block{Cluster: c, Round: r} }
	base := &judge.Group{Label: "innodb", Steady: []float64{100, 200, 50}, Blocks: []stats.Block{blk("west", 1), blk("west", 2), blk("east", 1)}}
	g := &judge.Group{Label: "rocksdb", Steady: []float64{110, 240, 60}, Blocks: []stats.Block{blk("west", 1), blk("west", 2), blk("east", 1)}}
	tb := &judge.Table{Metric: "writes/s", Baseline: base, Groups: []*judge.Group{base, g}}
	cs := []analyse.ClusterRatio{{Cluster: "west", Base: analyse.Describe([]float64{100, 200}), Other: analyse.Describe([]float64{110, 240}), Ratio: 350.0 / 300},
		{Cluster: "east", Base: analyse.Describe([]float64{50}), Other: analyse.Describe([]float64{60}), Ratio: 1.2}}
	tb.JudgeClusters(g, cs)
	near(t, "west, blocked", cs[0].Ratio, math.Sqrt(1.1*1.2), 1e-12)
	if cs[0].Test == nil || !(cs[0].CILow < cs[0].Ratio && cs[0].Ratio < cs[0].CIHigh) {
		t.Errorf("west: test %+v interval [%v, %v]", cs[0].Test, cs[0].CILow, cs[0].CIHigh)
	}
	near(t, "east, one round", cs[1].Ratio, 1.2, 1e-12)
	if cs[1].TestErr == nil || !math.IsNaN(cs[1].CILow) {
		t.Errorf("east (one round): want no interval, got [%v, %v] err %v", cs[1].CILow, cs[1].CIHigh, cs[1].TestErr)
	}
	// Pre-registered unpaired: the rows stay the ratio of the means.
	tb.Analysis.Asked = "unpaired"
	cs[0].Ratio = 350.0 / 300
	tb.JudgeClusters(g, cs)
	near(t, "west, unpaired", cs[0].Ratio, 350.0/300, 1e-12)
}
