package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// demoRaw builds a report of the demo matrix's four raw client logs
// (benchmark/run.txt as sysbench printed them, labelled innodb and
// rocksdb) with --warmup 5, as the demo ran: the whole per-second series,
// no stack-sampling span left out (raw logs carry none).
func demoRaw(t *testing.T, warmupS float64) *judge.Table {
	t.Helper()
	dir := t.TempDir()
	for _, c := range []string{"01-innodb-r1", "02-rocksdb-r1", "03-rocksdb-r2", "04-innodb-r2"} {
		if err := os.WriteFile(filepath.Join(dir, c+".txt"), demoLog(t, c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	in, err := load.LoadLabelled(nil, []load.LabelGlob{{Name: "innodb", Glob: filepath.Join(dir, "*innodb*")}, {Name: "rocksdb", Glob: filepath.Join(dir, "*rocksdb*")}})
	if err != nil {
		t.Fatal(err)
	}
	w := warmupS
	rep, err := judge.Build(in, analyse.Options{WarmupS: &w, Baseline: "innodb"})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Tables[0]
}

// TestSteadyStateDemoSeries: the demo's real series. Both MyRocks runs
// fall at 8-10 s (9,923 -> 7,187 writes/s and 7,946 -> 7,508 -> 5,557)
// and stay about a third lower to the end; the InnoDB runs dip for single
// seconds (gdb stack samples inside the load) and recover. The test finds
// the two drops and no InnoDB shift, the answer says so right under the
// comparison, and its per-phase ratios are the ones recomputed here from
// the raw intervals: mean over runs of each phase's mean interval rate.
func TestSteadyStateDemoSeries(t *testing.T) {
	tb := demoRaw(t, 1)
	for _, r := range tb.Runs {
		s := r.Shift
		t.Logf("%s: tested %v (n=%d), found %v at %.0f s (next %.0f s), %+.1f%%, stat %.2f vs %.2f", r.ID, s.Tested, s.N, s.Found, s.AtS, s.NextS, 100*s.Rel, s.Stat, s.Crit)
		if !s.Tested {
			t.Errorf("%s: not tested (%d intervals)", r.ID, s.N)
		}
		isRocks := r.Label == "rocksdb"
		if !isRocks && s.Found {
			t.Errorf("%s: shift found (%+.1f%% at %.0f s)", r.ID, 100*s.Rel, s.AtS)
		}
		if isRocks && (s.Rel > -0.25 || s.Rel < -0.5 || s.AtS < 7 || s.AtS > 10) {
			t.Errorf("%s: %+.1f%% at %.0f s, want a 25-50%% drop at 7-10 s", r.ID, 100*s.Rel, s.AtS)
		}
	}
	base, g := tb.Group("innodb"), tb.Group("rocksdb")
	if p := tb.Phases(base); p.Pooled.Found || p.Tested != 2 {
		t.Errorf("innodb: the runs' mean shifted (%+.1f%% at %.0f s) or not 2 runs tested (%d)", 100*p.Pooled.Rel, p.Pooled.AtS, p.Tested)
	}
	p := tb.Phases(g)
	t.Logf("rocksdb pooled: %+.1f%% at %.0f s, stat %.2f vs %.2f; %d of %d runs shifted, %d alone", 100*p.Pooled.Rel, p.Pooled.AtS, p.Pooled.Stat, p.Pooled.Crit, p.Shifted, p.Tested, p.Alone)
	if !p.Pooled.Found || p.Shifted != 2 || !p.Agree {
		t.Fatalf("rocksdb: pooled found %v, %d of %d runs shifted, agree %v", p.Pooled.Found, p.Shifted, p.Tested, p.Agree)
	}
	line := tb.SteadyLine(base, g)
	t.Log(line)
	re := regexp.MustCompile(`^Steady state \(rocksdb vs innodb\): rocksdb: no steady state: (\d+)% drop at ~(\d+) s in 2 of 2 runs \(a level-shift test of the runs' mean, 5% false alarm rate; \d of the runs significant alone\); ` +
		`per phase: ([0-9.]+)x \[[0-9.]+, [0-9.]+\] up to ~(\d+) s, ([0-9.]+)x \[[0-9.]+, [0-9.]+\] after ~\d+ s; ` +
		`to measure the later phase alone, run at least (\d+) s with --warmup (\d+) `)
	m := re.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("steady-state line: %s", line)
	}
	cut, _ := strconv.ParseFloat(m[4], 64)
	warmup := tb.Runs[0].WarmupS
	// The ratios per phase, recomputed from the raw intervals in (5, cut]
	// and (cut, end].
	phaseMean := func(label string, later bool) float64 {
		var runMeans []float64
		for _, r := range tb.Runs {
			if r.Label != label {
				continue
			}
			sum, n := 0.0, 0
			for _, pt := range r.Bench.Series(tb.Metric) {
				if pt.T > warmup && (pt.T > cut) == later {
					sum += pt.V
					n++
				}
			}
			runMeans = append(runMeans, sum/float64(n))
		}
		return (runMeans[0] + runMeans[1]) / 2
	}
	for i, later := range []bool{false, true} {
		want := phaseMean("rocksdb", later) / phaseMean("innodb", later)
		got, _ := strconv.ParseFloat(m[3+2*i], 64)
		if math.Abs(got/want-1) > 0.005 {
			t.Errorf("phase %d: %.3fx printed, %.3fx recomputed", i+1, got, want)
		}
	}
	if a, b := m[3], m[5]; a <= b { // same digits: compared as text
		t.Errorf("the later phase (%sx) should compare worse than the earlier (%sx)", b, a)
	}
	// The answer carries it right under the comparison, and the trend
	// warning follows.
	lead, more := render.AnswerParts(tb)
	if len(lead) != 2 || lead[1] != line {
		t.Errorf("answer lead %q, want the comparison then %q", lead, line)
	}
	found := false
	for _, l := range more {
		found = found || regexp.MustCompile(`^Trend: the rate of rocksdb shifts inside the window`).MatchString(l)
	}
	if !found {
		t.Errorf("no trend warning in %q", more)
	}
}
