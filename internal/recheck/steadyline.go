package recheck

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The steady-state lines of the head and verdicts, checked against
// testPhases (steady.go):
//
//	Steady state (rocksdb vs innodb): rocksdb: no steady state: 17% drop at
//	~8 s in 1 of 2 runs (a level-shift test of the runs' mean, 5% false
//	alarm rate; 1 of the runs significant alone); per phase: 0.913x
//	[0.731, 1.43] up to ~9 s, 0.617x [0.365, 0.808] after ~9 s; to measure
//	the later phase alone, run at least 29 s with --warmup 10 (a 19 s
//	window after the shift; ...)
//	Trend: the rate of rocksdb shifts inside the window, so ...
var (
	// One side's clause, after the label: the change, its second (and the
	// range the runs' shifts span), shifted of tested runs, the method's
	// false alarm rate, the runs significant alone.
	reSteadySide = `: no steady state: ([0-9]+)% (drop|rise) at ~([0-9]+) s(?: \(between ([0-9]+) and ([0-9]+) s\))? in ([0-9]+) of ([0-9]+) runs ` +
		`\(a level-shift test of the runs' mean, ([0-9.]+)% false alarm rate; ([0-9]+) of the runs significant alone` +
		`(?:; borderline: statistic ([0-9.]+) within its simulated critical value's uncertainty, ([0-9.]+)-([0-9.]+))?\)`
	rePerPhase = regexp.MustCompile(`; per phase: ([0-9.,]+)x( \[[^\]]*\])? up to ~([0-9]+) s, ([0-9.,]+)x( \[[^\]]*\])? after ~([0-9]+) s; ` +
		`to measure the later phase alone, run at least ([0-9]+) s with --warmup ([0-9]+) \(a ([0-9]+) s window after the shift`)
	rePhaseCI  = regexp.MustCompile(`^ \[([0-9.,]+)(?: \(clipped from (-[0-9.,]+)\))?, ([0-9.,]+)\]`)
	rePhaseUnb = regexp.MustCompile(`^ \[([0-9]+)% CI unbounded\]`)
	reTrend    = regexp.MustCompile(`^Trend: the rate of (.+) shifts inside the window`)
)

const (
	phasesDiffer = "; the runs' phases differ, so no ratio per phase"
	phasesFew    = "; too few intervals on one side of the shift for a ratio per phase"
)

// steadyChecks are the steady-state lines seen, for checkSteadyAbsent.
type steadyChecks struct {
	seen  map[string]bool // "G vs B" of each Steady state line
	trend bool
}

// checkSteadyLine checks a "Steady state (...)" or "Trend:" line; ok is
// false for any other line. spans are the figures it checked.
func (res *Result) checkSteadyLine(line, base string, labels []string) (spans [][]int, ok bool) {
	if m := reTrend.FindStringSubmatchIndex(line); m != nil {
		res.steady.trend = true
		listed := map[string]bool{}
		for _, l := range strings.Split(line[m[2]:m[3]], ", ") {
			listed[l] = true
		}
		for _, l := range labels {
			res.decision(l+" shifts (Trend line)", listed[l], res.phaseOf(l).pooled)
		}
		return nil, true
	}
	for _, g := range labels {
		head := "Steady state (" + g + " vs " + base + "): "
		if g == base || !strings.HasPrefix(line, head) {
			continue
		}
		res.steady.seen[g] = true
		pg, pb := res.phaseOf(g), res.phaseOf(base)
		for _, p := range []*phases{pg, pb} {
			spans = append(spans, res.checkSide(line, p)...)
		}
		return append(spans, res.checkPerPhase(line, g, pg, pb)...), true
	}
	return nil, false
}

