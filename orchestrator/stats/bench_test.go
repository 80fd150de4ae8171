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
		fmt.Printf("%-50s %-13s %4s %6s %10s %9s %12s %7s %10s %12s\n", "rule", "noise", "CV", "ratio", "different", "coverage", "mean rounds", "at max", "fixed n*", "fixed (90%)")
		fixed := map[[2]int]int{}
		for _, c := range cases {
			k := [2]int{int(100 * c.cv), c.noise}
			if _, ok := fixed[k]; !ok {
				fixed[k] = fixedRepeat(0.10, c.cv, noises[c.noise].f, 0.9)
			}
			fmt.Printf("%-50s %-13s %3.0f%% %6.2f %10.3f %9.3f %12.2f %7.2f %10d %12d\n", simRules[c.rule].flags, noises[c.noise].name, 100*c.cv, c.ratio,
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

// fixedRepeat is the fewest repetitions a fixed plan needs so that share
// of its campaigns reach the precision (simulated).
func fixedRepeat(precision, cv float64, noise Noise, share float64) int {
	for n := MinRounds; n <= 50; n++ {
		rule := Rule{Precision: 1e-9, MinRounds: n, MaxRounds: n}
		reached := 0
		const campaigns = 1000
		for i := 0; i < campaigns; i++ {
			c := Campaigns{Rule: rule, TrueRatio: 1, CV: cv, Noise: noise, Seed: uint64(i + 1)}
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
