package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/stats"
)

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// build loads and builds a report. The matrix fixture's first cell ran
// 15 s against the others' 10 s (a real lab run, kept as it was) and the
// legacy log is sysbench 0.5: tests of other features compare them anyway
// (TestRefusesIncomparable covers the refusal).
func build(t *testing.T, opts analyse.Options, inputs ...string) *judge.Report {
	t.Helper()
	opts.AllowMixed = true
	in, err := load.Load(inputs)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := judge.Build(in, opts)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestMatrixComparison(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir)
	if rep.WarmupS != 2 || rep.WarmupFrom != "matrix.json" || len(rep.Tables) != 1 {
		t.Fatalf("warm-up %v from %s, %d tables", rep.WarmupS, rep.WarmupFrom, len(rep.Tables))
	}
	tb := rep.Tables[0]
	if tb.Workload != "pure-random-writes" || tb.Tool != "sysbench" || tb.Metric != "writes/s" || tb.Baseline.Label != "innodb" {
		t.Fatalf("table %s/%s/%s baseline %s", tb.Workload, tb.Tool, tb.Metric, tb.Baseline.Label)
	}
	inno, rocks := tb.Group("innodb"), tb.Group("rocksdb")
	// Only the cells that ended ok count: r3 failed (innodb) or is pending.
	if inno.Rate.N != 2 || rocks.Rate.N != 2 || len(inno.Runs) != 3 {
		t.Fatalf("n = %d/%d, runs %d", inno.Rate.N, rocks.Rate.N, len(inno.Runs))
	}
	// Each run's steady rate is the mean of its intervals after the
	// matrix's warm-up: what the user gave orch matrix wins over detection.
	for i, id := range []string{"01-innodb-r1", "03-innodb-r2"} {
		r := inno.Runs[i]
		if r.ID != id {
			t.Fatalf("run %d = %s, want %s", i, r.ID, id)
		}
		if r.WarmupHow != "matrix.json" || r.WarmupS != 2 {
			t.Errorf("%s warm-up %v from %q, want 2 from matrix.json", id, r.WarmupS, r.WarmupHow)
		}
		var sum float64
		var n int
		for _, p := range r.Bench.Series(load.MetricWrites) {
			if p.T > r.WarmupS {
				sum += p.V
				n++
			}
		}
		near(t, id+" steady", inno.Steady[i], sum/float64(n), 1e-9)
	}
	want := analyse.Describe(inno.Steady)
	if !reflect.DeepEqual(inno.Rate, want) {
		t.Errorf("innodb rate = %+v, want %+v", inno.Rate, want)
	}
	// The matrix ran in rounds, so the design's analysis is blocked by
	// round: the ratio is the geometric mean of the two rounds' ratios,
	// and the test Student's t on their log ratios with 1 df, whose
	// distribution is Cauchy's: p = 1 - (2/π)·atan(|t|), t = (y1+y2)/|y1-y2|.
	if tb.Analysis.Used != stats.AnalysisBlocked {
		t.Fatalf("analysis %+v, want blocked (the design's)", tb.Analysis)
	}
	byRound := func(g *judge.Group, round int) float64 {
		for i, r := range g.Runs {
			if r.Rep == round && r.Usable() {
				return g.Steady[i]
			}
		}
		t.Fatalf("%s has no ok run in round %d", g.Label, round)
		return 0
	}
	y1, y2 := math.Log(byRound(rocks, 1)/byRound(inno, 1)), math.Log(byRound(rocks, 2)/byRound(inno, 2))
	near(t, "ratio", rocks.Ratio, math.Exp((y1+y2)/2), 1e-12)
	tv := (y1 + y2) / math.Abs(y1-y2)
	tt := analyse.TTest{P: 1 - 2/math.Pi*math.Atan(math.Abs(tv))}
	if rocks.Test == nil || math.Abs(rocks.Test.P-tt.P) > 1e-9 || rocks.Test.DF != 1 {
		t.Fatalf("test = %+v, want p %v on 1 df", rocks.Test, tt.P)
	}
	wantVerdict := "rocksdb: " + analyse.Ratio(rocks.Ratio) + " innodb writes/s (client)"
	if !strings.HasPrefix(rocks.Verdict, wantVerdict) || !strings.Contains(rocks.Verdict, "("+judge.PValue(tt.P)+", not significant)") {
		t.Errorf("verdict = %q, want %q", rocks.Verdict, wantVerdict)
	}
	// Health over the ok runs: r2's 3 s of async fallback and its commits
	// without an ack.
	if rocks.FallbackS != 3 || rocks.NoTx != 4120 || rocks.Consistency != "ok" {
		t.Errorf("rocksdb health: fallback %v no_tx %v consistency %q", rocks.FallbackS, rocks.NoTx, rocks.Consistency)
	}
}