// checkSide checks one configuration's clause of a Steady state line
// (or that it has none when its runs held one level).
func (res *Result) checkSide(line string, p *phases) [][]int {
	w := p.label + " steady state: "
	m := regexp.MustCompile(`(?:\): |; )` + regexp.QuoteMeta(p.label) + reSteadySide).FindStringSubmatchIndex(line)
	p.reportFound = m != nil
	p.usedFound = res.decision(p.label+" no steady state", m != nil, p.pooled)
	if m == nil {
		return nil
	}
	g := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return line[m[2*i]:m[2*i+1]]
	}
	res.printed(w+"change %", g(1), 100*math.Abs(p.pooled.rel))
	res.Compared++
	if (g(2) == "drop") != (p.pooled.rel < 0) {
		res.Problems = append(res.Problems, fmt.Sprintf("%sreport %q, recomputed change %+.3g", w, g(2), p.pooled.rel))
	}
	res.printed(w+"at s", g(3), p.pooled.at)
	res.Compared++
	if (g(4) != "") != (p.atMax-p.atMin > 1.5) {
		res.Problems = append(res.Problems, fmt.Sprintf("%sreport %q a range of seconds, recomputed %.4g-%.4g s", w, g(4)+" "+g(5), p.atMin, p.atMax))
	}
	if g(4) != "" {
		res.printed(w+"earliest s", g(4), p.atMin)
		res.printed(w+"latest s", g(5), p.atMax)
	}
	res.printed(w+"runs shifted", g(6), float64(p.shifted))
	res.printed(w+"runs tested", g(7), float64(p.tested))
	res.printed(w+"false alarm rate % (the method's)", g(8), 100*shiftAlpha)
	if len(p.aloneUnsure) == 0 {
		res.printed(w+"runs significant alone", g(9), float64(p.alone))
	} else {
		// Bounded, not decided: the report's count must lie between the
		// runs surely significant and those plus the undecided.
		n, _ := strconv.Atoi(g(9))
		res.Compared++
		if n < p.alone || n > p.alone+len(p.aloneUnsure) {
			res.Problems = append(res.Problems, fmt.Sprintf("%sruns significant alone: report %d, recomputed %d to %d", w, n, p.alone, p.alone+len(p.aloneUnsure)))
		}
		res.notRecomputed(fmt.Sprintf("%s%s of the runs significant alone: checked only to lie in %d-%d: run(s) %s have a statistic within the simulated critical value's uncertainty (its own simulation here, the report's of %d series)",
			w, g(9), p.alone, p.alone+len(p.aloneUnsure), strings.Join(p.aloneUnsure, ", "), reportSims))
	}
	if g(10) != "" {
		// Borderline: the statistic is this package's own; the report's
		// band (its 4000 series' quantiles at 95% ∓ 1.96 standard errors)
		// must hold it and lie within this package's band for the
		// report's simulation (critical: wider, 2.58 standard errors and
		// its own error).
		res.printed(w+"shift statistic", g(10), p.pooled.stat)
		lo, _ := strconv.ParseFloat(g(11), 64)
		hi, _ := strconv.ParseFloat(g(12), 64)
		res.Compared++
		if lo > p.pooled.stat+0.005 || hi < p.pooled.stat-0.005 || lo < p.pooled.critLo-0.005 || hi > p.pooled.critHi+0.005 {
			res.Problems = append(res.Problems, fmt.Sprintf("%sborderline band: report %s-%s for statistic %s, recomputed statistic %.3g, band %.3g-%.3g",
				w, g(11), g(12), g(10), p.pooled.stat, p.pooled.critLo, p.pooled.critHi))
		}
	}
	var spans [][]int
	for i := 1; i <= 12; i++ {
		if m[2*i] >= 0 && i != 2 {
			spans = append(spans, m[2*i:2*i+2])
		}
	}
	return spans
}

