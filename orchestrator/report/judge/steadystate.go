package judge

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// testSteady tests every run's window for a level shift.
func (t *Table) testSteady() {
	for _, r := range t.Runs {
		r.Shift = analyse.TestShift(t.windowSeries(r))
	}
}

// windowSeries is the run's per-interval rate in the table's metric over
// its window (the intervals its steady rate is the mean of).
func (t *Table) windowSeries(r *load.Run) []load.Point {
	rt, ok := analyse.BenchRate(r, t.Metric)
	if !ok || rt.PlotOnly {
		return nil
	}
	step := load.StepOf(rt.Series)
	var out []load.Point
	for _, p := range rt.Series {
		if r.Win.Keeps(p.T, step) && !math.IsNaN(p.V) {
			out = append(out, p)
		}
	}
	return out
}

// Phases sums up a configuration's level-shift tests. The configuration
// is tested once, on the mean of its runs' rates at each second their
// windows share (each run divided by its own mean first, so that no run
// weighs more for being faster): runs that shift at about the same time
// add up, noise does not, and one test per configuration keeps the false
// alarm rate ShiftAlpha however many runs it has (a test per run would
// raise it: 19% for four runs). Each run's own test says how many runs
// shifted that way.
type Phases struct {
	// Pooled is the test of the runs' mean profile.
	Pooled load.Shift
	// Tested runs (usable, with enough intervals); Shifted among them the
	// runs whose own best split moves the same way by ShiftMinRel or more
	// within phaseTol of the pooled shift; Alone those among them whose
	// own test is significant.
	Tested, Shifted, Alone int
	// Rel is the pooled relative change (-0.41: a 41% drop) and AtS its
	// time (client seconds); AtMin, AtMax the range the shift happened in
	// (the earliest AtS, the latest NextS of the pooled and shifted runs:
	// a window's gap widens it).
	Rel, AtS, AtMin, AtMax float64
	// Agree: the pooled shift is found and every tested run shifted with
	// it.
	Agree bool
	// WindowS is the longest tested window (seconds).
	WindowS float64
}

// phaseTol is how far apart (seconds) the runs' shifts may be and still
// be one phase change: 3 s or a fifth of the window, the larger.
func phaseTol(windowS float64) float64 { return math.Max(3, windowS/5) }

// Phases tests g's usable runs together and sums up their own tests.
func (t *Table) Phases(g *Group) Phases {
	p := Phases{Rel: math.NaN(), AtS: math.NaN()}
	sum, count := map[float64]float64{}, map[float64]int{}
	var runs []*load.Run
	for _, r := range g.Runs {
		if !r.Usable() || !r.Shift.Tested {
			continue
		}
		ps := t.windowSeries(r)
		var vs []float64
		for _, pt := range ps {
			vs = append(vs, pt.V)
		}
		m := load.MeanOf(vs)
		if m == 0 || math.IsNaN(m) {
			continue
		}
		runs = append(runs, r)
		p.WindowS = math.Max(p.WindowS, r.Shift.ToS-r.Shift.FromS)
		for _, pt := range ps {
			sum[pt.T] += pt.V / m
			count[pt.T]++
		}
	}
	p.Tested = len(runs)
	var pooled []load.Point
	var seconds []float64
	for ts := range count {
		seconds = append(seconds, ts)
	}
	sort.Float64s(seconds)
	for _, ts := range seconds {
		if count[ts] == p.Tested {
			pooled = append(pooled, load.Point{T: ts, V: sum[ts] / float64(p.Tested)})
		}
	}
	p.Pooled = analyse.TestShift(pooled)
	if !p.Pooled.Found {
		return p
	}
	p.Rel, p.AtS, p.AtMin, p.AtMax = p.Pooled.Rel, p.Pooled.AtS, p.Pooled.AtS, p.Pooled.NextS
	tol := phaseTol(p.WindowS)
	for _, r := range runs {
		s := r.Shift
		if math.Abs(s.Rel) < analyse.ShiftMinRel || (s.Rel < 0) != (p.Rel < 0) || math.Abs(s.AtS-p.AtS) > tol {
			continue
		}
		p.Shifted++
		if s.Found {
			p.Alone++
		}
		p.AtMin, p.AtMax = math.Min(p.AtMin, s.AtS), math.Max(p.AtMax, s.NextS)
	}
	p.Agree = p.Shifted == p.Tested
	return p
}

