package report

import (
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// Replica is what one slave did during a run, from its monitor time series
// (timeseries/<host>-mysql.csv: gtid_tx_ps, lag_tx, lag_s) and the
// catch-up wait after the benchmark (results.json catch_up).
type Replica struct {
	Host string
	// my is the slave's mysql.csv on the load's clock (nil: none).
	my *series
	// CatchUpS is how long the slave took after the benchmark to apply
	// the master's last transaction: catch_up_ns (from the load's end)
	// when recorded, else the wait's own time (NaN when not waited for).
	// BehindTx is how far behind it was when the wait began (NaN: not
	// recorded).
	CatchUpS, BehindTx float64
	CaughtUp           bool
}

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

// ReplicaFigures sums up the replicas of one run (or, averaged, of a
// configuration) over the run's window. Rates are transactions per
// second; NaN when unknown.
type ReplicaFigures struct {
	// MasterTxPS is the master's commit rate (gtid_tx_ps) over the window;
	// ApplyTxPS the slowest slave's (Slowest) apply rate over it, both
	// counter deltas over the seconds they cover.
	MasterTxPS, ApplyTxPS float64
	Slowest               string
	// Worst is the slave furthest behind at the window's end; LagEndTx and
	// LagEndS its lag then, LagGrowthTxPS how fast its own lag grew through
	// the window (least-squares slope; negative: it shrank).
	Worst                            string
	LagEndTx, LagEndS, LagGrowthTxPS float64
	// EndSlopeTxPS is a slave's lag slope over the window's last
	// EndTrendS seconds (least squares; negative: shrinking) and EndLagTx
	// its lag at the window's end: the steepest slave's, or one that fell
	// behind (EndBehind: its lag grew by more than MaxLagGrowthShare of
	// the master's rate and was, at the end, more than the master commits
	// in MaxCatchUpShare of the window, so neither a blip nor a backlog of
	// a fraction of a second): the per-run test of keeping up.
	EndSlopeTxPS, EndLagTx float64
	EndBehind              bool
	// PeakLagTx is the largest lag of any slave in the window (PeakHost),
	// at load second PeakAtS, rising since PeakFromS (its last sample
	// before the peak at most a tenth of it).
	PeakLagTx, PeakAtS, PeakFromS float64
	PeakHost                      string
	// CatchUpS is the time after the benchmark until every slave had
	// applied the master's last transaction.
	CatchUpS float64
	// RunS is the window's length (seconds it covers, exclusions out).
	RunS float64
	// Sustained is the cluster's rate in the table's metric: what the
	// window's steady rate did over the window plus catch-up time, so
	// never above the steady rate.
	Sustained float64
	// NotCaughtUp is set when a slave never caught up. AtFirstLook is set
	// when every slave had already applied the master's last transaction
	// when orch first looked (behind_at_wait_tx 0): CatchUpS is then when
	// it looked, an upper bound, not how long applying the backlog took.
	NotCaughtUp, AtFirstLook bool
	// Has is set when the run had replicas to account for.
	Has bool
}

// emptyReplicaFigures has every figure unknown.
func emptyReplicaFigures() ReplicaFigures {
	n := math.NaN()
	return ReplicaFigures{MasterTxPS: n, ApplyTxPS: n, LagEndTx: n, LagEndS: n, LagGrowthTxPS: n, EndSlopeTxPS: n, EndLagTx: n,
		PeakLagTx: n, PeakAtS: n, PeakFromS: n, CatchUpS: n, RunS: n, Sustained: n}
}

// Known reports whether the run had replicas to account for.
func (f ReplicaFigures) Known() bool { return f.Has }

// KeptUp reports whether one run's replicas sustained the master's rate:
// every slave caught up, none fell behind over the window's last
// EndTrendS seconds (EndBehind), and catch-up took at most
// MaxCatchUpShare of the run. Unknown figures do not count against it. It
// judges a run, never a mean of runs: a configuration says how many of
// its runs fell behind (ReplicaRuns).
func (f ReplicaFigures) KeptUp() bool {
	if f.NotCaughtUp || f.EndBehind {
		return false
	}
	if !math.IsNaN(f.CatchUpS) && !math.IsNaN(f.RunS) && f.CatchUpS > MaxCatchUpShare*f.RunS {
		return false
	}
	return true
}

// readReplicas reads each slave's series and the master's, on the load's
// clock (offset: the load's start on the monitors' clock).
// Each slave's lag_tx is recomputed at its samples' instants (instantLag)
// against the master's positions and its final one.
func readReplicas(dir string, roles map[string]string, catchUp map[string]catchUpDoc, offset float64, final finalPosition) ([]Replica, *series, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.Dir(schema.TimeseriesMySQL("x")), "*-mysql.csv"))
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	var out []Replica
	var master *series
	for _, f := range files {
		host := strings.TrimSuffix(filepath.Base(f), "-mysql.csv")
		role := roles[host]
		if role == "" && host == "master" {
			role = "master"
		}
		my, err := readSeries(f)
		if err != nil || my == nil {
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		my.offset, my.applier = offset, role != "master"
		if role == "master" {
			master = my
			continue
		}
		if _, hasLag := my.col["lag_tx"]; role != "slave" && (!hasLag || len(my.points("lag_tx", allTime)) == 0) {
			continue // older manifests without roles: only slaves have lag
		}
		out = append(out, newReplica(host, my, catchUp))
	}
	knots, hold := masterKnots(master, final)
	for _, rp := range out {
		instantLag(rp.my, knots, hold)
	}
	// A slave waited for but without a time series still counts.
	for _, h := range sortedKeys(catchUp) {
		if !slices.ContainsFunc(out, func(r Replica) bool { return r.Host == h }) {
			out = append(out, newReplica(h, nil, catchUp))
		}
	}
	return out, master, nil
}

