package stats

import (
	"fmt"
	"testing"
)

// BenchmarkStoppingRule prints the stopping rule's error rates over
// simulated campaigns (what TestRuleErrorRates asserts), and the fixed
// --repeat each case would have needed to reach the same precision: the
// cluster time the rule saves. `make bench` runs it.
func BenchmarkStoppingRule(b *testing.B) {
	rule := Rule{Precision: 0.10, MinRounds: 3, MaxRounds: 6}
	fmt.Printf("\nstopping rule --precision 10%% --min-repeat 3 --max-repeat 6, CV 5%%, 2000 campaigns each:\n")
	fmt.Printf("%-13s %6s %10s %9s %12s %8s %18s\n", "noise", "ratio", "different", "coverage", "mean rounds", "at max", "fixed repeat (90%)")
	for i := 0; i < b.N; i++ {
		for _, n := range noises {
			for _, ratio := range []float64{1, 1.05} {
				res := Campaigns{Rule: rule, TrueRatio: ratio, CV: 0.05, Noise: n.f, N: 2000, Seed: 7}.Run()
				fixed := fixedRepeat(rule.Precision, 0.05, n.f, 0.9)
				fmt.Printf("%-13s %6.2f %10.3f %9.3f %12.2f %8.2f %18d\n", n.name, ratio, res.Different, res.Coverage, res.MeanRounds, res.AtMax, fixed)
			}
		}
		sig := Rule{Goal: GoalSignificant, MinRounds: 3, MaxRounds: 8}
		fmt.Printf("\n--until significant --min-repeat 3 --max-repeat 8 (5%% spent over rounds 3-8), CV 5%%, 2000 campaigns each:\n")
		fmt.Printf("%-13s %6s %10s %9s %12s %8s\n", "noise", "ratio", "different", "coverage", "mean rounds", "at max")
		for _, n := range noises {
			for _, ratio := range []float64{1, 1.05, 1.10} {
				res := Campaigns{Rule: sig, TrueRatio: ratio, CV: 0.05, Noise: n.f, N: 2000, Seed: 13}.Run()
				fmt.Printf("%-13s %6.2f %10.3f %9.3f %12.2f %8.2f\n", n.name, ratio, res.Different, res.Coverage, res.MeanRounds, res.AtMax)
			}
		}
	}
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