// text is "no steady state: 41% drop at ~10 s in 2 of 2 runs (1
// significant alone)" ("" when the runs' mean held one level).
func (p Phases) text() string {
	if !p.Pooled.Found {
		return ""
	}
	what := "drop"
	if p.Rel > 0 {
		what = "rise"
	}
	at := "~" + analyse.Num(p.AtS, 0) + " s"
	if p.AtMax-p.AtMin > 1.5 {
		at += " (between " + analyse.Num(p.AtMin, 0) + " and " + analyse.Num(p.AtMax, 0) + " s)"
	}
	border := ""
	if s := p.Pooled; s.Stat <= s.CritHi {
		// Found, but another simulation of the critical value could have
		// said otherwise: the reader is told the decision is close.
		border = fmt.Sprintf("; borderline: statistic %.2f within its simulated critical value's uncertainty, %.2f-%.2f", s.Stat, s.CritLo, s.CritHi)
	}
	return fmt.Sprintf("no steady state: %.0f%% %s at %s in %d of %d runs (a level-shift test of the runs' mean, %s false alarm rate; %d of the runs significant alone%s)",
		100*math.Abs(p.Rel), what, at, p.Shifted, p.Tested, Pct(analyse.ShiftAlpha), p.Alone, border)
}

// phaseCut is the second where a comparison's phases divide: the shift of
// whichever side shifted (both: their mean, when within phaseTol); ok is
// false when a side's runs disagree, or neither shifted.
func phaseCut(a, b Phases) (float64, bool) {
	for _, p := range []Phases{a, b} {
		if p.Pooled.Found && !p.Agree {
			return 0, false
		}
	}
	switch {
	case a.Pooled.Found && b.Pooled.Found:
		if math.Abs(a.AtS-b.AtS) > phaseTol(math.Max(a.WindowS, b.WindowS)) {
			return 0, false
		}
		return (a.AtS + b.AtS) / 2, true
	case a.Pooled.Found:
		return a.AtS, true
	case b.Pooled.Found:
		return b.AtS, true
	}
	return 0, false
}

// phaseRates is each usable run's mean rate over its window's intervals
// ending at or before cut (later: after cut); runs with fewer than two
// such intervals are left out.
func (t *Table) phaseRates(g *Group, cut float64, later bool) []float64 {
	var out []float64
	for _, r := range g.Runs {
		if !r.Usable() {
			continue
		}
		var xs []float64
		for _, p := range t.windowSeries(r) {
			if (p.T > cut) == later {
				xs = append(xs, p.V)
			}
		}
		if len(xs) >= 2 {
			out = append(out, load.MeanOf(xs))
		}
	}
	return out
}

