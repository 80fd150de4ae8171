package report

import (
	"fmt"
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

// excludedS is how many seconds between the window's ends it leaves out
// for instruments (overlapping spans counted once).
func excludedS(w load.Window) float64 {
	if len(w.Segs) == 0 || math.IsInf(w.ToS, 0) {
		return 0
	}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	return math.Max(0, to-from-lengthS(w))
}

// windowText is the window as the Runs table shows it: "5-20 s (--warmup)",
// with what it excludes.
func windowText(w load.Window) string {
	s := num(w.FromS, 0) + "-" + num(w.ToS, 0) + " s (" + w.How + ")"
	if x := excludedText(w); x != "" {
		s += ", " + x
	}
	return s
}

// instrumentWhat is what an excluded span was, in the report's words.
func instrumentWhat(s load.Span) string {
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
	x := excludedS(w)
	if x <= 0.05 {
		return ""
	}
	by := map[string]float64{}
	from, to := w.FromS+w.ClientOffsetS, w.ToS+w.ClientOffsetS
	for _, s := range w.Excluded {
		by[instrumentWhat(s)] += math.Max(0, math.Min(s.To, to)-math.Max(s.From, from))
	}
	var parts []string
	for _, k := range load.SortedKeys(by) {
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
		r.TableMetric = t.Metric
		w := load.Window{FromS: fallback, ToS: loadEndS(r, t.Metric), Excluded: r.Instrument, How: from}
		rt, ok := benchRate(r, t.Metric)
		var client []load.Point
		if ok && !rt.PlotOnly {
			client = rt.Series
			w.ClientOffsetS, w.LoadQuiet = alignOffset(commitSeries(r), r.Master)
			if w.LoadQuiet && r.Bench.DurationS > 0 {
				w.ClientEndS = w.ClientOffsetS + r.Bench.DurationS
			}
		}
		if len(client) > 0 && !fixed {
			if d, ok := DetectWarmup(clean(w, client)); ok {
				w.FromS, w.How = d, "detected"
			}
		}
		if w.FromS >= w.ToS {
			// A warm-up as long as the run: the whole run, said so.
			w.FromS, w.How = 0, "whole run: the warm-up "+num(fallback, 0)+" s is not shorter than it"
		}
		w.SetSegs(client)
		r.Win, r.WarmupS, r.WarmupHow = w, w.FromS, w.How
	}
}

// clean is a client series without the intervals an excluded span
// touches (whole run: detection sees every interval but those).
func clean(w load.Window, ps []load.Point) []load.Point {
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

func benchRate(r *load.Run, metric string) (load.Rate, bool) {
	if r.Bench == nil {
		return load.Rate{}, false
	}
	rt, ok := r.Bench.Rates[metric]
	return rt, ok
}

// loadEndS is where the run's window ends: the client's last interval,
// else the load's end (load_end), else the client's duration, else no
// bound.
func loadEndS(r *load.Run, metric string) float64 {
	if rt, ok := benchRate(r, metric); ok && len(rt.Series) > 0 && !rt.PlotOnly {
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
			if x := excludedS(r.Win); x > 0 {
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
			"inside the measured load (each run's share is in the Runs table).", num(exclS, 1), plural(excl, "run"), strings.Join(load.SortedKeys(what), ", "))
	}
	if len(instr) > 0 {
		s += " What watched the runs: " + strings.Join(load.SortedKeys(instr), "; ") + "."
	}
	return s
}
