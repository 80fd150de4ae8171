package analyse

import (
	"math"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// lengthS is the seconds the window covers (NaN when it has no end).
func lengthS(w load.Window) float64 {
	sum := 0.0
	for _, sg := range w.Segs {
		sum += sg[1] - sg[0]
	}
	if math.IsInf(sum, 0) || len(w.Segs) == 0 {
		return math.NaN()
	}
	return sum
}

// ExcludedS is how many seconds between the window's ends it leaves out
// for instruments (overlapping spans counted once).
func ExcludedS(w load.Window) float64 {
	if len(w.Segs) == 0 || math.IsInf(w.ToS, 0) {
		return 0
	}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	return math.Max(0, to-from-lengthS(w))
}

// WindowText is the window as the Runs table shows it: "5-20 s (--warmup)",
// with what it excludes.
func WindowText(w load.Window) string {
	s := Num(w.FromS, 0) + "-" + Num(w.ToS, 0) + " s (" + w.How + ")"
	if x := excludedText(w); x != "" {
		s += ", " + x
	}
	return s
}

// InstrumentWhat is what an excluded span was, in the report's words.
func InstrumentWhat(s load.Span) string {
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
func excludedText(w load.Window) string {
	x := ExcludedS(w)
	if x <= 0.05 {
		return ""
	}
	by := map[string]float64{}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	for _, s := range w.Excluded {
		by[InstrumentWhat(s)] += math.Max(0, math.Min(s.To, to)-math.Max(s.From, from))
	}
	var parts []string
	for _, k := range load.SortedKeys(by) {
		if by[k] > 0 {
			parts = append(parts, Num(by[k], 1)+" s of "+k)
		}
	}
	return "excluded " + Num(x, 1) + " s (" + strings.Join(parts, ", ") + ")"
}

// Clean is a client series without the intervals an excluded span
// touches (whole run: detection sees every interval but those).
func Clean(w load.Window, ps []load.Point) []load.Point {
	all := w
	all.FromS, all.ToS = math.Inf(-1), math.Inf(1)
	step := load.StepOf(ps)
	var out []load.Point
	for _, p := range ps {
		if all.Keeps(p.T, step) {
			out = append(out, p)
		}
	}
	return out
}

func BenchRate(r *load.Run, metric string) (load.Rate, bool) {
	if r.Bench == nil {
		return load.Rate{}, false
	}
	rt, ok := r.Bench.Rates[metric]
	return rt, ok
}

// LoadEndS is where the run's window ends: the client's last interval,
// else the load's end (load_end), else the client's duration, else no
// bound.
func LoadEndS(r *load.Run, metric string) float64 {
	if rt, ok := BenchRate(r, metric); ok && len(rt.Series) > 0 && !rt.PlotOnly {
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