func TestWarmupOptionOverridesMatrix(t *testing.T) {
	w := 0.0
	rep := build(t, analyse.Options{WarmupS: &w}, matrixDir)
	inno := rep.Tables[0].Group("innodb")
	r := inno.Runs[1]
	var sum float64
	s := r.Bench.Series(load.MetricWrites)
	for _, p := range s {
		sum += p.V
	}
	if rep.WarmupFrom != "--warmup" {
		t.Errorf("warm-up from %q", rep.WarmupFrom)
	}
	near(t, "steady without warm-up", inno.Steady[1], sum/float64(len(s)), 1e-9)
}

func TestBaselineOption(t *testing.T) {
	rep := build(t, analyse.Options{Baseline: "rocksdb"}, matrixDir)
	tb := rep.Tables[0]
	if tb.Baseline.Label != "rocksdb" || tb.Group("rocksdb").Verdict != "" || !strings.HasPrefix(tb.Group("innodb").Verdict, "innodb: ") ||
		!strings.Contains(tb.Group("innodb").Verdict, "x rocksdb writes/s (client)") {
		t.Errorf("baseline %s, innodb verdict %q", tb.Baseline.Label, tb.Group("innodb").Verdict)
	}
	in, err := load.Load([]string{matrixDir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = judge.Build(in, analyse.Options{Baseline: "tokudb"})
	var ie *load.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), `"innodb", "rocksdb"`) {
		t.Errorf("unknown baseline: err = %v, want an InputError listing the labels", err)
	}
}

func TestMixedParseOutputAndRunDir(t *testing.T) {
	// A hand-run legacy sysbench log (orch parse output) next to a new run.
	rep := build(t, analyse.Options{}, "testdata/runs/20261129T221023Z-pure-random-writes-innodb", "testdata/parse/legacy-0.5.json")
	if len(rep.Tables) != 1 {
		t.Fatalf("%d tables, want the parse output in the run's table", len(rep.Tables))
	}
	tb := rep.Tables[0]
	if tb.Workload != "pure-random-writes" || tb.Metric != "writes/s" || tb.Baseline.Label != "20261129T221023Z-pure-random-writes-innodb" {
		t.Fatalf("table %s %s baseline %s", tb.Workload, tb.Metric, tb.Baseline.Label)
	}
	legacy := tb.Group("legacy-0.5")
	// The legacy log printed 5 intervals, too few to detect a warm-up,
	// and the default 10 s covers them all: its window is the whole run,
	// the mean of its 5 intervals. The lab run's 9
	// intervals show a warm-up of 1 s: its steady rate is the mean of the
	// 8 intervals after it.
	lab := tb.Baseline.Runs[0]
	if lab.WarmupS != 1 || lab.WarmupHow != "detected" || !strings.HasPrefix(legacy.Runs[0].WarmupHow, "whole run") {
		t.Errorf("warm-ups: lab %v (%s), legacy %v (%s)", lab.WarmupS, lab.WarmupHow, legacy.Runs[0].WarmupS, legacy.Runs[0].WarmupHow)
	}
	steady := (3305.0 + 3009 + 2808 + 3326 + 3619 + 3171 + 2891 + 2990) / 8
	near(t, "lab steady", tb.Baseline.Rate.Mean, steady, 1)
	var lsum float64
	ls := legacy.Runs[0].Bench.Series(load.MetricWrites)
	for _, p := range ls {
		lsum += p.V
	}
	near(t, "legacy ratio", legacy.Ratio, lsum/float64(len(ls))/tb.Baseline.Rate.Mean, 1e-12)
	// The lab run printed 9 of its 10 intervals: flagged, and the verdict says so.
	want := "legacy-0.5: 2.44x 20261129T221023Z-pure-random-writes-innodb writes/s (n/a (one run)); caveat: n=1, too few runs to judge the noise"
	if legacy.Verdict != want {
		t.Errorf("verdict = %q, want %q", legacy.Verdict, want)
	}
}

