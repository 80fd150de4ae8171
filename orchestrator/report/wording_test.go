package report

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

func TestWording(t *testing.T) {
	base := &judge.Group{Label: "innodb sync_binlog=0", Rate: analyse.Sample{N: 3, Mean: 1000}}
	g := &judge.Group{Label: "rocksdb sync_binlog=1", Rate: analyse.Sample{N: 3, Mean: 840}, Ratio: 0.84, Test: &analyse.TTest{P: 0.003}}
	tb := &judge.Table{Metric: "writes/s"}
	if got, want := judge.Verdict(tb, base, g, nil), "rocksdb sync_binlog=1: 0.840x innodb sync_binlog=0 writes/s (p=0.003, significant)"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	g = &judge.Group{Label: "tokudb", Rate: analyse.Sample{N: 1, Mean: 1630}, Ratio: 1.63, TestErr: analyse.ErrTooFew}
	if got, want := judge.Verdict(tb, &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 1}}, g, nil),
		"tokudb: 1.63x innodb writes/s (n/a (one run)); caveat: n=1, too few runs to judge the noise"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	for _, c := range []struct {
		t    *analyse.TTest
		want string
	}{
		{&analyse.TTest{P: 0.0004}, "p<0.001, significant"},
		{&analyse.TTest{P: 0.0499}, "p=0.0499, significant"},
		{&analyse.TTest{P: 0.05}, "p=0.05, not significant"},
		{&analyse.TTest{P: 0.412}, "p=0.412, not significant"},
		{nil, "n/a"},
	} {
		if got := judge.Significance(c.t, nil); got != c.want {
			t.Errorf("Significance(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	if analyse.Ratio(math.Inf(1)) != "n/a" || analyse.Ratio(math.NaN()) != "n/a" || analyse.Ratio(1.004) != "1.00x" {
		t.Errorf("Ratio: %q %q %q", analyse.Ratio(math.Inf(1)), analyse.Ratio(math.NaN()), analyse.Ratio(1.004))
	}
}

// Every ratio has three significant digits: none reads as 0.09x beside
// 0.088x, none as 11388.41x.
func TestRatioDigits(t *testing.T) {
	for r, want := range map[float64]string{
		0.81: "0.810x", 0.653: "0.653x", 1.2234: "1.22x", 0.088: "0.0880x", 0.000127: "0.000127x",
		9.996: "10.0x", 11.394: "11.4x", 113.9: "114x", 5097.49: "5,100x", 11388.41: "11,400x", 1234567: "1,230,000x", 0: "0x",
	} {
		if got := analyse.Ratio(r); got != want {
			t.Errorf("Ratio(%v) = %q, want %q", r, got, want)
		}
	}
	if got, want := judge.RatioText(0.257, 0.0000226), "11,400x"; got != want {
		t.Errorf("ratioText = %q, want %q", got, want)
	}
	if got, want := judge.CIPhrase(&analyse.RatioCI{Low: 0.7512, High: 0.8888}, nil), " [0.751, 0.889]"; got != want {
		t.Errorf("ciPhrase = %q, want %q", got, want)
	}
}

func TestSummary(t *testing.T) {
	rep := build(t, analyse.Options{}, matrixDir)
	s := render.Summary(rep)
	inno := rep.Tables[0].Baseline
	for _, want := range []string{
		"Warm-up: given: 2 s (orch matrix --warmup, matrix.json), the warm-up of every run; not detected (a given warm-up is used as given).",
		"; replicas applied 3.6k tx/s (master 3.6k tx/s; kept up in 2 of 2 runs; peak lag 594 tx (01-innodb-r1 slave2 at 4.0 s, rising from 2.1 s); after the load every slave caught up within 0.3 s of orch seeing the load end)\n",
		"pure-random-writes (sysbench, writes/s): baseline innodb: " + analyse.Num(inno.Rate.Mean, 2) + " writes/s ± " + analyse.Num(inno.Rate.SD, 2) + " (n=2)",
		"  " + rep.Tables[0].Group("rocksdb").Verdict,
		"  not in the statistics: 05-innodb-r3 (failed: benchmark stopped: master stalled for 60s)\n",
		"  not in the statistics: 06-rocksdb-r3 (pending)\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestReplicaVerdict(t *testing.T) {
	kept := load.ReplicaFigures{Has: true, MasterTxPS: 3500, ApplyTxPS: 3490, EndSlopeTxPS: -37, CatchUpS: 0.001, RunS: 20, PeakLagTx: 900, PeakAtS: 12, PeakFromS: 10, PeakHost: "slave1"}
	base := &judge.Group{Label: "innodb", Rate: analyse.Sample{N: 3, Mean: 3500, SD: 20}, Stats: analyse.Stats{Replica: kept, KeptUp: true, CV: 20.0 / 3500,
		ReplicaRuns: judge.JudgeRuns(runsWith("i", kept, kept, kept))}}
	behind := load.ReplicaFigures{Has: true, MasterTxPS: 2765, ApplyTxPS: 872.5, EndSlopeTxPS: 2600, EndLagTx: 39000, EndBehind: true, CatchUpS: 38, RunS: 20,
		PeakLagTx: 39000, PeakAtS: 20, PeakFromS: 6, PeakHost: "slave2"}
	rr := judge.JudgeRuns(runsWith("r", kept, behind, kept))
	g := &judge.Group{Label: "rocksdb", Rate: analyse.Sample{N: 3, Mean: 2765, SD: 30}, Ratio: 0.79, Test: &analyse.TTest{P: 0.003},
		Stats: analyse.Stats{Replica: behind, KeptUp: rr.Behind == 0, ReplicaRuns: rr, CV: 30.0 / 2765, RatioCI: &analyse.RatioCI{Low: 0.76, High: 0.82},
			SustainedRatio: 0.45, SustainedCI: &analyse.RatioCI{Low: 0.41, High: 0.49}, ApplyRatio: 0.25}}
	if g.KeptUp {
		t.Fatal("a run whose lag grew 2600 tx/s against 2765 tx/s committed counts as kept up")
	}
	tb := &judge.Table{Metric: "writes/s"}
	// The p is the master rate's test, right after it; the sustained ratio
	// is an estimate with its interval, said so.
	want := "rocksdb: 0.790x innodb writes/s (client) [0.760, 0.820] (p=0.003, significant), " +
		"0.450x sustained [0.410, 0.490] (an estimate with its interval, not tested); " +
		"replicas: 1 of 3 runs fell behind, worst: r2 (lag grew 2.6k tx/s over the window's last 5 s, to 39k tx); " +
		"peak lag 39k tx (r2 slave2 at 20.0 s, rising from 6.0 s); after the load every slave caught up within 38 s of orch seeing the load end: not sustained"
	if got := judge.Verdict(tb, base, g, nil); got != want {
		t.Errorf("verdict =\n %q, want\n %q", got, want)
	}
	tb.Headline = analyse.HeadlineMaster
	if got := judge.Verdict(tb, base, g, nil); !strings.HasPrefix(got, "rocksdb: 0.790x innodb writes/s (client) [0.760, 0.820] (p=0.003, significant); replicas") {
		t.Errorf("master headline: %q", got)
	}
	tb.Headline = analyse.HeadlineSustained
	if got := judge.Verdict(tb, base, g, nil); !strings.HasPrefix(got, "rocksdb: 0.450x innodb writes/s sustained [0.410, 0.490] (an estimate with its interval, not tested); "+
		"client 0.790x [0.760, 0.820] (p=0.003, significant); replicas") {
		t.Errorf("sustained headline: %q", got)
	}
	// The client counted 0.790x, the master committed 0.857x: two
	// quantities, both said, the test's after the client's.
	g.Replica.MasterTxPS = 3000
	tb.Headline = analyse.HeadlineMaster
	if got := judge.Verdict(tb, base, g, nil); !strings.HasPrefix(got, "rocksdb: 0.790x innodb writes/s (client) [0.760, 0.820] (p=0.003, significant), master commits 0.857x; replicas") {
		t.Errorf("client and master apart: %q", got)
	}
	g.Replica.MasterTxPS = 2765
	// Catch-up alone: 3 s after a 20 s run is 15% > 10%.
	if analyse.KeptUp((load.ReplicaFigures{Has: true, MasterTxPS: 100, CatchUpS: 3, RunS: 20})) {
		t.Error("catch-up of 15% of the run counts as kept up")
	}
	if !analyse.KeptUp((load.ReplicaFigures{Has: true, MasterTxPS: 100, EndSlopeTxPS: 4, CatchUpS: 1.9, RunS: 20})) {
		t.Error("lag growth 4% and catch-up 9.5% count as not kept up")
	}
}

// TestKeptUpJudgedPerRun: the four runs, whose whole-window lag
// slopes (195, 1.7, 1,123, -37 tx/s) averaged to "lag grew 321 tx/s", a
// failure; each run's lag was shrinking over its window's last 5 s, so
// every run kept up, and the mean of their slopes is printed nowhere.
func TestKeptUpJudgedPerRun(t *testing.T) {
	var figs []load.ReplicaFigures
	for i, whole := range []float64{195, 1.7, 1123, -37} {
		// Lag rising through the window, then falling over its last 5 s.
		var pts []load.Point
		for s := 0; s <= 15; s++ {
			v := whole * float64(s)
			if s > 10 {
				v = whole*10 - 400*float64(s-10)
			}
			pts = append(pts, load.Point{T: float64(s), V: math.Max(0, v)})
		}
		slope, lag, behind := analyse.EndTrend(pts, 6000, 15)
		if behind || slope > 0 {
			t.Errorf("run %d: end slope %.0f, lag %.0f, behind %v", i, slope, lag, behind)
		}
		figs = append(figs, load.ReplicaFigures{Has: true, MasterTxPS: 6000, RunS: 15, LagGrowthTxPS: whole, EndSlopeTxPS: slope, EndLagTx: lag, EndBehind: behind, CatchUpS: 0.25})
	}
	rr := judge.JudgeRuns(runsWith("r", figs...))
	if rr.Behind != 0 || rr.N != 4 {
		t.Errorf("%d of %d runs fell behind", rr.Behind, rr.N)
	}
	if got := judge.RunsPhrase(rr); !strings.HasPrefix(got, "kept up in 4 of 4 runs") || strings.Contains(got, "321") {
		t.Errorf("phrase %q", got)
	}
	// A lag growing by 800 tx/s at the end to 5,600 behind (1.9 s of a
	// 3,000 tx/s master's commits, more than 10% of a 15 s window): fell
	// behind; at 6,000 tx/s (0.9 s of commits) it is a transient.
	var pts []load.Point
	for s := 0; s <= 15; s++ {
		pts = append(pts, load.Point{T: float64(s), V: 800 * math.Max(0, float64(s)-8)})
	}
	if _, lag, behind := analyse.EndTrend(pts, 3000, 15); !behind || lag != 5600 {
		t.Errorf("growing lag of 5.6k tx at 3k tx/s: behind %v, lag %.0f", behind, lag)
	}
	if _, _, behind := analyse.EndTrend(pts, 6000, 15); behind {
		t.Error("a 5.6k tx lag at 6k tx/s over a 15 s window fell behind")
	}
}

// runsWith makes runs named prefix1, prefix2... with the figures.
func runsWith(prefix string, figs ...load.ReplicaFigures) []*load.Run {
	var out []*load.Run
	for i, f := range figs {
		out = append(out, &load.Run{ID: fmt.Sprintf("%s%d", prefix, i+1), Repl: f})
	}
	return out
}

func TestSlapVerdictLowerIsBetter(t *testing.T) {
	tb := &judge.Table{Metric: load.MetricSeconds, LowerIsBetter: true}
	base := &judge.Group{Label: "slap-innodb", Rate: analyse.Sample{N: 1, Mean: 0.084}}
	g := &judge.Group{Label: "slap-tokudb", Rate: analyse.Sample{N: 1, Mean: 0.044}, Ratio: 0.044 / 0.084, TestErr: analyse.ErrTooFew}
	want := "slap-tokudb: took 0.524x slap-innodb's time (n/a (one run)); caveat: n=1, too few runs to judge the noise"
	if got := judge.Verdict(tb, base, g, nil); got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
}

// Lag seconds come from Seconds_Behind_Master, whole seconds: they gain no
// decimal, and 0 with transactions behind reads "<1", never "0.0".
func TestLagSeconds(t *testing.T) {
	for _, c := range []struct {
		s, tx float64
		want  string
	}{
		{0, 1667, "<1 s / 1667 tx"},
		{1, 5370, "1 s / 5370 tx"},
		{0, 0, "0 s / 0 tx"},
		{0.5, 400, "0.5 s / 400 tx"}, // a mean of runs' 0 and 1
		{math.NaN(), 12, "— s / 12 tx"},
		{math.NaN(), math.NaN(), "—"},
	} {
		if got := render.LagText(c.s, c.tx); got != c.want {
			t.Errorf("lagText(%v, %v) = %q, want %q", c.s, c.tx, got, c.want)
		}
	}
}

// A measured percentage keeps its decimal, so a column never has "7%"
// beside "17.1%"; a rule's threshold is a round figure.
func TestPctFixedDecimal(t *testing.T) {
	if got := analyse.PctFixed(0.07) + " " + analyse.PctFixed(0.171) + " " + analyse.PctFixed(0); got != "7.0% 17.1% 0.0%" {
		t.Errorf("pctFixed = %q", got)
	}
	if got := judge.Pct(0.05) + " " + judge.Pct(0.025); got != "5% 2.5%" {
		t.Errorf("pct = %q", got)
	}
	if got := judge.Small(9.996, 3) + " " + judge.Small(0.00119, 3); got != "10.0 0.00119" {
		t.Errorf("small = %q", got)
	}
}

// The baseline's sentence gives the per-transaction figures with the
// table's digits and leaves out what was not measured (no "—" busy).
func TestBaselineLineMeasuredOnly(t *testing.T) {
	m := cost("master", "master", func(c *analyse.Cost) { c.Fsync = 0.001748 })
	if got, want := judge.BaselineLine(group("innodb", 1, m)), "innodb (baseline): master utilisation not measured; 0.00175 fsyncs per transaction."; got != want {
		t.Errorf("baseline line:\n got %q\nwant %q", got, want)
	}
	m.HostCPU, m.ServerCPU, m.DiskBusy, m.CPUUs = 0.934, 0.416, 0.065, 86.31
	if got, want := judge.BaselineLine(group("innodb", 1, m)), "innodb (baseline): master host CPU 93.4% busy (the server 41.6% of 2 cores), disk 6.5% busy; 86.3 us CPU, 0.00175 fsyncs per transaction."; got != want {
		t.Errorf("baseline line:\n got %q\nwant %q", got, want)
	}
}

// A p judged at a level prints on its side of the level as the report
// prints levels (three digits): the lab's round-3 decision had p=0.01138
// at α=0.01141, and "p=0.0114, significant" beside "α=0.0114" read as a
// contradiction (TestMatrixUntilSignificant failed on it).
func TestPValueAtItsLevel(t *testing.T) {
	for _, c := range []struct {
		p, level float64
		want     string
	}{
		{0.01138, 0.011412, "p=0.01138"},
		{0.003, 0.05, "p=0.003"},
		{0.04996, 0.05, "p=0.04996"},
		{0.0501, 0.05, "p=0.0501"},
		{0.2, 0.0114, "p=0.2"},
		{0.0004, 0.05, "p<0.001"},
	} {
		if got := judge.PValueAt(c.p, c.level); got != c.want {
			t.Errorf("PValueAt(%g, %g) = %q, want %q", c.p, c.level, got, c.want)
		}
	}
}
