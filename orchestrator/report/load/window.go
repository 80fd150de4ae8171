package load

import (
	"math"
	"sort"
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

// Keeps reports whether the client's interval of step seconds that ended
// at its second t is in the window.
func (w Window) Keeps(t, step float64) bool {
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

// LoadWindow is the window (from, to] of load seconds, for runs without
// client intervals.
func LoadWindow(from, to float64) Window {
	w := Window{FromS: from, ToS: to}
	w.SetSegs(nil)
	return w
}

// SetSegs computes the window's seconds from the client's series (nil:
// the client printed none, and its clock is the load's).
func (w *Window) SetSegs(series []Point) {
	w.Segs = nil
	add := func(a, b float64) {
		if n := len(w.Segs); n > 0 && math.Abs(w.Segs[n-1][1]-a) < 1e-6 {
			w.Segs[n-1][1] = b
			return
		}
		w.Segs = append(w.Segs, [2]float64{a, b})
	}
	if len(series) > 0 {
		step := StepOf(series)
		for _, p := range series {
			if w.Keeps(p.T, step) {
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

// StepOf is a client series' report interval: the most common spacing of
// its points (1 s for sysbench --report-interval=1).
func StepOf(ps []Point) float64 {
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

// InstrumentSpans are the stack-sampling spans that overlap the load
// (load seconds), clipped to it: the window leaves them out. Spans of a
// profiling tail after the load touch nothing.
func InstrumentSpans(spans []Span, offset, loadEnd float64) []Span {
	var out []Span
	for _, s := range spans {
		if s.What != SpanStacks {
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

// SpanStacks is the Span.What of a stack sample.
const SpanStacks = "stack sample"