func TestParseOnlyTablesPerTool(t *testing.T) {
	rep := build(t, analyse.Options{}, "testdata/parse/db-insert.json", "testdata/parse/mysqlslap.json")
	var got []string
	for _, tb := range rep.Tables {
		got = append(got, tb.Workload+" "+tb.Metric+" "+analyse.Num(tb.Baseline.Rate.Mean, 0))
	}
	if want := []string{"db-insert rows/s 123792", "mysqlslap s to run all queries 5"}; !reflect.DeepEqual(got, want) {
		t.Errorf("tables = %q, want %q", got, want)
	}
}

func TestNoEffectKnobIsNotAFinding(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []string{"01-innodb-r1", "03-innodb-r2"} {
		copyDir(t, filepath.Join(matrixDir, "cells", c), filepath.Join(dir, "cells", c))
	}
	m := `{"version":1,"workload":"pure-random-writes","engines":["innodb"],
 "knobs":[{"name":"binlog_order_commits","values":["ON","OFF"]}],"repeat":1,"warmup_s":2,
 "no_effect":{"binlog_order_commits":"MariaDB 10.11.19: accepted but ignored"},
 "cells":[
  {"id":"01-innodb-r1","label":"innodb binlog_order_commits=ON","engine":"innodb","knobs":[{"name":"binlog_order_commits","value":"ON"}],"rep":1,"state":"ok","dir":"cells/01-innodb-r1"},
  {"id":"03-innodb-r2","label":"innodb binlog_order_commits=OFF","engine":"innodb","knobs":[{"name":"binlog_order_commits","value":"OFF"}],"rep":1,"state":"ok","dir":"cells/03-innodb-r2"}]}`
	if err := os.WriteFile(filepath.Join(dir, load.FileMatrix), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := build(t, analyse.Options{}, dir)
	g := rep.Tables[0].Group("innodb binlog_order_commits=OFF")
	if !reflect.DeepEqual(g.NoEffect, []string{"binlog_order_commits"}) {
		t.Fatalf("no effect = %v", g.NoEffect)
	}
	if !strings.Contains(g.Verdict, "no effect on this server (binlog_order_commits: MariaDB 10.11.19: accepted but ignored)") ||
		!strings.Contains(g.Verdict, "not a finding") || strings.Contains(g.Verdict, "significant") {
		t.Errorf("verdict = %q", g.Verdict)
	}
	var md bytes.Buffer
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Knobs with no effect on this server") || !strings.Contains(md.String(), "| no effect on this server |") {
		t.Errorf("report.md does not flag the knob:\n%s", md.String())
	}
}

