package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Window is the one stretch of a run that every figure of it is computed
// over: the steady rate, the replicas, where the time went, the sustained
// rate. FromS and ToS are the client's seconds since its start (the
// warm-up is what the user counts from there); Segs are the seconds kept,
// on the load's clock (seconds since events.jsonl load_start; the
// monitors' start in older runs): the client's intervals from FromS to
// ToS that touch no excluded span, shifted by ClientOffsetS. The monitors
// are integrated over exactly Segs.
type Window struct {
	FromS, ToS float64
	// Excluded are the instrument spans (stack sampling) inside the load,
	// load seconds: left out of every figure and of warm-up detection.
	Excluded []Span
	// How says where FromS comes from: "--warmup", "matrix.json",
	// "detected", or the fallback's source.
	How string
	// ClientOffsetS: the client's interval ending at its second T ended at
	// T + ClientOffsetS on the load's clock (alignOffset).
	ClientOffsetS float64
	// LoadQuiet: ClientOffsetS was read from the load's start (the
	// client's second 0, at load time ClientOffsetS, is when the servers'
	// transaction counters began to move), not fitted.
	LoadQuiet bool
	// ClientEndS, when above 0: the client's end on the load clock
	// (ClientOffsetS plus the run's duration it printed); with LoadQuiet,
	// the servers' transaction counters moved no more after it.
	ClientEndS float64
	Segs       [][2]float64
}

// keeps reports whether the client's interval of step seconds that ended
// at its second t is in the window.
func (w Window) keeps(t, step float64) bool {
	if math.IsNaN(t) || t <= w.FromS || t > w.ToS {
		return false
	}
	lt := t + w.ClientOffsetS
	for _, s := range w.Excluded {
		if lt-step < s.To && lt > s.From {
			return false
		}
	}
	return true
}

// covers reports whether load time t lies in the window's seconds.
func (w Window) covers(t float64) bool {
	for _, sg := range w.Segs {
		if t > sg[0] && t <= sg[1] {
			return true
		}
	}
	return false
}

// lengthS is the seconds the window covers (NaN when it has no end).
func (w Window) lengthS() float64 {
	sum := 0.0
	for _, sg := range w.Segs {
		sum += sg[1] - sg[0]
	}
	if math.IsInf(sum, 0) || len(w.Segs) == 0 {
		return math.NaN()
	}
	return sum
}

// excludedS is how many seconds between the window's ends it leaves out
// for instruments (overlapping spans counted once).
func (w Window) excludedS() float64 {
	if len(w.Segs) == 0 || math.IsInf(w.ToS, 0) {
		return 0
	}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	return math.Max(0, to-from-w.lengthS())
}

// text is the window as the Runs table shows it: "5-20 s (--warmup)",
// with what it excludes.
func (w Window) text() string {
	s := num(w.FromS, 0) + "-" + num(w.ToS, 0) + " s (" + w.How + ")"
	if x := w.excludedText(); x != "" {
		s += ", " + x
	}
	return s
}

// loadWindow is the window (from, to] of load seconds, for runs without
// client intervals.
func loadWindow(from, to float64) Window {
	w := Window{FromS: from, ToS: to}
	w.setSegs(nil)
	return w
}

// setSegs computes the window's seconds from the client's series (nil:
// the client printed none, and its clock is the load's).
func (w *Window) setSegs(series []Point) {
	w.Segs = nil
	add := func(a, b float64) {
		if n := len(w.Segs); n > 0 && math.Abs(w.Segs[n-1][1]-a) < 1e-6 {
			w.Segs[n-1][1] = b
			return
		}
		w.Segs = append(w.Segs, [2]float64{a, b})
	}
	if len(series) > 0 {
		step := stepOf(series)
		for _, p := range series {
			if w.keeps(p.T, step) {
				add(p.T+w.ClientOffsetS-step, p.T+w.ClientOffsetS)
			}
		}
		return
	}
	from := math.Max(w.FromS, 0)
	for _, s := range w.Excluded {
		if s.From > from && s.From < w.ToS {
			add(from, s.From)
		}
		from = math.Max(from, s.To)
	}
	if from < w.ToS {
		add(from, w.ToS)
	}
}

// instrumentWhat is what an excluded span was, in the report's words.
func instrumentWhat(s Span) string {
	what := "stack sampling"
	if s.Detail != "" {
		what = s.Detail + " " + what
	}
	if s.Host != "" {
		what += " on " + s.Host
	}
	return what
}

// excludedText says what the window leaves out: "excluded 7.0 s (6.3 s
// of gdb stack sampling on master)": the client's whole intervals that
// the spans touch, and the spans themselves.
func (w Window) excludedText() string {
	x := w.excludedS()
	if x <= 0.05 {
		return ""
	}
	by := map[string]float64{}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	for _, s := range w.Excluded {
		by[instrumentWhat(s)] += math.Max(0, math.Min(s.To, to)-math.Max(s.From, from))
	}
	var parts []string
	for _, k := range sortedKeys(by) {
		if by[k] > 0 {
			parts = append(parts, num(by[k], 1)+" s of "+k)
		}
	}
	return "excluded " + num(x, 1) + " s (" + strings.Join(parts, ", ") + ")"
}

