package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// RatioWithin is a ratio and its interval as the report prints them:
// "0.740x [0.680, 0.800]", a lower bound below 0 read as 0 and said so
// (rates are never negative). The matrix's round lines use it, so that
// the console and the report print one number the same way.
func RatioWithin(r, low, high float64) string {
	return analyse.Ratio(r) + " " + judge.RatioInterval(low, high)
}

// mib formats a byte count in MiB.
func mib(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v/(1<<20), 'f', 1, 64)
}

// CI formats the confidence interval of a mean rate "[lo, hi]". A rate
// is never negative: an interval that reaches below 0 says only that n is
// too small for the spread, and is not printed as a range.
func CI(s analyse.Sample, decimals int) string {
	switch {
	case math.IsNaN(s.CILow):
		return "—"
	case s.CILow < 0:
		return fmt.Sprintf("n=%d too small (interval reaches below 0)", s.N)
	}
	return "[" + analyse.Num(s.CILow, decimals) + ", " + analyse.Num(s.CIHigh, decimals) + "]"
}

// pText is a group's p-value cell.
func pText(g *judge.Group) string {
	switch {
	case g.Test != nil:
		return judge.PValue(g.Test.P)
	case g.TestErr != nil:
		return g.TestErr.Error()
	}
	return ""
}

// LagText is "s / tx" of the worst replica lag (0.5 s is not 0).
func LagText(s, tx float64) string {
	if math.IsNaN(s) && math.IsNaN(tx) {
		return "—"
	}
	return lagSecs(s, tx) + " s / " + analyse.Num(tx, 0) + " tx"
}

// lagSecs formats a replica lag in seconds read from Seconds_Behind_Master,
// a whole-second counter, at its resolution: "3" (never "3.0"), "<1" when
// the slave was transactions behind but the counter read 0 (a 0.5 s lag
// is not 0), "0" only with no transaction behind; a mean over runs that is
// not whole keeps one decimal ("0.5").
func lagSecs(s, tx float64) string {
	switch {
	case math.IsNaN(s) || math.IsInf(s, 0):
		return "—"
	case s == 0 && tx > 0:
		return "<1"
	case s == math.Trunc(s):
		return analyse.Num(s, 0)
	}
	return analyse.Num(s, 1)
}

// semiText is the semi-sync health: async fallback time and commits made
// without an acknowledgement.
func semiText(fallbackS, noTx float64) string {
	if math.IsNaN(fallbackS) && math.IsNaN(noTx) {
		return "—"
	}
	return analyse.Num(fallbackS, 1) + " s / " + analyse.Num(noTx, 0)
}

// steadyText says where a run's steady-state figure comes from.
func steadyText(how string, r *load.Run) string {
	switch how {
	case "intervals":
		return "mean of intervals in " + analyse.WindowText(r.Win) + printedText(r)
	case "final":
		if r.Bench != nil && len(r.Bench.Rates[r.TableMetric].Series) == 0 {
			return "the tool's figure (no intervals)"
		}
		return "final report (no interval after the warm-up)"
	case "none":
		return ""
	}
	return how
}

// PctlName is "p95" for rank 95, "pNN" when unknown.
func PctlName(rank int) string {
	if rank <= 0 {
		return "pNN"
	}
	return "p" + strconv.Itoa(rank)
}

// Summary is the short text `orch report` prints: per table its baseline
// and verdicts.
func Summary(rep *judge.Report) string {
	var b strings.Builder
	if w := warmupSummary(rep); w != "" {
		b.WriteString(w + "\n")
	}
	for _, t := range rep.Tables {
		bl := t.Baseline
		fmt.Fprintf(&b, "%s (%s, %s): baseline %s: ", t.Workload, t.Tool, t.MetricWords(), bl.Label)
		b.WriteString(levelText(t, bl))
		if analyse.Known(bl.Replica) {
			b.WriteString("; " + judge.ReplicaText(bl))
		}
		b.WriteString("\n")
		for _, g := range t.Groups {
			if g.Verdict != "" && g.Rate.N > 0 {
				fmt.Fprintf(&b, "  %s\n", g.Verdict)
			}
		}
		if t.Floor != nil {
			fmt.Fprintf(&b, "  %s\n", t.Floor.Note())
		}
		for _, l := range t.FairnessLines() {
			fmt.Fprintf(&b, "  %s\n", l)
		}
		for _, r := range t.Runs {
			if r.Usable() && len(r.Flags) > 0 {
				fmt.Fprintf(&b, "  flagged: %s: %s\n", r.ID, strings.Join(r.Flags, "; "))
			}
		}
		// Runs left out still have figures worth a glance (an interrupted
		// run reported alone would otherwise show nothing).
		for _, r := range t.Runs {
			if r.Usable() {
				continue
			}
			state := r.State
			if state == "" {
				state = "incomplete output"
			}
			if r.Error != "" && r.Error != state {
				state += ": " + r.Error
			}
			if r.Bench == nil && r.State == load.StateOK {
				state += ": no benchmark result"
			}
			fmt.Fprintf(&b, "  not in the statistics: %s (%s)", r.ID, state)
			if v, _ := t.SteadyOf(r); !math.IsNaN(v) {
				fmt.Fprintf(&b, ": %s %s", analyse.Num(v, 2), t.Metric)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// printedText is ", 19/20 interval lines printed" when the client printed
// fewer interval lines than its run's length holds (the last one races the
// run's end and is often lost: not flagged, but not hidden either); "" when
// it printed them all or the length is unknown.
func printedText(r *load.Run) string {
	rt, ok := analyse.BenchRate(r, r.TableMetric)
	if !ok || rt.PlotOnly || len(rt.Series) == 0 || r.Bench == nil || math.IsNaN(r.Bench.DurationS) {
		return ""
	}
	of := int(math.Floor(r.Bench.DurationS/load.StepOf(rt.Series) + 0.01))
	if n := len(rt.Series); n < of {
		return fmt.Sprintf(", %d/%d interval lines printed", n, of)
	}
	return ""
}