// allTime is a window that keeps every sample.
var allTime = loadWindow(math.Inf(-1), math.Inf(1))

func newReplica(host string, my *series, catchUp map[string]catchUpDoc) Replica {
	rp := Replica{Host: host, my: my, CatchUpS: math.NaN(), BehindTx: math.NaN()}
	if cu, ok := catchUp[host]; ok {
		rp.CatchUpS, rp.CaughtUp = float64(cu.WaitedNS)/1e9, cu.CaughtUp
		if cu.CatchUpNS != nil {
			rp.CatchUpS = float64(*cu.CatchUpNS) / 1e9
		}
		if cu.BehindTx != nil {
			rp.BehindTx = float64(*cu.BehindTx)
		}
	}
	return rp
}

// catchUpDoc is one slave of results.json's catch_up.
type catchUpDoc struct {
	Host     string `json:"host"`
	WaitedNS int64  `json:"waited_ns"`
	CaughtUp bool   `json:"caught_up"`
	// CatchUpNS: from the load's end until the slave had applied the
	// master's final position; BehindTx: transactions behind when the
	// wait began (newer runs).
	CatchUpNS *int64 `json:"catch_up_ns"`
	BehindTx  *int64 `json:"behind_at_wait_tx"`
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

// replicaFigures computes a run's replica figures over its window w;
// steady is the run's steady rate in the table's metric over w.
func (r *Run) replicaFigures(w Window, steady float64) ReplicaFigures {
	f := emptyReplicaFigures()
	f.RunS = w.lengthS()
	if len(r.Replicas) == 0 {
		return f
	}
	f.Has = true
	f.MasterTxPS = r.master.rate("gtid_tx_ps", w)
	f.CatchUpS = 0
	f.AtFirstLook = true
	worstLag := math.Inf(-1)
	for _, rp := range r.Replicas {
		if a := rp.my.rate("gtid_tx_ps", w); !math.IsNaN(a) && (math.IsNaN(f.ApplyTxPS) || a < f.ApplyTxPS) {
			f.ApplyTxPS, f.Slowest = a, rp.Host
		}
		f.notePeak(rp, w)
		if lag := rp.my.last("lag_tx", w); !math.IsNaN(lag) {
			growth := slope(rp.my.points("lag_tx", w))
			if behindMore(lag, growth, rp.Host, worstLag, f.LagGrowthTxPS, f.Worst) {
				worstLag, f.Worst = lag, rp.Host
				f.LagEndTx, f.LagEndS = lag, rp.my.last("lag_s", w)
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
func (f *ReplicaFigures) notePeak(rp Replica, w Window) {
	pts := rp.my.points("lag_tx", w)
	if len(pts) == 0 {
		return
	}
	s, lag, behind := endTrend(pts, f.MasterTxPS, f.RunS)
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

// endTrend is a slave's lag slope over the last EndTrendS seconds of its
// window's lag points, its lag at the last, and whether that is falling
// behind (ReplicaFigures.EndBehind) for a master committing masterTxPS
// over a window of runS seconds.
func endTrend(pts []Point, masterTxPS, runS float64) (s, lag float64, behind bool) {
	end := pts[len(pts)-1].T
	var tail []Point
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
func slope(ps []Point) float64 {
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
