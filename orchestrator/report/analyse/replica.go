package analyse

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// Thresholds of "the replicas kept up".
const (
	// MaxCatchUpShare: a catch-up longer than this share of the run means
	// the run's rate was not sustained by the cluster.
	MaxCatchUpShare = 0.10
	// MaxLagGrowthShare: lag growing faster than this share of the
	// master's commit rate over the window's last EndTrendS seconds is a
	// replica falling behind, not a transient it was recovering from.
	MaxLagGrowthShare = 0.05
	// EndTrendS: the seconds at the window's end whose lag trend says
	// whether a run's replicas were keeping up when it ended.
	EndTrendS = 5.0
)

// EmptyReplicaFigures has every figure unknown.
func EmptyReplicaFigures() load.ReplicaFigures {
	n := math.NaN()
	return load.ReplicaFigures{MasterTxPS: n, ApplyTxPS: n, LagEndTx: n, LagEndS: n, LagGrowthTxPS: n, EndSlopeTxPS: n, EndLagTx: n,
		PeakLagTx: n, PeakAtS: n, PeakFromS: n, CatchUpS: n, RunS: n, Sustained: n}
}

// Known reports whether the run had replicas to account for.
func Known(f load.ReplicaFigures) bool { return f.Has }

// KeptUp reports whether one run's replicas sustained the master's rate:
// every slave caught up, none fell behind over the window's last
// EndTrendS seconds (EndBehind), and catch-up took at most
// MaxCatchUpShare of the run. Unknown figures do not count against it. It
// judges a run, never a mean of runs: a configuration says how many of
// its runs fell behind (ReplicaRuns).
func KeptUp(f load.ReplicaFigures) bool {
	if f.NotCaughtUp || f.EndBehind {
		return false
	}
	if !math.IsNaN(f.CatchUpS) && !math.IsNaN(f.RunS) && f.CatchUpS > MaxCatchUpShare*f.RunS {
		return false
	}
	return true
}

// behindMore says whether a slave with lag (transactions at the window's
// end) and growth (its slope through the window) is further behind than
// the worst so far. Slaves often tie at the end (both caught up, lag 0):
// then the one whose lag grew fastest (fell slowest) is the worse, and on
// a tie of both, the first by name, so the choice never depends on the
// order the slaves were read in.
func behindMore(lag, growth float64, host string, worstLag, worstGrowth float64, worst string) bool {
	switch {
	case worst == "" || lag > worstLag:
		return true
	case lag < worstLag:
		return false
	case !math.IsNaN(growth) && (math.IsNaN(worstGrowth) || growth > worstGrowth):
		return true
	case growth == worstGrowth || math.IsNaN(growth) && math.IsNaN(worstGrowth):
		return host < worst
	}
	return false
}

// ReplicaFigures computes a run's replica figures over its window w;
// steady is the run's steady rate in the table's metric over w.
func ReplicaFigures(r *load.Run, w load.Window, steady float64) load.ReplicaFigures {
	f := EmptyReplicaFigures()
	f.RunS = lengthS(w)
	if len(r.Replicas) == 0 {
		return f
	}
	f.Has = true
	f.MasterTxPS = r.Master.Rate("gtid_tx_ps", w)
	f.CatchUpS = 0
	f.AtFirstLook = true
	worstLag := math.Inf(-1)
	for _, rp := range r.Replicas {
		if a := rp.My.Rate("gtid_tx_ps", w); !math.IsNaN(a) && (math.IsNaN(f.ApplyTxPS) || a < f.ApplyTxPS) {
			f.ApplyTxPS, f.Slowest = a, rp.Host
		}
		notePeak(&f, rp, w)
		if lag := rp.My.Last("lag_tx", w); !math.IsNaN(lag) {
			growth := slope(rp.My.Points("lag_tx", w))
			if behindMore(lag, growth, rp.Host, worstLag, f.LagGrowthTxPS, f.Worst) {
				worstLag, f.Worst = lag, rp.Host
				f.LagEndTx, f.LagEndS = lag, rp.My.Last("lag_s", w)
				f.LagGrowthTxPS = growth
			}
		}
		if math.IsNaN(rp.CatchUpS) {
			f.CatchUpS = math.NaN()
		} else if !math.IsNaN(f.CatchUpS) {
			f.CatchUpS = math.Max(f.CatchUpS, rp.CatchUpS)
		}
		if !math.IsNaN(rp.CatchUpS) && !rp.CaughtUp {
			f.NotCaughtUp = true
		}
		f.AtFirstLook = f.AtFirstLook && rp.BehindTx == 0
	}
	if !math.IsNaN(f.CatchUpS) && f.RunS > 0 && !f.NotCaughtUp {
		f.Sustained = steady * f.RunS / (f.RunS + f.CatchUpS)
	}
	return f
}

