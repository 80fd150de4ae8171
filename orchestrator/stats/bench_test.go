package stats

import (
	"fmt"
	"testing"
)

// BenchmarkStoppingRule prints the figures TestStoppingRuleErrorRates
// asserts, one line per case: the false "different" rate of an A/A (and
// how often a true 5% difference is found), the final interval's
// coverage, the mean rounds and the share that ran to --max-repeat, the
// rounds a fixed plan needs at the true CV by formula (fixedN), and the
// fixed --repeat that reaches the same ±10% in 90% of campaigns
// (simulated): the cluster time the rule saves, or the rounds it lacks.
// `make bench` runs it.
func BenchmarkStoppingRule(b *testing.B) {
	for i := 0; i < b.N; i++ {
		cases := simulateRules()
		fmt.Printf("\nstopping rules, %d simulated campaigns per case (seed %d), run-to-run CV %v:\n", simCampaigns, simSeed, pcts(simCVs))
		fmt.Printf("round effect: the two configurations' noise within a round correlated %v (CV 10%%, normal); both analyses of every case\n", simRhos)
		fmt.Printf("%-50s %-9s %6s %-13s %4s %6s %10s %9s %12s %7s %10s %12s\n", "rule", "analysis", "round", "noise", "CV", "ratio", "different", "coverage", "mean rounds", "at max", "fixed n*", "fixed (90%)")
		fixed := map[fixedKey]int{}
		for _, c := range cases {
			k := fixedKey{c.analysis, int(100 * c.cv), c.noise, c.rho}
			if _, ok := fixed[k]; !ok {
				fixed[k] = fixedRepeat(c.analysis, 0.10, c.cv, c.rho, noises[c.noise].f, 0.9)
			}
			fmt.Printf("%-50s %-9s %+6.1f %-13s %3.0f%% %6.2f %10.3f %9.3f %12.2f %7.2f %10d %12d\n", simRules[c.rule].flags, c.analysis, c.rho, noises[c.noise].name, 100*c.cv, c.ratio,
				c.res.Different, c.res.Coverage, c.res.MeanRounds, c.res.AtMax, c.fixedRounds, fixed[k])
		}
		naive := Campaigns{TrueRatio: 1, CV: 0.05, Noise: Normal, N: simCampaigns, Seed: 13}
		fmt.Printf("\nunspent: stopping on p < 5%% at every round 3-8 ends an A/A 'different' %.3f of the time (normal, CV 5%%)\n", naive.falseRate())
	}
}

func pcts(xs []float64) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%.0f%%", 100*x)
	}
	return s
}

type fixedKey struct {
	analysis  string
	cv, noise int
	rho       float64
}

// fixedRepeat is the fewest repetitions a fixed plan needs so that share
// of its campaigns reach the precision under the analysis (simulated).
func fixedRepeat(analysis string, precision, cv, rho float64, noise Noise, share float64) int {
	for n := MinRounds; n <= 50; n++ {
		rule := Rule{Precision: 1e-9, MinRounds: n, MaxRounds: n, Analysis: analysis}
		reached := 0
		const campaigns = 1000
		for i := 0; i < campaigns; i++ {
			c := Campaigns{Rule: rule, TrueRatio: 1, CV: cv, Rho: rho, Noise: noise, Seed: uint64(i + 1)}
			if _, last := c.one(c.rng()); last.HalfWidth <= precision {
				reached++
			}
		}
		if float64(reached) >= share*campaigns {
			return n
		}
	}
	return 50
}
