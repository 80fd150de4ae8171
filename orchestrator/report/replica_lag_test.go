package report

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// TestLagAtSlaveInstant: on the demo's real run directories, every
// slave sample's lag is the master's position interpolated at the slave's
// time less the slave's, including the samples taken before the master's
// in the same tick, which the monitor's lag_tx compared with the master's
// previous sample. Figures from a script reading gtid_pos (Python, csv
// module), not from this code: 03-rocksdb-r2 slave2's largest lag is
// 5,392 (the monitor said 5,370); 01-innodb-r1 slave1's 2,975 (792).
func TestLagAtSlaveInstant(t *testing.T) {
	for _, c := range []struct {
		cell, slave     string
		max, monitorMax float64
	}{
		{"03-rocksdb-r2", "slave2", 5392, 5370},
		{"01-innodb-r1", "slave1", 2975, 792},
	} {
		dir := filepath.Join(demoDir, "cells", c.cell)
		r, err := load.ReadRunDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := load.ReadSeries(filepath.Join(dir, "timeseries", c.slave+"-mysql.csv"))
		if err != nil {
			t.Fatal(err)
		}
		var rp *load.Replica
		for i := range r.Replicas {
			if r.Replicas[i].Host == c.slave {
				rp = &r.Replicas[i]
			}
		}
		if rp == nil {
			t.Fatalf("%s: no %s", c.cell, c.slave)
		}
		// Within 1% (interpolation over elapsed_s's milliseconds): 10 tx
		// is 1 ms of this master's commits.
		if got := rp.My.Max("lag_tx", load.AllTime); math.Abs(got-c.max) > 0.01*c.max {
			t.Errorf("%s %s: max lag %.0f, want %.0f", c.cell, c.slave, got, c.max)
		}
		if got := raw.Max("lag_tx", load.AllTime); got != c.monitorMax {
			t.Errorf("%s %s: the monitor's own max lag_tx %.0f, want %.0f (fixture changed?)", c.cell, c.slave, got, c.monitorMax)
		}
		if r.Health.MaxLagTx < c.max*0.99 {
			t.Errorf("%s: whole-run max lag %.0f, below %s's %.0f", c.cell, r.Health.MaxLagTx, c.slave, c.max)
		}
		// No sample reads 0 while the slave lacked transactions the
		// master had written before it (the master's previous sample).
		knots, _ := load.MasterKnots(r.Master, load.FinalPosition{At: math.NaN()})
		for i, row := range rp.My.Rows {
			t0, lag := rp.My.Value(row, "elapsed_s"), rp.My.Value(row, "lag_tx")
			if math.IsNaN(lag) {
				continue
			}
			for j := len(knots) - 1; j >= 0; j-- {
				if knots[j].T <= t0 {
					if floor, _ := load.LagAt(knots[:j+1], true, t0, rp.My.Text(row, "gtid_pos")); lag+1 < floor {
						t.Errorf("%s %s row %d: lag %.0f below the lag %.0f against the master's earlier sample", c.cell, c.slave, i, lag, floor)
					}
					break
				}
			}
		}
	}
}

// TestLagAtInterpolates: a slave sampled 0.3 s into the master's second
// (the master read at 10.0 s and 11.0 s, 1,000 transactions apart) lacks
// what the master had at 10.3 s, not at 10.0 s or 11.0 s; with no master
// sample after it and none within 50 ms before, its lag is unknown.
func TestLagAtInterpolates(t *testing.T) {
	knots := []load.MasterKnot{{T: 10, Pos: "0-1-5000", N: 5000}, {T: 11, Pos: "0-1-6000", N: 6000}}
	if got, ok := load.LagAt(knots, false, 10.3, "0-1-4000"); !ok || math.Abs(got-1300) > 1e-9 {
		t.Errorf("lag at 10.3 s = %v %v, want 1300", got, ok)
	}
	if got, ok := load.LagAt(knots, false, 11.02, "0-1-5900"); !ok || got != 100 {
		t.Errorf("lag 20 ms after the master's last sample = %v %v, want 100 against it", got, ok)
	}
	if _, ok := load.LagAt(knots, false, 11.5, "0-1-5900"); ok {
		t.Error("a lag 0.5 s after the master's last sample was read against it")
	}
	if got, ok := load.LagAt(knots, true, 11.5, "0-1-5900"); !ok || got != 100 {
		t.Errorf("after the load's end (final position) = %v %v, want 100", got, ok)
	}
	// MySQL sets interpolate the same way.
	u := "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	mk := []load.MasterKnot{{T: 1, Pos: u + ":1-100", N: 100}, {T: 2, Pos: u + ":1-300", N: 300}}
	if got, ok := load.LagAt(mk, false, 1.5, u+":1-150"); !ok || got != 50 {
		t.Errorf("MySQL lag = %v %v, want 50", got, ok)
	}
}

