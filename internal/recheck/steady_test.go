package recheck

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBestSplitByHand: a 10-point series whose split and statistic are
// worked out by hand. Means 10.4 and 5.6 (d = 4.8) split at 5; residuals
// ±0.4/0.6 alternate, so Σe² = 2.4 and their lag-1 sum is -2.08: ρ =
// -0.867, corrected -0.867 + (1 - 2.6)/10 = -1.03, kept at 0; v = 2.4/8 =
// 0.3; t = 4.8 / sqrt(0.3 (1/5 + 1/5)) = 13.856.
func TestBestSplitByHand(t *testing.T) {
	k, stat := bestSplit([]float64{10, 11, 10, 11, 10, 6, 5, 6, 5, 6})
	if k != 5 || math.Abs(stat-13.856) > 0.001 {
		t.Errorf("split %d, statistic %.4f; by hand 5, 13.856", k, stat)
	}
	// A split never leaves fewer than 3 points a side: a lone low point
	// at the end is not a phase.
	if k, _ := bestSplit([]float64{10, 10.5, 10, 10.5, 10, 10.5, 10, 2}); k < 3 || k > 5 {
		t.Errorf("split %d of 8 points: a segment shorter than 3", k)
	}
}

// TestCriticalFalseAlarms: on AR(1) noise at the method's coefficient,
// drawn with another generator, the band's upper edge is passed by no
// more than 5% of the series and its lower edge by no fewer.
func TestCriticalFalseAlarms(t *testing.T) {
	const n, sims = 20, 4000
	lo, hi := critical(n)
	if !(lo < hi) || lo < 1 {
		t.Fatalf("critical band [%.3g, %.3g]", lo, hi)
	}
	rng := rand.New(rand.NewChaCha8([32]byte{9}))
	aboveLo, aboveHi := 0, 0
	xs := make([]float64, n)
	for i := 0; i < sims; i++ {
		e := rng.NormFloat64()
		for j := range xs {
			e = shiftRho*e + math.Sqrt(1-shiftRho*shiftRho)*rng.NormFloat64()
			xs[j] = e
		}
		_, s := bestSplit(xs)
		if s > lo {
			aboveLo++
		}
		if s > hi {
			aboveHi++
		}
	}
	// 4000 draws: the 5% rate's standard error is 0.34%.
	if r := float64(aboveHi) / sims; r > 0.05 {
		t.Errorf("%.1f%% above the band's upper edge %.3g (at most 5%%)", 100*r, hi)
	}
	if r := float64(aboveLo) / sims; r < 0.05 {
		t.Errorf("%.1f%% above the band's lower edge %.3g (at least 5%%)", 100*r, lo)
	}
}

// stepRun is a run of 20 one-second intervals (seconds 1-20) at before
// ±1 (alternating) up to second at, after ±1 from there.
func stepRun(id string, before, after, at float64) *run {
	r := &run{id: id}
	for s := 1.0; s <= 20; s++ {
		v := before
		if s > at {
			v = after
		}
		r.series = append(r.series, [2]float64{s, v + math.Mod(s, 2)*2 - 1})
	}
	return r
}

// The line the report prints for a (one run: 100 then 70 from second 11)
// against b (one run at 100): a 30% drop at ~10 s; per phase 1.00x and
// 0.700x (one run a side: no interval); the later phase needs a warm-up
// past second 10 (11 s) and the runs' 20 s window: 31 s.
const stepLine = "Steady state (a vs b): a: no steady state: 30% drop at ~10 s in 1 of 1 runs (a level-shift test of the runs' mean, 5% false alarm rate; " +
	"1 of the runs significant alone); per phase: 1.00x up to ~10 s, 0.700x after ~10 s; to measure the later phase alone, run at least 31 s with " +
	"--warmup 11 (a 20 s window after the shift; whether it is itself steady is then tested)"

func stepResult() *Result {
	res := &Result{phases: map[string]*phases{}, steady: steadyChecks{seen: map[string]bool{}}}
	res.phases["a"] = testPhases("a", []*run{stepRun("a1", 100, 70, 10)})
	res.phases["b"] = testPhases("b", []*run{stepRun("b1", 100, 100, 10)})
	return res
}

