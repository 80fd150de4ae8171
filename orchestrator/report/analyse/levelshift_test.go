package analyse

import (
	"math"
	"math/rand"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// ar1 is n points of level·(1 + cv·e_t), e an AR(1) process with
// coefficient phi and unit variance.
func ar1(rng *rand.Rand, n int, level, cv, phi float64) []load.Point {
	ps := make([]load.Point, n)
	e := rng.NormFloat64()
	for i := range ps {
		e = phi*e + math.Sqrt(1-phi*phi)*rng.NormFloat64()
		ps[i] = load.Point{T: float64(i + 1), V: level * (1 + cv*e)}
	}
	return ps
}

// TestShiftFalseAlarms: on stationary series with the lab's noise (per
// second CV 5-15%, lag-1 autocorrelation -0.3 to 0.3, the lab's stationary
// runs measuring -0.37 to 0.18; windows of 12-60 s) the test calls at most
// ShiftAlpha of them shifted, plus the simulation's own error (1,000
// series: ±1.4 points at 5%); at autocorrelation 0.5, beyond what it is
// set for, at most 15%.
func TestShiftFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const sims = 1000
	for _, n := range []int{12, 20, 60} {
		for _, phi := range []float64{-0.3, 0, 0.3, 0.5} {
			for _, cv := range []float64{0.05, 0.15} {
				alarms, found := 0, 0
				for i := 0; i < sims; i++ {
					s := TestShift(ar1(rng, n, 9000, cv, phi))
					if s.Stat > s.Crit {
						alarms++
					}
					if s.Found {
						found++
					}
				}
				rate := float64(alarms) / sims
				t.Logf("n=%d phi=%.1f cv=%.2f: significant %.1f%%, reported (>=10%% shift) %.1f%%", n, phi, cv, 100*rate, 100*float64(found)/sims)
				limit := ShiftAlpha + 0.03
				if phi > ShiftPhi {
					limit = 0.15
				}
				if rate > limit {
					t.Errorf("n=%d phi=%.1f cv=%.2f: false alarms %.1f%%, want <= %.0f%%", n, phi, cv, 100*rate, 100*limit)
				}
			}
		}
	}
}

// TestShiftPower: a drop half-way through a 15 s window at CV 10% and
// autocorrelation 0.3 is found, at about its time, in at least 75% of
// runs for a 30% drop and 90% for a 40% one (the demo's MyRocks runs drop
// 27-44%).
func TestShiftPower(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const sims = 500
	for _, c := range []struct{ drop, want float64 }{{0.3, 0.75}, {0.4, 0.90}} {
		found, near := 0, 0
		for i := 0; i < sims; i++ {
			ps := ar1(rng, 15, 9000, 0.10, 0.3)
			for j := 7; j < len(ps); j++ {
				ps[j].V *= 1 - c.drop
			}
			s := TestShift(ps)
			if s.Found && math.Abs(s.AtS-7) <= 1 {
				near++
			}
			if s.Found {
				found++
			}
		}
		t.Logf("%.0f%% drop: found %d of %d, %d within 1 s of it", 100*c.drop, found, sims, near)
		if float64(near) < c.want*sims {
			t.Errorf("%.0f%% drop: found within 1 s in %d of %d runs, want %.0f%%", 100*c.drop, near, sims, 100*c.want)
		}
	}
}

// TestShiftLongWindow: an hour of seconds is tested on at most shiftMaxN
// means of consecutive intervals, and a 30% drop at 40 min is found there.
func TestShiftLongWindow(t *testing.T) {
	ps := ar1(rand.New(rand.NewSource(3)), 3600, 9000, 0.1, 0.3)
	for j := 2400; j < len(ps); j++ {
		ps[j].V *= 0.7
	}
	s := TestShift(ps)
	if s.N > shiftMaxN || !s.Found || math.Abs(s.AtS-2400) > 12 || math.Abs(s.Rel+0.3) > 0.03 {
		t.Errorf("n=%d found %v at %.0f s, %+.1f%%", s.N, s.Found, s.AtS, 100*s.Rel)
	}
}
