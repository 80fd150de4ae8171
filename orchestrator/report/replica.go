package report

import (
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// Replica is what one slave did during a run, from its monitor time series
// (timeseries/<host>-mysql.csv) and the catch-up wait after the benchmark
// (results.json catch_up).
type Replica struct {
	Host string
	// Apply is the slave's applied transactions per second (gtid_tx_ps).
	Apply []Point
	// LagTx and LagS are its lag behind the master in transactions and in
	// seconds (Seconds_Behind_Master), per second.
	LagTx, LagS []Point
	// CatchUpS is how long the slave took after the benchmark to apply
	// the master's last transaction (NaN when not waited for).
	CatchUpS float64
	CaughtUp bool
}

// Thresholds of "the replicas kept up".
const (
	// MaxCatchUpShare: a catch-up longer than this share of the run means
	// the run's rate was not sustained by the cluster.
	MaxCatchUpShare = 0.10
	// MaxLagGrowthShare: lag growing faster than this share of the
	// master's commit rate through the steady state is a replica falling
	// behind without bound, not a transient.
	MaxLagGrowthShare = 0.05
)

// ReplicaFigures sums up the replicas of one run (or, averaged, of a
// configuration). Rates are transactions per second; NaN when unknown.
type ReplicaFigures struct {
	// MasterTxPS is the master's commit rate (gtid_tx_ps) over the steady
	// state; ApplyTxPS the slowest slave's apply rate over the same window.
	MasterTxPS, ApplyTxPS float64
	// LagEndTx and LagEndS are the worst slave's lag when the benchmark
	// ended; LagGrowthTxPS is how fast the worst slave's lag grew through
	// the steady state (least-squares slope; negative: it shrank).
	LagEndTx, LagEndS, LagGrowthTxPS float64
	// CatchUpS is the time after the benchmark until every slave had
	// applied the master's last transaction.
	CatchUpS float64
	// RunS is the benchmark's duration.
	RunS float64
	// Sustained is the cluster's rate in the table's metric: everything
	// the benchmark did over run time plus catch-up time.
	Sustained float64
	// NotCaughtUp is set when a slave never caught up.
	NotCaughtUp bool
	// Has is set when the run had replicas to account for.
	Has bool
}

// emptyReplicaFigures has every figure unknown.
func emptyReplicaFigures() ReplicaFigures {
	n := math.NaN()
	return ReplicaFigures{MasterTxPS: n, ApplyTxPS: n, LagEndTx: n, LagEndS: n, LagGrowthTxPS: n, CatchUpS: n, RunS: n, Sustained: n}
}

// Known reports whether the run had replicas to account for.
func (f ReplicaFigures) Known() bool { return f.Has }

// KeptUp reports whether the replicas sustained the master's rate: lag did
// not grow through the steady state by more than MaxLagGrowthShare of the
// master's rate, and catch-up took at most MaxCatchUpShare of the run.
// Unknown figures do not count against it.
func (f ReplicaFigures) KeptUp() bool {
	if f.NotCaughtUp {
		return false
	}
	if !math.IsNaN(f.LagGrowthTxPS) && !math.IsNaN(f.MasterTxPS) && f.LagGrowthTxPS > MaxLagGrowthShare*f.MasterTxPS {
		return false
	}
	if !math.IsNaN(f.CatchUpS) && !math.IsNaN(f.RunS) && f.CatchUpS > MaxCatchUpShare*f.RunS {
		return false
	}
	return true
}

// readReplicas reads each slave's series and the master's commit rate.
func readReplicas(dir string, roles map[string]string, catchUp map[string]catchUpDoc) ([]Replica, []Point, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.Dir(rundir.TimeseriesMySQL("x")), "*-mysql.csv"))
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	var out []Replica
	var master []Point
	for _, f := range files {
		host := strings.TrimSuffix(filepath.Base(f), "-mysql.csv")
		role := roles[host]
		if role == "" && host == "master" {
			role = "master"
		}
		apply, err := csvColumn(f, "gtid_tx_ps")
		if err != nil {
			return nil, nil, err
		}
		if role == "master" {
			master = apply
			continue
		}
		lagTx, err := csvColumn(f, "lag_tx")
		if err != nil {
			return nil, nil, err
		}
		if role != "slave" && len(lagTx) == 0 {
			continue // older manifests without roles: only slaves have lag
		}
		lagS, err := csvColumn(f, "lag_s")
		if err != nil {
			return nil, nil, err
		}
		rp := Replica{Host: host, Apply: apply, LagTx: lagTx, LagS: lagS, CatchUpS: math.NaN()}
		if cu, ok := catchUp[host]; ok {
			rp.CatchUpS, rp.CaughtUp = float64(cu.WaitedNS)/1e9, cu.CaughtUp
		}
		out = append(out, rp)
	}
	// A slave waited for but without a time series still counts.
	for _, h := range sortedKeys(catchUp) {
		if !slices.ContainsFunc(out, func(r Replica) bool { return r.Host == h }) {
			cu := catchUp[h]
			out = append(out, Replica{Host: h, CatchUpS: float64(cu.WaitedNS) / 1e9, CaughtUp: cu.CaughtUp})
		}
	}
	return out, master, nil
}