// setWindows decides each run's window once: its warm-up is the user's
// when one was given (fixed), else detected on its per-second rate with
// the excluded spans taken out, else (too few intervals) the fallback;
// it ends with the client's last interval.
func (t *Table) setWindows(fixed bool, fallback float64, from string) {
	for _, r := range t.Runs {
		r.tableMetric = t.Metric
		w := Window{FromS: fallback, ToS: r.loadEndS(t.Metric), Excluded: r.Instrument, How: from}
		rt, ok := r.benchRate(t.Metric)
		var client []Point
		if ok && !rt.plotOnly {
			client = rt.Series
			w.ClientOffsetS, w.LoadQuiet = alignOffset(r.commitSeries(), r.master)
			if w.LoadQuiet && r.Bench.DurationS > 0 {
				w.ClientEndS = w.ClientOffsetS + r.Bench.DurationS
			}
		}
		if len(client) > 0 && !fixed {
			if d, ok := DetectWarmup(w.clean(client)); ok {
				w.FromS, w.How = d, "detected"
			}
		}
		if w.FromS >= w.ToS {
			// A warm-up as long as the run: the whole run, said so.
			w.FromS, w.How = 0, "whole run: the warm-up "+num(fallback, 0)+" s is not shorter than it"
		}
		w.setSegs(client)
		r.Win, r.WarmupS, r.WarmupHow = w, w.FromS, w.How
	}
}

// clean is a client series without the intervals an excluded span
// touches (whole run: detection sees every interval but those).
func (w Window) clean(ps []Point) []Point {
	all := w
	all.FromS, all.ToS = math.Inf(-1), math.Inf(1)
	step := stepOf(ps)
	var out []Point
	for _, p := range ps {
		if all.keeps(p.T, step) {
			out = append(out, p)
		}
	}
	return out
}

// stepOf is a client series' report interval: the most common spacing of
// its points (1 s for sysbench --report-interval=1).
func stepOf(ps []Point) float64 {
	count := map[float64]int{}
	best, bestN := 1.0, 0
	for i := 1; i < len(ps); i++ {
		d := math.Round((ps[i].T-ps[i-1].T)*1000) / 1000
		count[d]++
		if count[d] > bestN && d > 0 {
			best, bestN = d, count[d]
		}
	}
	return best
}

func (r *Run) benchRate(metric string) (rate, bool) {
	if r.Bench == nil {
		return rate{}, false
	}
	rt, ok := r.Bench.rates[metric]
	return rt, ok
}

// loadEndS is where the run's window ends: the client's last interval,
// else the load's end (load_end), else the client's duration, else no
// bound.
func (r *Run) loadEndS(metric string) float64 {
	if rt, ok := r.benchRate(metric); ok && len(rt.Series) > 0 && !rt.plotOnly {
		return rt.Series[len(rt.Series)-1].T
	}
	if r.LoadEndS > 0 {
		return r.LoadEndS
	}
	if r.Bench != nil && !math.IsNaN(r.Bench.DurationS) {
		return r.Bench.DurationS
	}
	return math.Inf(1)
}

// instrumentSpans are the stack-sampling spans that overlap the load
// (load seconds), clipped to it: the window leaves them out. Spans of a
// profiling tail after the load touch nothing.
func instrumentSpans(spans []Span, offset, loadEnd float64) []Span {
	var out []Span
	for _, s := range spans {
		if s.What != spanStacks {
			continue
		}
		from, to := s.From-offset, s.To-offset
		if math.IsNaN(to) || to <= 0 || (!math.IsNaN(loadEnd) && from >= loadEnd) {
			continue
		}
		out = append(out, Span{From: from, To: to, What: s.What, Host: s.Host, Detail: s.Detail})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].From < out[j].From })
	return out
}

// windowSummary states the window once for the report's Method.
func (rep *Report) windowSummary() string {
	var runs, excl int
	var exclS float64
	what, instr := map[string]bool{}, map[string]bool{}
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			if r.Bench == nil {
				continue
			}
			runs++
			if r.Instruments != "" {
				instr[r.Instruments] = true
			}
			if x := r.Win.excludedS(); x > 0 {
				excl++
				exclS += x
				for _, s := range r.Win.Excluded {
					what[instrumentWhat(s)] = true
				}
			}
		}
	}
	if runs == 0 {
		return ""
	}
	s := "Window: every figure of a run (its steady rate, the Configurations, Replicas, Per-transaction and USE tables, the sustained rate) " +
		"is computed over one window: from the end of its warm-up to the client's last interval, in seconds since the load started " +
		"(events load_start; the monitors' start in older runs), the client's clock shifted onto it by the offset at which the master's commits since " +
		"the load began reach the client's running count at its interval ends (the median of those readings; when they disagree, the offset that best " +
		"matches its per-second transactions to the master's commits); the monitors are integrated over exactly the client's kept seconds (counter deltas over elapsed time), " +
		"and when the offset was read from the load's start, the servers' transaction counters count nothing before the client's start or after its end."
	if excl > 0 {
		s += fmt.Sprintf(" Excluded from every figure and from warm-up detection: %s s over %s, the client's intervals that touch %s "+
			"inside the measured load (each run's share is in the Runs table).", num(exclS, 1), plural(excl, "run"), strings.Join(sortedKeys(what), ", "))
	}
	if len(instr) > 0 {
		s += " What watched the runs: " + strings.Join(sortedKeys(instr), "; ") + "."
	}
	return s
}

// spanStacks is the Span.What of a stack sample.
const spanStacks = "stack sample"
