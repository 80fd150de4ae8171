package report

import (
	"math"
	"testing"
)

func TestReplicaFiguresHandComputed(t *testing.T) {
	// Warm-up 1 s; the master commits 3000/s from t=2 to t=5; slave1
	// applies 1000/s and its lag grows 2000 tx each second (lag 0, 2000,
	// 4000, 6000, 8000 at t=1..5: slope 2000 tx/s); slave2 keeps up.
	pts := func(vs ...float64) []Point {
		out := make([]Point, len(vs))
		for i, v := range vs {
			out[i] = Point{float64(i + 1), v}
		}
		return out
	}
	r := &Run{
		MasterTx: pts(100, 3000, 3000, 3000, 3000),
		Replicas: []Replica{
			{Host: "slave1", Apply: pts(100, 1000, 1000, 1000, 1000), LagTx: pts(0, 2000, 4000, 6000, 8000), LagS: pts(0, 1, 2, 3, 4), CatchUpS: 8, CaughtUp: true},
			{Host: "slave2", Apply: pts(100, 3000, 3000, 3000, 3000), LagTx: pts(0, 1, 0, 1, 0), LagS: pts(0, 0, 0, 0, 0), CatchUpS: 0.001, CaughtUp: true},
		},
	}
	// 5 s of benchmark at 2420 writes/s overall: 12100 writes; sustained
	// = 12100 / (5 + 8) = 930.77/s.
	f := r.replicaFigures(1, 12100, 5)
	near(t, "master", f.MasterTxPS, 3000, 1e-9)
	near(t, "applied (slowest)", f.ApplyTxPS, 1000, 1e-9)
	// Slope of lag over t=2..5 (points after the warm-up): 2000 tx/s.
	near(t, "lag growth", f.LagGrowthTxPS, 2000, 1e-9)
	near(t, "lag at end", f.LagEndTx, 8000, 0)
	near(t, "lag at end s", f.LagEndS, 4, 0)
	near(t, "catch-up", f.CatchUpS, 8, 0)
	near(t, "sustained", f.Sustained, 12100.0/13, 1e-9)
	// 2000 > 5% of 3000, and 8 s > 10% of 5 s.
	if f.KeptUp() {
		t.Error("replicas 2000 tx/s behind counted as kept up")
	}
	// A slave that never caught up: no sustained rate.
	r.Replicas[0].CaughtUp = false
	if f := r.replicaFigures(1, 12100, 5); !f.NotCaughtUp || !math.IsNaN(f.Sustained) || f.KeptUp() {
		t.Errorf("never caught up: %+v", f)
	}
	// A run shorter than the warm-up still has replica figures.
	if f := r.replicaFigures(10, 12100, 5); math.IsNaN(f.ApplyTxPS) {
		t.Error("warm-up longer than the run left no apply rate")
	}
}