// checkPerPhase checks what follows the sides: no ratio per phase when a
// side's runs disagree (or their shifts are too far apart), else each
// phase's ratio and interval (each run's mean over the phase's intervals,
// Fieller's interval as the unpaired analysis defines it) and how long
// runs must be to measure the later phase.
func (res *Result) checkPerPhase(line, g string, pg, pb *phases) [][]int {
	w := g + " per phase: "
	cut, ok := cutOf(pg, pb)
	a0, b0 := phaseMeans(pg.runs, cut, false), phaseMeans(pb.runs, cut, false)
	a1, b1 := phaseMeans(pg.runs, cut, true), phaseMeans(pb.runs, cut, true)
	few := len(a0) == 0 || len(b0) == 0 || len(a1) == 0 || len(b1) == 0 || mean(b0) == 0 || mean(b1) == 0
	want := "per phase"
	switch {
	case !pg.usedFound && !pb.usedFound:
		want = "no line"
	case !ok:
		want = phasesDiffer
	case few:
		want = phasesFew
	}
	m := rePerPhase.FindStringSubmatchIndex(line)
	got := "no ratio per phase stated"
	switch {
	case strings.Contains(line, phasesDiffer):
		got = phasesDiffer
	case strings.Contains(line, phasesFew):
		got = phasesFew
	case m != nil:
		got = "per phase"
	}
	res.Compared++
	if got != want {
		res.Problems = append(res.Problems, fmt.Sprintf("%sreport %q, recomputed %q (cut %.4g s, phases agree: %s %v, %s %v)", w, got, want, cut, pg.label, pg.agree, pb.label, pb.agree))
		return nil
	}
	if m == nil {
		return nil
	}
	s := func(i int) string { return line[m[2*i]:m[2*i+1]] }
	spans := [][]int{m[2:4], m[6:8], m[8:10], m[12:14], m[14:16], m[16:18], m[18:20]}
	for _, ph := range []struct {
		name         string
		a, b         []float64
		ratio, cut   int
		ciFrom, ciTo int
	}{{"up to the shift", a0, b0, 1, 3, m[4], m[5]}, {"after the shift", a1, b1, 4, 6, m[10], m[11]}} {
		res.printed(w+ph.name+" ratio", s(ph.ratio), mean(ph.a)/mean(ph.b))
		res.printed(w+ph.name+" cut s", s(ph.cut), cut)
		spans = append(spans, res.checkPhaseCI(w+ph.name, line, ph.ciFrom, ph.ciTo, ph.a, ph.b)...)
	}
	// A warm-up past the latest second the shift may have happened, then
	// a window as long as these runs had.
	warm := math.Ceil(math.Max(foundMax(pg), foundMax(pb))) + 1
	win := math.Ceil(math.Max(pg.windowS, pb.windowS))
	res.printed(w+"advice: run at least s", s(7), warm+win)
	res.printed(w+"advice: --warmup s", s(8), warm)
	res.printed(w+"advice: window s", s(9), win)
	return spans
}

// checkPhaseCI checks a phase's interval text line[from:to] (" [lo, hi]",
// " [95% CI unbounded]" or none).
func (res *Result) checkPhaseCI(what, line string, from, to int, a, b []float64) [][]int {
	lo, hi, ok := fieller(a, b)
	text := ""
	if from >= 0 {
		text = line[from:to]
	}
	if m := rePhaseCI.FindStringSubmatchIndex(text); m != nil {
		low := text[m[2]:m[3]]
		spans := [][]int{{from + m[2], from + m[3]}, {from + m[6], from + m[7]}}
		if m[4] >= 0 {
			low = text[m[4]:m[5]]
			spans = append(spans, []int{from + m[4], from + m[5]})
		}
		if !ok {
			lo, hi = math.NaN(), math.NaN()
		}
		res.printed(what+" interval low", low, lo)
		res.printed(what+" interval high", text[m[6]:m[7]], hi)
		return spans
	}
	res.Compared++
	if ok {
		res.Problems = append(res.Problems, fmt.Sprintf("%s interval: report %q, recomputed [%.4g, %.4g]", what, text, lo, hi))
	}
	if m := rePhaseUnb.FindStringSubmatchIndex(text); m != nil {
		res.printed(what+" interval level % (the method's)", text[m[2]:m[3]], 95)
		return [][]int{{from + m[2], from + m[3]}}
	}
	return nil
}

// foundMax is the latest second a found shift may have happened (0 when
// none was).
func foundMax(p *phases) float64 {
	if !p.usedFound {
		return 0
	}
	return p.atMax
}

