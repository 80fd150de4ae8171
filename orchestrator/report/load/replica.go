package load

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
	My *Series
	// CatchUpS is how long the slave took after the benchmark to apply
	// the master's last transaction: catch_up_ns (from the load's end)
	// when recorded, else the wait's own time (NaN when not waited for).
	// BehindTx is how far behind it was when the wait began (NaN: not
	// recorded).
	CatchUpS, BehindTx float64
	CaughtUp           bool
}

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

// readReplicas reads each slave's series and the master's, on the load's
// clock (offset: the load's start on the monitors' clock).
// Each slave's lag_tx is recomputed at its samples' instants (instantLag)
// against the master's positions and its final one.
func readReplicas(dir string, roles map[string]string, catchUp map[string]catchUpDoc, offset float64, final FinalPosition) ([]Replica, *Series, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.Dir(schema.TimeseriesMySQL("x")), "*-mysql.csv"))
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	var out []Replica
	var master *Series
	for _, f := range files {
		host := strings.TrimSuffix(filepath.Base(f), "-mysql.csv")
		role := roles[host]
		if role == "" && host == "master" {
			role = "master"
		}
		my, err := ReadSeries(f)
		if err != nil || my == nil {
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		my.Offset, my.Applier = offset, role != "master"
		if role == "master" {
			master = my
			continue
		}
		if _, hasLag := my.Col["lag_tx"]; role != "slave" && (!hasLag || len(my.Points("lag_tx", AllTime)) == 0) {
			continue // older manifests without roles: only slaves have lag
		}
		out = append(out, newReplica(host, my, catchUp))
	}
	knots, hold := MasterKnots(master, final)
	for _, rp := range out {
		InstantLag(rp.My, knots, hold)
	}
	// A slave waited for but without a time series still counts.
	for _, h := range SortedKeys(catchUp) {
		if !slices.ContainsFunc(out, func(r Replica) bool { return r.Host == h }) {
			out = append(out, newReplica(h, nil, catchUp))
		}
	}
	return out, master, nil
}

// AllTime is a window that keeps every sample.
var AllTime = LoadWindow(math.Inf(-1), math.Inf(1))

func newReplica(host string, my *Series, catchUp map[string]catchUpDoc) Replica {
	rp := Replica{Host: host, My: my, CatchUpS: math.NaN(), BehindTx: math.NaN()}
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