// catchUpDoc is one slave of results.json's catch_up.
type catchUpDoc struct {
	Host     string `json:"host"`
	WaitedNS int64  `json:"waited_ns"`
	CaughtUp bool   `json:"caught_up"`
}

// replicaFigures computes a run's replica figures with its steady state
// starting after warmupS; total is what the benchmark did in the table's
// metric (rate × duration) and runS its duration.
func (r *Run) replicaFigures(warmupS, total, runS float64) ReplicaFigures {
	f := emptyReplicaFigures()
	f.RunS = runS
	if len(r.Replicas) == 0 {
		return f
	}
	f.Has = true
	f.MasterTxPS = meanAfter(r.MasterTx, warmupS)
	f.CatchUpS = 0
	for _, rp := range r.Replicas {
		f.ApplyTxPS = minNaN(f.ApplyTxPS, meanAfter(rp.Apply, warmupS))
		if n := len(rp.LagTx); n > 0 {
			f.LagEndTx = maxNaN(f.LagEndTx, rp.LagTx[n-1].V)
		}
		if n := len(rp.LagS); n > 0 {
			f.LagEndS = maxNaN(f.LagEndS, rp.LagS[n-1].V)
		}
		f.LagGrowthTxPS = maxNaN(f.LagGrowthTxPS, slopeAfter(rp.LagTx, warmupS))
		if math.IsNaN(rp.CatchUpS) {
			f.CatchUpS = math.NaN()
		} else if !math.IsNaN(f.CatchUpS) {
			f.CatchUpS = math.Max(f.CatchUpS, rp.CatchUpS)
		}
		if !math.IsNaN(rp.CatchUpS) && !rp.CaughtUp {
			f.NotCaughtUp = true
		}
	}
	if !math.IsNaN(f.CatchUpS) && runS > 0 && !f.NotCaughtUp {
		f.Sustained = total / (runS + f.CatchUpS)
	}
	return f
}

// meanAfter is the mean of the points after t0, or of all of them when
// the warm-up covers the whole series (a run shorter than a fixed
// warm-up); NaN when there are none.
func meanAfter(ps []Point, t0 float64) float64 {
	t0 = within(ps, t0)
	var xs []float64
	for _, p := range ps {
		if p.T > t0 {
			xs = append(xs, p.V)
		}
	}
	return meanOf(xs)
}

// within returns t0, or -1 (everything) when no point is after t0.
func within(ps []Point, t0 float64) float64 {
	for _, p := range ps {
		if p.T > t0 {
			return t0
		}
	}
	return -1
}

// slopeAfter is the least-squares slope of the points after t0 (per
// second); NaN with fewer than three.
func slopeAfter(ps []Point, t0 float64) float64 {
	t0 = within(ps, t0)
	var sx, sy, sxx, sxy, n float64
	for _, p := range ps {
		if p.T <= t0 || math.IsNaN(p.V) {
			continue
		}
		sx, sy, sxx, sxy, n = sx+p.T, sy+p.V, sxx+p.T*p.T, sxy+p.T*p.V, n+1
	}
	d := n*sxx - sx*sx
	if n < 3 || d == 0 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / d
}

func minNaN(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}
