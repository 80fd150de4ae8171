package report

import (
	"math"
	"strconv"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// monitorCSV builds a mysql.csv-like series: one row per second t=1..n,
// elapsed_s = t, interval_s = dt[i] (1 when dt is nil), and the columns.
func monitorCSV(dt []float64, cols map[string][]float64) *load.Series {
	s := &load.Series{Col: map[string]int{"elapsed_s": 0, "interval_s": 1}}
	names := load.SortedKeys(cols)
	for i, c := range names {
		s.Col[c] = i + 2
	}
	n := len(cols[names[0]])
	t := 0.0
	for i := 0; i < n; i++ {
		d := 1.0
		if dt != nil {
			d = dt[i]
		}
		t += d
		row := []string{strconv.FormatFloat(t, 'f', -1, 64), strconv.FormatFloat(d, 'f', -1, 64)}
		for _, c := range names {
			row = append(row, strconv.FormatFloat(cols[c][i], 'f', -1, 64))
		}
		s.Rows = append(s.Rows, row)
	}
	return s
}

func TestReplicaFiguresHandComputed(t *testing.T) {
	// Window (1, 5]; the master commits 3000/s from t=2 to t=5; slave1
	// applies 1000/s and its lag grows 2000 tx each second (lag 0, 2000,
	// 4000, 6000, 8000 at t=1..5: slope 2000 tx/s); slave2 keeps up.
	rate := func(vs ...float64) []float64 { return vs }
	r := &load.Run{
		Master: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": rate(100, 3000, 3000, 3000, 3000)}),
		Replicas: []load.Replica{
			{Host: "slave1", My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": rate(100, 1000, 1000, 1000, 1000),
				"lag_tx": rate(0, 2000, 4000, 6000, 8000), "lag_s": rate(0, 1, 2, 3, 4)}), CatchUpS: 8, CaughtUp: true},
			{Host: "slave2", My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": rate(100, 3000, 3000, 3000, 3000),
				"lag_tx": rate(0, 1, 0, 1, 0), "lag_s": rate(0, 0, 0, 0, 0)}), CatchUpS: 0.001, CaughtUp: true},
		},
	}
	w := load.LoadWindow(1, 5)
	// A steady 3000 writes/s over the 4 s window: 12000 writes done in
	// 4 + 8 s of cluster time: sustained 1000/s.
	f := analyse.ReplicaFigures(r, w, 3000)
	near(t, "master", f.MasterTxPS, 3000, 1e-9)
	near(t, "applied (slowest)", f.ApplyTxPS, 1000, 1e-9)
	// Slope of lag over t=2..5 (points in the window): 2000 tx/s.
	near(t, "lag growth", f.LagGrowthTxPS, 2000, 1e-9)
	near(t, "lag at end", f.LagEndTx, 8000, 0)
	near(t, "lag at end s", f.LagEndS, 4, 0)
	near(t, "catch-up", f.CatchUpS, 8, 0)
	near(t, "sustained", f.Sustained, 12000.0/12, 1e-9)
	if f.Slowest != "slave1" || f.Worst != "slave1" {
		t.Errorf("slowest %q, worst %q: want slave1", f.Slowest, f.Worst)
	}
	// 2000 > 5% of 3000, and 8 s > 10% of 4 s.
	if analyse.KeptUp(f) {
		t.Error("replicas 2000 tx/s behind counted as kept up")
	}
	// A slave that never caught up: no sustained rate.
	r.Replicas[0].CaughtUp = false
	if f := analyse.ReplicaFigures(r, w, 3000); !f.NotCaughtUp || !math.IsNaN(f.Sustained) || analyse.KeptUp(f) {
		t.Errorf("never caught up: %+v", f)
	}
}

func TestReplicaRatesAreTimeWeighted(t *testing.T) {
	// Irregular samples: 0.2 s at 10000/s then 2 s at 1000/s. The mean of
	// the per-sample rates is 5500/s; what was applied is 2000+2000 tx
	// over 2.2 s = 1818/s.
	my := monitorCSV([]float64{0.2, 2}, map[string][]float64{"gtid_tx_ps": {10000, 1000}})
	near(t, "apply", my.Rate("gtid_tx_ps", load.LoadWindow(0, 3)), 4000/2.2, 1e-9)
	// The lag slope is the worst slave's own, not the largest among slaves.
	r := &load.Run{Replicas: []load.Replica{
		{Host: "a", My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": {1, 1, 1}, "lag_tx": {100, 200, 300}})},
		{Host: "b", My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": {1, 1, 1}, "lag_tx": {0, 900, 0}})},
		{Host: "c", My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": {1, 1, 1}, "lag_tx": {400, 500, 500}})},
	}}
	f := analyse.ReplicaFigures(r, load.LoadWindow(0, 3), 1)
	if f.Worst != "c" || f.LagEndTx != 500 {
		t.Errorf("worst %q at %v: want c at 500", f.Worst, f.LagEndTx)
	}
	near(t, "lag growth of c", f.LagGrowthTxPS, 50, 1e-9)
}

// TestWorstReplicaOnATie: two slaves catching up both end the window at
// lag 0; the worse is the one whose lag fell slowest (grew fastest), in
// whatever order the slaves come, and on a tie of both the first by name
// (the recheck, which reads the hosts from a map, chooses the same way).
func TestWorstReplicaOnATie(t *testing.T) {
	rate := func(vs ...float64) []float64 { return vs }
	slave := func(name string, lag ...float64) load.Replica {
		return load.Replica{Host: name, My: monitorCSV(nil, map[string][]float64{"gtid_tx_ps": rate(3000, 3000, 3000, 3000, 3000),
			"lag_tx": lag, "lag_s": rate(0, 0, 0, 0, 0)}), CatchUpS: 0.01, CaughtUp: true}
	}
	fast := slave("slave1", 9000, 6000, 3000, 1000, 0) // falls ~2300 tx/s
	slow := slave("slave2", 1200, 900, 600, 300, 0)    // falls 300 tx/s
	master := monitorCSV(nil, map[string][]float64{"gtid_tx_ps": rate(3000, 3000, 3000, 3000, 3000)})
	w := load.LoadWindow(0, 5)
	for _, order := range [][]load.Replica{{fast, slow}, {slow, fast}} {
		r := &load.Run{Master: master, Replicas: order}
		f := analyse.ReplicaFigures(r, w, 3000)
		if f.Worst != "slave2" || f.LagEndTx != 0 {
			t.Errorf("order %s, %s: worst %s at lag %v, want slave2 (its lag fell slowest)", order[0].Host, order[1].Host, f.Worst, f.LagEndTx)
		}
		near(t, "lag growth of the worst", f.LagGrowthTxPS, -300, 1e-9)
	}
	a, b := slave("slave1", 0, 0, 0, 0, 0), slave("slave2", 0, 0, 0, 0, 0)
	for _, order := range [][]load.Replica{{a, b}, {b, a}} {
		if f := analyse.ReplicaFigures((&load.Run{Master: master, Replicas: order}), w, 3000); f.Worst != "slave1" {
			t.Errorf("a tie of both: worst %s, want slave1 (first by name)", f.Worst)
		}
	}
}