func TestCSV(t *testing.T) {
	// Unpaired (--analysis): its Fieller interval of rocksdb's ratio is
	// unbounded here, which the writer must print as -inf/inf.
	rep := build(t, analyse.Options{Analysis: stats.AnalysisUnpaired}, matrixDir, "testdata/parse/legacy-0.5.json")
	var b bytes.Buffer
	if err := render.WriteCSV(rep, &b); err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all[0], render.ResultsHeader()) {
		t.Fatalf("header = %q", all[0])
	}
	// One row per run.
	rows := all
	if len(rows) != 1+7 {
		t.Fatalf("%d rows, want a header and 7 runs", len(rows))
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	get := func(row int, c string) string { return rows[row][col[c]] }
	tb := rep.Tables[0]
	rocks := tb.Group("rocksdb")
	// Row 2 is 02-rocksdb-r1.
	if get(2, "run") != "02-rocksdb-r1" || get(2, "label") != "rocksdb" || get(2, "rep") != "1" || get(2, "in_statistics") != "true" ||
		get(2, "final_metric") != "2155.97" || get(2, "steady_metric") != render.F4(rocks.Steady[0]) || get(2, "steady_source") != "intervals" ||
		get(2, "lat_percentile") != "95" || get(2, "whole_run_lat_pctl_ms") != "29.72" || get(2, "label_n") != "2" ||
		get(2, "ratio_vs_baseline") != render.F4(rocks.Ratio) || get(2, "p_value") != strconv.FormatFloat(rocks.Test.P, 'g', 4, 64) || get(2, "significant") != "false" {
		t.Errorf("rocksdb row = %q", rows[2])
	}
	// The pending cell: no figures, empty cells, not in the statistics.
	if get(6, "run") != "06-rocksdb-r3" || get(6, "state") != "pending" || get(6, "in_statistics") != "false" || get(6, "steady_metric") != "" {
		t.Errorf("pending row = %q", rows[6])
	}
	// The baseline's ratio is 1; its CI against itself is not computed.
	if get(1, "is_baseline") != "true" || get(1, "ratio_vs_baseline") != "1" || get(1, "ratio_ci95_low") != "" {
		t.Errorf("baseline row = %q", rows[1])
	}
	if get(7, "label") != "legacy-0.5" || get(7, "p_value") != "" || get(7, "state") != "" {
		t.Errorf("parse-output row = %q", rows[7])
	}
	if v, err := parseFloat(get(1, "label_ci95_high_metric")); err != nil || math.Abs(v-tb.Baseline.Rate.CIHigh) > 1e-4 {
		t.Errorf("ci high = %q, want %v", get(1, "label_ci95_high_metric"), tb.Baseline.Rate.CIHigh)
	}
	// rocksdb's ratio CI is unbounded: a value, not an empty cell; its CV
	// is in percent, as the report prints it.
	if get(2, "ratio_ci95_low") != "-inf" || get(2, "ratio_ci95_high") != "inf" {
		t.Errorf("unbounded CI = [%q, %q], want [-inf, inf]", get(2, "ratio_ci95_low"), get(2, "ratio_ci95_high"))
	}
	if cv, err := parseFloat(get(2, "label_cv_pct")); err != nil || fmt.Sprintf("%.1f%%", cv) != "3.3%" {
		t.Errorf("label_cv_pct = %q, want %s (3.3%% in report.md)", get(2, "label_cv_pct"), render.F4(100*rocks.CV))
	}
}

func TestMarkdownTables(t *testing.T) {
	// Unpaired (--analysis), as TestCSV: the unbounded interval's words.
	rep := build(t, analyse.Options{Analysis: stats.AnalysisUnpaired}, matrixDir)
	var b bytes.Buffer
	if err := render.WriteMarkdown(rep, &b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	tb := rep.Tables[0]
	inno, rocks := tb.Group("innodb"), tb.Group("rocksdb")
	for _, want := range []string{
		"## pure-random-writes (sysbench, writes/s)",
		"Baseline: **innodb**",
		"- " + rocks.Verdict,
		"| configuration | n | writes/s mean | sd | 95% CI | median | CV | vs baseline | ratio 95% CI | p |",
		"| configuration | avg ms in the window (mean of runs) | p95 ms in the window (mean of runs) | errors |",
		"| innodb | 2 | " + analyse.Num(inno.Rate.Mean, 2) + " | " + analyse.Num(inno.Rate.SD, 2) + " | " + render.CI(inno.Rate, 2) + " | " + analyse.Num(inno.Median, 2) + " | 19.8% (noisy) | baseline |",
		"| rocksdb | 2 (2 flagged) | " + analyse.Num(rocks.Rate.Mean, 2) + " | " + analyse.Num(rocks.Rate.SD, 2) + " | " + render.CI(rocks.Rate, 2) + " | " + analyse.Num(rocks.Median, 2) + " | 3.3% | " +
			analyse.Ratio(rocks.Ratio) + " | [95% CI unbounded] | " + judge.PValue(rocks.Test.P) + " |",
		"| 05-innodb-r3 | innodb | 3 | failed: benchmark stopped: master stalled for 60s | — |",
		"| 04-rocksdb-r2 | rocksdb | 2 | ok | FLAGGED: client 2066 tps vs master 3194 tx/s in the window (35.3% apart) | " + analyse.Num(rocks.Steady[1], 2) +
			" | mean of intervals in 2-30 s (matrix.json) | 0.610 |",
		// sysbench left out its report at the very end (t=1..9 of 10 s):
		// not a gap, not flagged, but said.
		"| 03-innodb-r2 | innodb | 2 | ok | ok | " + analyse.Num(inno.Steady[1], 2) + " | mean of intervals in 2-9 s (matrix.json), 9/10 interval lines printed |",
		"| rocksdb | 3170 | 3049 | 0.850x | 1044 / <1 (slave1) | 1044 (02-rocksdb-r1 slave1) | 0.565 | 28.0 | 2073.14 | 0.583x | 0 of 2 |",
		"![pure-random-writes: writes/s per second](plots/pure-random-writes-throughput.svg)",
		"Warm-up: given: 2 s (orch matrix --warmup, matrix.json), the warm-up of every run; not detected (a given warm-up is used as given).",
		"Window: every figure of a run",
		"\nWorkload pure-random-writes: tool=sysbench, test=oltp_insert,",
		"\nServers: MariaDB 10.11.19 (master, 2 replicas), semi-sync on; ran 2026-11-29 22:09-22:10 UTC on cluster lab; client sysbench 1.0.20",
		"+ default_storage_engine = ROCKSDB",
		"`rocksdb_flush_log_at_trx_commit`: 1 → 2",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	// Every table row has as many cells as its header ("Where the time
	// went" has tables of its own: why_test checks them).
	cells, inWhy := 0, false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "### ") {
			inWhy = line == "### "+render.WhyHeading
		}
		if inWhy {
			continue
		}
		if strings.HasPrefix(line, "| configuration ") || strings.HasPrefix(line, "| run ") {
			cells = strings.Count(line, " |")
			continue
		}
		if strings.HasPrefix(line, "| ") && strings.Count(line, " |") != cells {
			t.Errorf("row with %d cells, header %d: %s", strings.Count(line, " |"), cells, line)
		}
	}
}

