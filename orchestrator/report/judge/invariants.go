package judge

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Invariants a run's figures must satisfy. A run that violates one keeps
// its figures but is flagged in the Runs table, results.csv and the n of
// its configuration: never silently averaged.
const (
	// MaxClientServerGap: the client's transaction rate and the master's
	// commit rate over the same window differ by at most this share (one
	// commit per transaction: a bigger gap means one of them did not
	// measure the load), beyond what the master's samples cannot place
	// at the window's ends (masterEdgeShare: a 2 s window of a run whose
	// rate swings by a third between seconds can be 5% off, a 60 s one
	// 0.1%).
	MaxClientServerGap = 0.01
	// MaxCatchUpSpeedup: a catch-up that implies applying the final lag
	// this many times faster than any apply rate the slave showed is not
	// a catch-up time (it was measured from too late a start).
	MaxCatchUpSpeedup = 3.0
	// sustainedSlack is rounding: sustained may exceed steady by this share.
	sustainedSlack = 0.005
)

// CheckInvariants sets r.Flags from its figures (after runReplicas).
func (t *Table) CheckInvariants(r *load.Run) {
	r.Flags = nil
	if r.Bench == nil {
		return
	}
	if d := r.Bench.IntervalsDropped; d > 0 {
		r.Flags = append(r.Flags, fmt.Sprintf("long: %d interval lines after the first %d not kept; its figures end there", d, bench.MaxIntervals))
	} else if miss, of := MissingIntervals(r, t.Metric); miss > 0 {
		r.Flags = append(r.Flags, fmt.Sprintf("incomplete: %d of %d intervals missing", miss, of))
	}
	steady, _ := t.SteadyOf(r)
	f := r.Repl
	if !t.LowerIsBetter && f.Sustained > steady*(1+sustainedSlack) {
		r.Flags = append(r.Flags, fmt.Sprintf("sustained %s above steady %s", analyse.Num(f.Sustained, 2), analyse.Num(steady, 2)))
	}
	if tps, how := r.Bench.Steady(load.MetricTPS, r.Win); how == "intervals" && f.MasterTxPS > 0 && tps > 0 {
		if gap, edges := math.Abs(tps/f.MasterTxPS-1), MasterEdgeShare(r, f.MasterTxPS); gap > MaxClientServerGap+edges {
			allow := ""
			if edges >= 0.0005 {
				// No "; ": results.csv's flags column is "; "-separated.
				allow = fmt.Sprintf(", beyond the %s allowed, %s of it for the window's ends inside the master's samples", analyse.PctFixed(MaxClientServerGap+edges), analyse.PctFixed(edges))
			}
			r.Flags = append(r.Flags, fmt.Sprintf("client %s tps vs master %s tx/s in the window (%s apart%s)", analyse.Num(tps, 0), analyse.Num(f.MasterTxPS, 0), analyse.PctFixed(gap), allow))
		}
	}
	for _, rp := range r.Replicas {
		if s := CatchUpFlag(rp, r.Win); s != "" {
			r.Flags = append(r.Flags, s)
		}
	}
}

// MasterEdgeShare is the share of the master's commits over the run's
// window that its samples cannot place at the window's ends, had the
// commits moved second by second as the client's transactions did (0
// without a master series or client intervals).
func MasterEdgeShare(r *load.Run, rate float64) float64 {
	if r.Master == nil || r.Bench == nil || !(rate > 0) {
		return 0
	}
	rt, ok := r.Bench.Rates[load.MetricTPS]
	if !ok || rt.PlotOnly || len(rt.Series) == 0 {
		return 0
	}
	_, secs, ok := r.Master.Total("gtid_tx_ps", r.Win)
	if !ok {
		return 0
	}
	step, off := load.StepOf(rt.Series), r.Win.ClientOffsetS
	// The client's transactions in load seconds a..b, and the seconds of
	// them its intervals hold.
	client := func(a, b float64) (n, known float64) {
		for _, p := range rt.Series {
			if lo, hi := math.Max(a, p.T-step+off), math.Min(b, p.T+off); hi > lo && !math.IsNaN(p.V) {
				n, known = n+p.V*(hi-lo), known+hi-lo
			}
		}
		return n, known
	}
	return r.Master.EdgeError("gtid_tx_ps", r.Win, client) / (rate * secs)
}

// MissingIntervals is how many of the intervals the client should have
// printed over its duration it did not (0 when it cannot tell).
func MissingIntervals(r *load.Run, metric string) (missing, of int) {
	rt, ok := analyse.BenchRate(r, metric)
	if !ok || rt.PlotOnly || len(rt.Series) == 0 || math.IsNaN(r.Bench.DurationS) {
		return 0, 0
	}
	step := load.StepOf(rt.Series)
	of = int(math.Floor(r.Bench.DurationS/step + 0.01))
	// sysbench's report at the very end of the run races the run's end and
	// is often not printed (t=1..9 of a 10 s run, on the lab one run in
	// three): a series that stops one step short has measured everything.
	// A gap inside the series, or more than the last missing, is not that.
	if last := rt.Series[len(rt.Series)-1].T; of > 1 && math.Abs(last-float64(of-1)*step) < step/2 {
		of--
	}
	return max(0, of-len(rt.Series)), of
}

// CatchUpFlag says when a slave's catch-up is inconsistent with its lag at
// the window's end: applying it in that time would take an apply rate far
// above any the slave showed.
func CatchUpFlag(rp load.Replica, w load.Window) string {
	if math.IsNaN(rp.CatchUpS) || !rp.CaughtUp {
		return ""
	}
	lag := rp.BehindTx
	if math.IsNaN(lag) {
		lag = rp.My.Last("lag_tx", w)
	}
	fastest := rp.My.Max("gtid_tx_ps", load.AllTime)
	if math.IsNaN(lag) || lag <= 0 || math.IsNaN(fastest) || fastest <= 0 {
		return ""
	}
	implied := math.Inf(1)
	if rp.CatchUpS > 0 {
		implied = lag / rp.CatchUpS
	}
	if implied <= MaxCatchUpSpeedup*fastest {
		return ""
	}
	return fmt.Sprintf("catch-up %s of %s with %s tx behind implies %s tx/s, above %sx the fastest apply seen (%s tx/s)",
		secs(rp.CatchUpS), rp.Host, Kilo(lag), Kilo(implied), strconv.FormatFloat(MaxCatchUpSpeedup, 'f', -1, 64), Kilo(fastest))
}

// FlagText is the Runs table's invariants cell.
func FlagText(r *load.Run) string {
	if r.Bench == nil {
		return "—"
	}
	if len(r.Flags) == 0 {
		return "ok"
	}
	return "FLAGGED: " + strings.Join(r.Flags, "; ")
}

// SteadyCell is a run's steady rate, saying when intervals are missing.
func SteadyCell(v float64, r *load.Run) string {
	s := analyse.Num(v, 2)
	for _, f := range r.Flags {
		if strings.HasPrefix(f, "incomplete: ") {
			s += " (" + f + ")"
		}
	}
	return s
}

// Flagged counts a group's runs in the statistics that violate an
// invariant.
func (g *Group) Flagged() int {
	n := 0
	for _, r := range g.Runs {
		if r.Usable() && len(r.Flags) > 0 {
			n++
		}
	}
	return n
}

// NText is the Configurations n cell: "2", or "2 (1 flagged)".
func NText(g *Group) string {
	s := strconv.Itoa(g.Rate.N)
	if k := g.Flagged(); k > 0 {
		s += fmt.Sprintf(" (%d flagged)", k)
	}
	return s
}
