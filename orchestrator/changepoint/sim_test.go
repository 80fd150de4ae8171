package changepoint

import (
	"fmt"
	"math"
	"testing"
)

// The simulated histories the detector is held to: 10 campaigns before
// any shift, run-to-run CVs from a quiet cluster (2%) to the lab's (its A/A
// runs vary by CV 5% and, for 20 s runs, 10-13%: docs/matrix.md), one run
// per campaign (nightly orch run) or three (a matrix's repetitions).
var simCases = []struct {
	cv   float64
	reps int
	// Bounds asserted: the least share of 5% and 10% drops found within
	// 10 campaigns, and the most median delay (campaigns) for each.
	min5, min10     float64
	delay5, delay10 float64
}{
	{0.02, 1, 0.85, 0.97, 4, 3},
	{0.02, 3, 0.97, 0.97, 2, 2},
	{0.05, 1, 0.20, 0.75, 6, 4},
	{0.05, 3, 0.65, 0.97, 4, 2},
	{0.10, 3, 0.15, 0.65, 6, 4},
}

const (
	simSims   = 200
	simAASims = 400
	simPre    = 10
	simPost   = 10
)

type simRow struct {
	cv         float64
	reps       int
	aa         Figures
	drop5, d10 Figures
}

func simulateCases() []simRow {
	var out []simRow
	for i, c := range simCases {
		seed := uint64(100 + i)
		row := simRow{cv: c.cv, reps: c.reps}
		row.aa = Simulate(Scenario{CV: c.cv, Pre: simPre, Reps: c.reps, Sims: simAASims, Seed: seed}, Options{})
		row.drop5 = Simulate(Scenario{CV: c.cv, Shift: -0.05, Pre: simPre, MaxPost: simPost, Reps: c.reps, Sims: simSims, Seed: seed}, Options{})
		row.d10 = Simulate(Scenario{CV: c.cv, Shift: -0.10, Pre: simPre, MaxPost: simPost, Reps: c.reps, Sims: simSims, Seed: seed}, Options{})
		out = append(out, row)
	}
	return out
}

// TestSimulatedErrorRates holds the detector to its stated error rate on
// A/A histories (false change points at most Alpha plus three Monte Carlo
// standard errors) and to the detection of planted 5% and 10% drops.
func TestSimulatedErrorRates(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: runs in make test (not -short)")
	}
	rows := simulateCases()
	maxFalse := 0.05 + 3*math.Sqrt(0.05*0.95/simAASims)
	for i, r := range rows {
		c := simCases[i]
		name := fmt.Sprintf("CV %.0f%%, %d run(s) per campaign", 100*r.cv, r.reps)
		if r.aa.FalseAlarms > maxFalse {
			t.Errorf("%s: A/A false change points in %.3f of histories, want at most %.3f", name, r.aa.FalseAlarms, maxFalse)
		}
		if r.drop5.Detected < c.min5 || r.drop5.Delay > c.delay5 {
			t.Errorf("%s: 5%% drop found in %.3f (want >= %.2f), median delay %.0f (want <= %.0f)", name, r.drop5.Detected, c.min5, r.drop5.Delay, c.delay5)
		}
		if r.d10.Detected < c.min10 || r.d10.Delay > c.delay10 {
			t.Errorf("%s: 10%% drop found in %.3f (want >= %.2f), median delay %.0f (want <= %.0f)", name, r.d10.Detected, c.min10, r.d10.Delay, c.delay10)
		}
	}
}

// BenchmarkChangePointSimulation prints the figures
// TestSimulatedErrorRates asserts (make bench runs it).
func BenchmarkChangePointSimulation(b *testing.B) {
	for i := 0; i < b.N; i++ {
		rows := simulateCases()
		fmt.Printf("\nchange points (E-divisive, permutation test at 5%%, %d permutations): %d A/A histories of %d campaigns, %d shifted ones (%d campaigns, then one more a night up to %d)\n",
			Options{}.withDefaults().Permutations, simAASims, simPre, simSims, simPre, simPost)
		fmt.Printf("%5s %5s %12s %10s %9s %10s %10s %9s %10s\n", "CV", "runs", "A/A false", "5% found", "delay", "spurious", "10% found", "delay", "spurious")
		for _, r := range rows {
			fmt.Printf("%4.0f%% %5d %12.3f %10.3f %9.0f %10.3f %10.3f %9.0f %10.3f\n", 100*r.cv, r.reps, r.aa.FalseAlarms,
				r.drop5.Detected, r.drop5.Delay, r.drop5.FalseAlarms, r.d10.Detected, r.d10.Delay, r.d10.FalseAlarms)
		}
		fmt.Println("(delay: median campaigns after the shift until it is flagged; spurious: shifted histories with a change point elsewhere, tested every night)")
	}
}