func TestGenerateWritesFiles(t *testing.T) {
	out := t.TempDir()
	_, paths, err := render.Generate([]string{matrixDir}, out, []string{render.FormatCSV, render.FormatMarkdown}, analyse.Options{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, p := range paths {
		r, _ := filepath.Rel(out, p)
		rel = append(rel, r)
	}
	want := []string{"results.csv", load.FileConfigurationsCSV, load.FileHostsCSV, render.FileTablesCSV, load.FileWhy, "plots/pure-random-writes-throughput.svg", "plots/pure-random-writes-latency.svg",
		"plots/pure-random-writes-lag.svg", "plots/pure-random-writes-comparison.svg", "report.md"}
	if !reflect.DeepEqual(rel, want) {
		t.Errorf("written %q, want %q", rel, want)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(out, load.FileHTML)); err == nil {
		t.Error("report.html written though not asked for")
	}
	if _, err := render.ParseFormats("md,pdf"); err == nil {
		t.Error("format pdf accepted")
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func parseFloat(s string) (float64, error) { return strconv.ParseFloat(s, 64) }

func TestRefusesIncomparable(t *testing.T) {
	// The matrix fixture's first cell ran 15 s, the others 10 s; the
	// legacy log is sysbench 0.5. Without --allow-mixed: refused, naming
	// both differences and the runs on each side.
	in, err := load.Load([]string{matrixDir, "testdata/parse/legacy-0.5.json"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = judge.Build(in, analyse.Options{})
	var ie *load.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v, want an InputError", err)
	}
	for _, want := range []string{"--allow-mixed", "time_s: 15 (01-innodb-r1) vs 10 (02-rocksdb-r1, 03-innodb-r2, 04-rocksdb-r2)",
		"client: sysbench 1.0.20 (01-innodb-r1, 02-rocksdb-r1, 03-innodb-r2, 04-rocksdb-r2) vs sysbench 0.5 (legacy-0.5)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// Allowed: compared, and the head says they are not comparable.
	rep := build(t, analyse.Options{}, matrixDir, "testdata/parse/legacy-0.5.json")
	if len(rep.Tables[0].Mixed) != 2 || !strings.HasPrefix(render.Head(rep, rep.Tables[0])[0], "NOT COMPARABLE") || !strings.HasPrefix(render.TableAnswer(rep.Tables[0])[0], "NOT COMPARABLE") {
		t.Errorf("mixed = %q, head %q", rep.Tables[0].Mixed, render.Head(rep, rep.Tables[0]))
	}
	// Same parameters: no complaint.
	if _, err := judge.Build(mustLoad(t, "testdata/matrix/cells/02-rocksdb-r1", "testdata/matrix/cells/04-rocksdb-r2"), analyse.Options{}); err != nil {
		t.Errorf("identical workloads refused: %v", err)
	}
}

func mustLoad(t *testing.T, paths ...string) *load.Input {
	t.Helper()
	in, err := load.Load(paths)
	if err != nil {
		t.Fatal(err)
	}
	return in
}