// cutOf is the second a comparison's phases divide at: the shift of
// whichever side shifted (both: their mean, when within phaseTol); ok is
// false when a side's runs did not all shift with it.
func cutOf(a, b *phases) (float64, bool) {
	if a.usedFound && !a.agree || b.usedFound && !b.agree {
		return 0, false
	}
	switch {
	case a.usedFound && b.usedFound:
		if math.Abs(a.pooled.at-b.pooled.at) > phaseTol(math.Max(a.windowS, b.windowS)) {
			return 0, false
		}
		return (a.pooled.at + b.pooled.at) / 2, true
	case a.usedFound:
		return a.pooled.at, true
	case b.usedFound:
		return b.pooled.at, true
	}
	return 0, false
}

// decision compares a yes/no the report states with a recomputed split's
// (a change of phase: significant and 10% or more); when the simulated
// critical value cannot decide, the report's answer is taken and said so
// in NotRecomputed. It returns the answer the later checks use.
func (res *Result) decision(what string, report bool, s split) bool {
	res.Compared++
	switch s.found {
	case unsure:
		res.notRecomputed(fmt.Sprintf("%s: %v as the report says: the statistic %.3g is within the simulated critical value's uncertainty [%.3g, %.3g] (%d vs the report's %d simulations)",
			what, report, s.stat, s.critLo, s.critHi, simsFor(s.n), reportSims))
		return report
	case yes:
		if !report {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: report no, recomputed a %.3g%% change at ~%.4g s (statistic %.3g > critical %.3g)", what, 100*s.rel, s.at, s.stat, s.critHi))
		}
	default:
		if report {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: report yes, recomputed no (change %.3g%%, statistic %.3g, critical %.3g-%.3g)", what, 100*s.rel, s.stat, s.critLo, s.critHi))
		}
	}
	return s.found == yes
}

// checkSteadyAbsent fails a comparison whose runs surely shifted but has
// no Steady state line, and a table with a surely shifted configuration
// but no Trend line.
func (res *Result) checkSteadyAbsent(base string, labels []string) {
	any := false
	for _, l := range labels {
		any = any || res.phaseOf(l).pooled.found == yes
	}
	for _, g := range labels {
		if g == base || res.steady.seen[g] {
			continue
		}
		for _, l := range []string{g, base} {
			res.decision(g+" vs "+base+": "+l+" no steady state (no Steady state line)", false, res.phaseOf(l).pooled)
		}
	}
	if !res.steady.trend && len(labels) > 1 && any {
		res.Compared++
		res.Problems = append(res.Problems, "no Trend line, yet a configuration's runs shifted")
	}
}

// checkSteadyCSV compares results.csv's level-shift columns: each run's
// own test (shift_*) and its configuration's (label_steady_state,
// label_shift_*).
func (res *Result) checkSteadyCSV(p *phases, rows map[string]map[string]string, conf map[string]string) {
	for _, r := range p.runs {
		s, row := p.runSplits[r], rows[r.id]
		res.printed(r.id+" shift_rel", row["shift_rel"], s.rel)
		res.printed(r.id+" shift_at_s", row["shift_at_s"], s.at)
		res.decision(r.id+" shift_found", row["shift_found"] == "true", s)
	}
	if !p.pooled.tested {
		return
	}
	l := p.label + " "
	found := res.decision(l+"label_steady_state false", conf["label_steady_state"] == "false", p.pooled)
	rel, at := math.NaN(), math.NaN()
	if found {
		rel, at = p.pooled.rel, p.pooled.at
		res.printed(l+"label_shift_runs", conf["label_shift_runs"], float64(p.shifted))
	}
	res.printed(l+"label_shift_rel", conf["label_shift_rel"], rel)
	res.printed(l+"label_shift_at_s", conf["label_shift_at_s"], at)
}

// notRecomputed lists what was not decided, once (the head and the
// verdicts print the same line).
func (res *Result) notRecomputed(s string) {
	for _, n := range res.NotRecomputed {
		if n == s {
			return
		}
	}
	res.NotRecomputed = append(res.NotRecomputed, s)
}

// phaseOf is label's steady-state test (an untested one when there is
// none: no runs read).
func (res *Result) phaseOf(label string) *phases {
	if p := res.phases[label]; p != nil {
		return p
	}
	return &phases{label: label}
}
