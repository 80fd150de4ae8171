package judge

import (
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// SetWindows decides each run's window once: its warm-up is the user's
// when one was given (fixed), else detected on its per-second rate with
// the excluded spans taken out, else (too few intervals) the fallback;
// it ends with the client's last interval.
func (t *Table) SetWindows(fixed bool, fallback float64, from string) {
	for _, r := range t.Runs {
		r.TableMetric = t.Metric
		w := load.Window{FromS: fallback, ToS: analyse.LoadEndS(r, t.Metric), Excluded: r.Instrument, How: from}
		rt, ok := analyse.BenchRate(r, t.Metric)
		var client []load.Point
		if ok && !rt.PlotOnly {
			client = rt.Series
			w.ClientOffsetS, w.LoadQuiet = analyse.AlignOffset(analyse.CommitSeries(r), r.Master)
			if w.LoadQuiet && r.Bench.DurationS > 0 {
				w.ClientEndS = w.ClientOffsetS + r.Bench.DurationS
			}
		}
		if len(client) > 0 && !fixed {
			if d, ok := analyse.DetectWarmup(analyse.Clean(w, client)); ok {
				w.FromS, w.How = d, "detected"
			}
		}
		if w.FromS >= w.ToS {
			// A warm-up as long as the run: the whole run, said so.
			w.FromS, w.How = 0, "whole run: the warm-up "+analyse.Num(fallback, 0)+" s is not shorter than it"
		}
		w.SetSegs(client)
		r.Win, r.WarmupS, r.WarmupHow = w, w.FromS, w.How
	}
}

// WindowSummary states the window once for the report's Method.
func (rep *Report) WindowSummary() string {
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
			if x := analyse.ExcludedS(r.Win); x > 0 {
				excl++
				exclS += x
				for _, s := range r.Win.Excluded {
					what[analyse.InstrumentWhat(s)] = true
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
			"inside the measured load (each run's share is in the Runs table).", analyse.Num(exclS, 1), Plural(excl, "run"), strings.Join(load.SortedKeys(what), ", "))
	}
	if len(instr) > 0 {
		s += " What watched the runs: " + strings.Join(load.SortedKeys(instr), "; ") + "."
	}
	return s
}