// TestSlaveApplyEndsWithTheLoad: on a real lab matrix (testdata/lab2026),
// a slave's apply rate over the window is what its own GTID position
// moved over the window's seconds, the sample that straddles the window's
// end counted in proportion: the master's "nothing after the client's
// end" knot is not applied to slaves, which go on applying their backlog
// after the load (counted there, a slave's rate took in its catch-up).
func TestSlaveApplyEndsWithTheLoad(t *testing.T) {
	rep := build(t, analyse.Options{}, filepath.Join("testdata", "lab2026"))
	checked := 0
	for _, g := range rep.Tables[0].Groups {
		for _, r := range g.Runs {
			if !r.Win.LoadQuiet {
				continue // its clock offset was fitted: no knot at the end
			}
			for _, rp := range r.Replicas {
				var c [][2]float64
				for _, row := range rp.My.Rows {
					tt, pos := rp.My.Value(row, "elapsed_s")-rp.My.Offset, rp.My.Text(row, "gtid_pos")
					if n, err := gtidCountOf(pos); err == nil {
						c = append(c, [2]float64{tt, n})
					}
				}
				var moved, secs float64
				for _, sg := range r.Win.Segs {
					moved += interp(c, sg[1]) - interp(c, sg[0])
					secs += sg[1] - sg[0]
				}
				want, got := moved/secs, rp.My.Rate("gtid_tx_ps", r.Win)
				if math.Abs(got/want-1) > 0.002 {
					t.Errorf("%s %s: apply rate %.1f tx/s, its position moved %.1f tx/s over the window", r.ID, rp.Host, got, want)
				}
				checked++
			}
		}
	}
	if checked < 4 {
		t.Errorf("%d slaves checked, want at least 4", checked)
	}
}

// gtidCountOf reads a MariaDB position's sequence ("0-1-4157").
func gtidCountOf(pos string) (float64, error) {
	i := strings.LastIndex(pos, "-")
	if pos == "" || i < 0 {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseFloat(pos[i+1:], 64)
}

// interp is counter c at t, linear between its samples.
func interp(c [][2]float64, t float64) float64 {
	for i := 1; i < len(c); i++ {
		if c[i][0] >= t {
			return c[i-1][1] + (c[i][1]-c[i-1][1])*(t-c[i-1][0])/(c[i][0]-c[i-1][0])
		}
	}
	return c[len(c)-1][1]
}

// TestCatchUpAtFirstLook: in testdata/lab2026's innodb runs every slave
// had applied the master's last transaction when orch first looked
// (behind_at_wait_tx 0, catch_up_ns 8-15 ms): that is when orch looked,
// not a catch-up, and the report says so rather than "catch-up 15 ms".
func TestCatchUpAtFirstLook(t *testing.T) {
	rep := build(t, analyse.Options{}, filepath.Join("testdata", "lab2026"))
	inno := rep.Tables[0].Group("innodb")
	if got := judge.RunsPhrase(inno.ReplicaRuns); !strings.Contains(got, "after the load every slave had caught up by orch's first look, 15 ms after it saw the load end") {
		t.Errorf("innodb: %q", got)
	}
	rocks := rep.Tables[0].Group("rocksdb")
	if got := judge.RunsPhrase(rocks.ReplicaRuns); strings.Contains(got, "first look") || !strings.Contains(got, "caught up within 0.2 s of orch seeing the load end") {
		t.Errorf("rocksdb (a slave 2,523 tx behind at the first look): %q", got)
	}
}

// TestSlaveLagsIsTheReportsReading: the exported reader gives what the
// report reads from the same files (the figures of TestLagAtSlaveInstant).
func TestSlaveLagsIsTheReportsReading(t *testing.T) {
	dir := filepath.Join(demoDir, "cells", "03-rocksdb-r2")
	lags, err := analyse.SlaveLags(dir, "master", []string{"slave1", "slave2"})
	if err != nil {
		t.Fatal(err)
	}
	peak := math.Inf(-1)
	for _, p := range lags["slave2"] {
		peak = load.MaxNaN(peak, p.V)
	}
	if math.Abs(peak-5392) > 0.01*5392 || len(lags["slave1"]) == 0 {
		t.Errorf("slave2 peak %.0f, want 5392; slave1 %d samples", peak, len(lags["slave1"]))
	}
	if _, err := analyse.SlaveLags(dir, "master", []string{"nobody"}); err == nil {
		t.Error("a slave without a series read without error")
	}
}