// notePeak keeps rp's lag figures of the window if they are the worst so
// far: its slope over the window's last EndTrendS seconds and its peak.
func notePeak(f *load.ReplicaFigures, rp load.Replica, w load.Window) {
	pts := rp.My.Points("lag_tx", w)
	if len(pts) == 0 {
		return
	}
	s, lag, behind := EndTrend(pts, f.MasterTxPS, f.RunS)
	if !math.IsNaN(s) && (behind && !f.EndBehind || behind == f.EndBehind && (math.IsNaN(f.EndSlopeTxPS) || s > f.EndSlopeTxPS)) {
		f.EndSlopeTxPS, f.EndLagTx, f.EndBehind = s, lag, behind
	}
	peak := 0
	for i, p := range pts {
		if p.V > pts[peak].V {
			peak = i
		}
	}
	if !math.IsNaN(f.PeakLagTx) && pts[peak].V <= f.PeakLagTx {
		return
	}
	from := pts[0].T
	for i := peak - 1; i >= 0; i-- {
		if pts[i].V <= pts[peak].V/10 {
			from = pts[i].T
			break
		}
	}
	f.PeakLagTx, f.PeakAtS, f.PeakFromS, f.PeakHost = pts[peak].V, pts[peak].T, from, rp.Host
}

// EndTrend is a slave's lag slope over the last EndTrendS seconds of its
// window's lag points, its lag at the last, and whether that is falling
// behind (ReplicaFigures.EndBehind) for a master committing masterTxPS
// over a window of runS seconds.
func EndTrend(pts []load.Point, masterTxPS, runS float64) (s, lag float64, behind bool) {
	end := pts[len(pts)-1].T
	var tail []load.Point
	for _, p := range pts {
		if p.T >= end-EndTrendS {
			tail = append(tail, p)
		}
	}
	s, lag = slope(tail), pts[len(pts)-1].V
	return s, lag, s > MaxLagGrowthShare*masterTxPS && lag > MaxCatchUpShare*runS*masterTxPS
}

// slope is the least-squares slope of the points (per second); NaN with
// fewer than three.
func slope(ps []load.Point) float64 {
	var sx, sy, sxx, sxy, n float64
	for _, p := range ps {
		sx, sy, sxx, sxy, n = sx+p.T, sy+p.V, sxx+p.T*p.T, sxy+p.T*p.V, n+1
	}
	d := n*sxx - sx*sx
	if n < 3 || d == 0 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / d
}

// ReplicaRuns are a configuration's runs judged one by one.
type ReplicaRuns struct {
	// N runs had replica figures; Behind of them fell behind.
	N, Behind int
	// Worst is the run that fell furthest behind (nil when none did):
	// never caught up, else the steepest lag at its window's end.
	Worst *load.Run
	// Peak is the run whose slave lagged most in its window.
	Peak *load.Run
	// MaxCatchUpS is the longest catch-up after the load of any run (NaN:
	// none measured); NotCaughtUp: a slave of some run never caught up.
	MaxCatchUpS float64
	NotCaughtUp bool
	// AtFirstLook: in every run every slave had caught up when orch first
	// looked (ReplicaFigures.AtFirstLook).
	AtFirstLook bool
	// CatchingUp counts the runs whose slave applied a backlog from
	// before the window (ReplicaFigures.caughtUpInWindow): their apply
	// rate is not the master's pace.
	CatchingUp int
}

// SlaveLags reads the monitor series under dir (timeseries/<host>-mysql.csv)
// of the master and the slaves named and returns each slave's lag at its
// samples as the report reads it: (elapsed_s, transactions) with the
// master's position interpolated at the slave's sample time; NaN where it
// is not known. The monitors' lab test holds it against the master's
// position polled every few milliseconds on the same clock.
func SlaveLags(dir, master string, slaves []string) (map[string][]load.Point, error) {
	m, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesMySQL(master)))
	if err != nil {
		return nil, err
	}
	knots, hold := load.MasterKnots(m, load.FinalPosition{At: math.NaN()})
	out := map[string][]load.Point{}
	for _, h := range slaves {
		s, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesMySQL(h)))
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, fmt.Errorf("%s: no mysql series in %s", h, dir)
		}
		load.InstantLag(s, knots, hold)
		for _, r := range s.Rows {
			out[h] = append(out[h], load.Point{T: s.Value(r, "elapsed_s"), V: s.Value(r, "lag_tx")})
		}
	}
	return out, nil
}
