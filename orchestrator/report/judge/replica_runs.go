package judge

import (
	"fmt"
	"math"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// JudgeRuns counts the runs (with replica figures) that fell behind.
func JudgeRuns(runs []*load.Run) analyse.ReplicaRuns {
	out := analyse.ReplicaRuns{MaxCatchUpS: math.NaN(), AtFirstLook: true}
	for _, r := range runs {
		f := r.Repl
		if !analyse.Known(f) {
			continue
		}
		out.N++
		out.MaxCatchUpS = load.MaxNaN(out.MaxCatchUpS, f.CatchUpS)
		out.NotCaughtUp = out.NotCaughtUp || f.NotCaughtUp
		out.AtFirstLook = out.AtFirstLook && f.AtFirstLook
		if caughtUpInWindow(f) {
			out.CatchingUp++
		}
		if f.PeakHost != "" && !math.IsNaN(f.PeakLagTx) && (out.Peak == nil || f.PeakLagTx > out.Peak.Repl.PeakLagTx) {
			out.Peak = r
		}
		if analyse.KeptUp(f) {
			continue
		}
		out.Behind++
		if out.Worst == nil || worseBehind(f, out.Worst.Repl) {
			out.Worst = r
		}
	}
	return out
}

// worseBehind: a slave that never caught up is worst; then the steeper
// lag at the window's end; then the longer catch-up.
func worseBehind(f, than load.ReplicaFigures) bool {
	if f.NotCaughtUp != than.NotCaughtUp {
		return f.NotCaughtUp
	}
	if f.EndBehind != than.EndBehind {
		return f.EndBehind
	}
	a, b := nanTo(f.EndSlopeTxPS, math.Inf(-1)), nanTo(than.EndSlopeTxPS, math.Inf(-1))
	if a != b {
		return a > b
	}
	return nanTo(f.CatchUpS, 0) > nanTo(than.CatchUpS, 0)
}

func nanTo(v, def float64) float64 {
	if math.IsNaN(v) {
		return def
	}
	return v
}

// BehindWhy says why one run fell behind: "lag grew 1.1k tx/s over the
// window's last 5 s", "never caught up", "catch-up 38 s (over 10% of
// the 20 s window)".
func BehindWhy(f load.ReplicaFigures) string {
	switch {
	case f.NotCaughtUp:
		return "never caught up"
	case f.EndBehind:
		return fmt.Sprintf("lag grew %s tx/s over the window's last %s s, to %s tx", Kilo(f.EndSlopeTxPS), analyse.Num(analyse.EndTrendS, 0), Kilo(f.EndLagTx))
	}
	return fmt.Sprintf("catch-up %s, over %s of the %s s window", secs(f.CatchUpS), Pct(analyse.MaxCatchUpShare), analyse.Num(f.RunS, 0))
}

// peakPhrase is "peak lag 10.7k tx (06-rocksdb-r2 slave1 at 18.2 s,
// rising from 11.0 s)"; "" without lag figures.
func peakPhrase(r *load.Run) string {
	if r == nil || r.Repl.PeakHost == "" || math.IsNaN(r.Repl.PeakLagTx) {
		return ""
	}
	f := r.Repl
	s := fmt.Sprintf("peak lag %s tx (%s %s at %s s", Kilo(f.PeakLagTx), r.ID, f.PeakHost, analyse.Num(f.PeakAtS, 1))
	if f.PeakLagTx > 0 && f.PeakFromS < f.PeakAtS {
		s += ", rising from " + analyse.Num(f.PeakFromS, 1) + " s"
	}
	return s + ")"
}

// RunsPhrase sums up a configuration's replicas over its runs: "1 of 4
// runs fell behind, worst: 06-rocksdb-r2 (lag grew 1.1k tx/s over the
// window's last 5 s); peak lag 10.7k tx (...); after the load every slave
// caught up within 0.25 s", or "kept up in 4 of 4 runs; ...".
func RunsPhrase(rr analyse.ReplicaRuns) string {
	if rr.N == 0 {
		return "no lag figures"
	}
	var parts []string
	if rr.Behind == 0 {
		parts = append(parts, fmt.Sprintf("kept up in %d of %s", rr.N, Plural(rr.N, "run")))
	} else {
		parts = append(parts, fmt.Sprintf("%d of %s fell behind, worst: %s (%s)", rr.Behind, Plural(rr.N, "run"),
			rr.Worst.ID, BehindWhy(rr.Worst.Repl)))
	}
	if p := peakPhrase(rr.Peak); p != "" {
		parts = append(parts, p)
	}
	if a := afterLoad(rr); a != "" {
		parts = append(parts, a)
	}
	return strings.Join(parts, "; ")
}

// afterLoad is the catch-up, said as what it is: after the load, not
// part of its rates; the longest of the runs'. It counts from when orch
// saw the client end, 0.2-0.7 s after its last commit on the lab, while
// the slaves went on applying: when every slave had caught up at orch's
// first look, the figure is when orch looked, an upper bound, never a
// catch-up time (the lab's "catch-up 67 ms" for ~4,800 transactions of
// backlog implied 72k tx/s, six times any apply rate seen).
func afterLoad(rr analyse.ReplicaRuns) string {
	switch {
	case rr.NotCaughtUp:
		return "after the load a slave never caught up"
	case math.IsNaN(rr.MaxCatchUpS):
		return ""
	case rr.AtFirstLook:
		return "after the load every slave had caught up by orch's first look, " + secs(rr.MaxCatchUpS) + " after it saw the load end"
	}
	return "after the load every slave caught up within " + secs(rr.MaxCatchUpS) + " of orch seeing the load end"
}