// SteadyLine is the caveat right under a comparison's answer line when
// either side has no steady state: which side, the drop, when, in how
// many runs; the ratio per phase when the phases agree across runs; and
// how long runs must be to measure the later phase. "" when both sides'
// runs held one level.
func (t *Table) SteadyLine(base, g *Group) string {
	pg, pb := t.Phases(g), t.Phases(base)
	var sides []string
	for _, x := range []struct {
		g *Group
		p Phases
	}{{g, pg}, {base, pb}} {
		if s := x.p.text(); s != "" {
			sides = append(sides, x.g.Label+": "+s)
		}
	}
	if len(sides) == 0 {
		return ""
	}
	s := "Steady state (" + g.Label + " vs " + base.Label + "): " + strings.Join(sides, "; ")
	cut, ok := phaseCut(pg, pb)
	if !ok {
		return s + "; the runs' phases differ, so no ratio per phase: the ratio above mixes levels and depends on the runs' length"
	}
	var phases []string
	for _, later := range []bool{false, true} {
		a, b := t.phaseRates(g, cut, later), t.phaseRates(base, cut, later)
		if len(a) == 0 || len(b) == 0 || load.MeanOf(b) == 0 {
			return s + "; too few intervals on one side of the shift for a ratio per phase"
		}
		ph := analyse.Ratio(load.MeanOf(a) / load.MeanOf(b))
		if ci, err := analyse.FiellerCI(a, b); err == nil {
			ph += CIPhrase(&ci, nil)
		} else {
			ph += CIPhrase(nil, err)
		}
		if later {
			ph += " after ~" + analyse.Num(cut, 0) + " s"
		} else {
			ph += " up to ~" + analyse.Num(cut, 0) + " s"
		}
		phases = append(phases, ph)
	}
	s += "; per phase: " + strings.Join(phases, ", ")
	return s + "; " + laterPhaseAdvice(math.Max(pg.AtMax, pb.AtMax), math.Max(pg.WindowS, pb.WindowS))
}

// laterPhaseAdvice says how long runs must be to measure the later phase
// on its own: a warm-up past the latest second the shift may have
// happened (and one more), then a window as long as the one these runs
// had.
func laterPhaseAdvice(latest, windowS float64) string {
	warm := math.Ceil(latest) + 1
	return fmt.Sprintf("to measure the later phase alone, run at least %s s with --warmup %s (a %s s window after the shift; whether it is itself steady is then tested)",
		analyse.Num(warm+math.Ceil(windowS), 0), analyse.Num(warm, 0), analyse.Num(math.Ceil(windowS), 0))
}

// TrendWarning warns that the runs-needed figure or the stopping rule is
// driven by a level shift inside the runs rather than by noise: "" when no
// configuration shifted or there is nothing it would drive.
func (t *Table) TrendWarning() string {
	var shifted []string
	for _, g := range t.Groups {
		if p := t.Phases(g); p.Pooled.Found {
			shifted = append(shifted, g.Label)
		}
	}
	if len(shifted) == 0 || len(t.Groups) < 2 {
		return ""
	}
	what := "the runs-needed estimate"
	if t.Until != nil {
		what = "the stopping rule"
	}
	return fmt.Sprintf("Trend: the rate of %s shifts inside the window, so %s is driven by a trend, not noise: "+
		"more runs of this length measure the same mix of phases again; longer runs, or a warm-up past the shift, measure one",
		strings.Join(shifted, ", "), what)
}

// SteadySummary states the steady-state test once for the Method; "" when
// no run had a window long enough to test.
func (rep *Report) SteadySummary() string {
	tested := 0
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			if r.Usable() && r.Shift.Tested {
				tested++
			}
		}
	}
	if tested == 0 {
		return ""
	}
	return fmt.Sprintf("Steady state: tested, not assumed. Each configuration's window is tested for one level shift: the mean of its runs' per-second rates "+
		"(each run divided by its own mean) at the seconds their windows share, split in two where least squares puts the shift (at least %d s each side); "+
		"the difference of the two means over its standard error, the residuals' variance inflated for their lag-1 autocorrelation, against the %s quantile "+
		"of the same statistic's maximum over all splits for autocorrelated noise (AR(1), coefficient %s, simulated): a %s false alarm rate for noise "+
		"autocorrelated up to %s (the lab's steady runs measure -0.37 to 0.18). A significant shift of %s or more of the earlier level is reported as "+
		"no steady state, under the verdict, with how many runs shifted the same way (each run's own test) and, when every run did, the ratio per phase. "+
		"%s tested.", analyse.ShiftMinSeg, Pct(1-analyse.ShiftAlpha), analyse.Num(analyse.ShiftPhi, 1), Pct(analyse.ShiftAlpha), analyse.Num(analyse.ShiftPhi, 1), Pct(analyse.ShiftMinRel), Plural(tested, "run"))
}