// TestSteadyLine: the line above checks out in full (every figure
// claimed), and each altered figure is caught.
func TestSteadyLine(t *testing.T) {
	res := stepResult()
	spans, ok := res.checkSteadyLine(stepLine, "b", []string{"b", "a"})
	if !ok {
		t.Fatal("not read as a steady-state line")
	}
	claimed := [][2]int{}
	for _, s := range spans {
		claimed = append(claimed, [2]int{s[0], s[1]})
	}
	res.uncovered(stepLine, claimed, []string{"b", "a"})
	if len(res.Problems) > 0 || len(res.Uncovered) > 0 || len(res.NotRecomputed) > 0 {
		t.Fatalf("problems %q, uncovered %q, not recomputed %q", res.Problems, res.Uncovered, res.NotRecomputed)
	}
	if res.Compared < 15 {
		t.Errorf("only %d figures compared", res.Compared)
	}
	expectCaught(t, stepLine, func(line string) *Result {
		res := stepResult()
		res.checkSteadyLine(line, "b", []string{"b", "a"})
		return res
	}, []alteration{
		{"30% drop", "40% drop", "change %: report 40"},
		{"30% drop", "30% rise", `report "rise"`},
		{"at ~10 s in", "at ~14 s in", "at s: report 14"},
		{"1 of 1 runs", "2 of 1 runs", "runs shifted: report 2"},
		{"0.700x after", "0.800x after", "after the shift ratio: report 0.8"},
		{"at least 31 s", "at least 25 s", "run at least s: report 25"},
		{"--warmup 11", "--warmup 9", "--warmup s: report 9"},
		{"; per phase: 1.00x up to ~10 s, 0.700x after ~10 s; to measure the later phase alone, run at least 31 s with --warmup 11 (a 20 s window after the shift; whether it is itself steady is then tested)",
			"; the runs' phases differ, so no ratio per phase", "recomputed \"per phase\""},
		{"a: no steady state: 30% drop at ~10 s in 1 of 1 runs (a level-shift test of the runs' mean, 5% false alarm rate; 1 of the runs significant alone)",
			"b: no steady state: 30% drop at ~10 s in 1 of 1 runs (a level-shift test of the runs' mean, 5% false alarm rate; 1 of the runs significant alone)",
			"b no steady state: report yes, recomputed no"},
	})
}

// alteration is a figure of a line altered (from -> to) and the problem
// the recheck must then report.
type alteration struct{ from, to, want string }

// expectCaught checks each alteration of line with check.
func expectCaught(t *testing.T, line string, check func(line string) *Result, cases []alteration) {
	t.Helper()
	for _, c := range cases {
		if !strings.Contains(line, c.from) {
			t.Fatalf("%q is not in the line", c.from)
		}
		res := check(strings.Replace(line, c.from, c.to, 1))
		if all := strings.Join(res.Problems, "\n"); !strings.Contains(all, c.want) {
			t.Errorf("%q -> %q not caught (want %q); problems:\n%s", c.from, c.to, c.want, all)
		}
	}
}

// TestSteadyAbsent: a comparison whose side surely shifted must have its
// Steady state line, and the table a Trend line naming it.
func TestSteadyAbsent(t *testing.T) {
	res := stepResult()
	res.checkSteadyAbsent("b", []string{"b", "a"})
	all := strings.Join(res.Problems, "\n")
	for _, want := range []string{"a vs b: a no steady state (no Steady state line): report no", "no Trend line"} {
		if !strings.Contains(all, want) {
			t.Errorf("not caught: %q; problems:\n%s", want, all)
		}
	}
	res = stepResult()
	if _, ok := res.checkSteadyLine("Trend: the rate of b shifts inside the window, so the runs-needed estimate is driven by a trend, not noise", "b", []string{"b", "a"}); !ok {
		t.Fatal("Trend line not read")
	}
	all = strings.Join(res.Problems, "\n")
	for _, want := range []string{"a shifts (Trend line): report no", "b shifts (Trend line): report yes"} {
		if !strings.Contains(all, want) {
			t.Errorf("not caught: %q; problems:\n%s", want, all)
		}
	}
}

// TestSteadyTooFew: when the baseline's runs end before the shift, the
// report can give no ratio per phase, and must say so.
func TestSteadyTooFew(t *testing.T) {
	short := stepRun("b1", 100, 100, 10)
	short.series = short.series[:9] // seconds 1-9
	res := &Result{phases: map[string]*phases{"a": testPhases("a", []*run{stepRun("a1", 100, 70, 10)}), "b": testPhases("b", []*run{short})},
		steady: steadyChecks{seen: map[string]bool{}}}
	i := strings.Index(stepLine, "; per phase:")
	line := stepLine[:i] + "; too few intervals on one side of the shift for a ratio per phase"
	if res.checkSteadyLine(line, "b", []string{"b", "a"}); len(res.Problems) > 0 {
		t.Errorf("problems: %q", res.Problems)
	}
	res.Problems = nil
	res.checkSteadyLine(stepLine, "b", []string{"b", "a"})
	if all := strings.Join(res.Problems, "\n"); !strings.Contains(all, `recomputed "; too few intervals`) {
		t.Errorf("a ratio per phase without the baseline's later phase not caught; problems:\n%s", all)
	}
}
