package stats

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"
)

// simRules are the stopping rules whose error rates the simulation
// measures: the lab rule, the demo's, and the significance rule
// with the lab's --max-repeat. --min-repeat is 3 in all three, the least
// Validate accepts.
var simRules = []struct {
	flags string
	rule  Rule
}{
	{"--precision 10% --min-repeat 3 --max-repeat 6", Rule{Precision: 0.10, MinRounds: 3, MaxRounds: 6}},
	{"--precision 10% --min-repeat 3 --max-repeat 4", Rule{Precision: 0.10, MinRounds: 3, MaxRounds: 4}},
	{"--until significant --min-repeat 3 --max-repeat 6", Rule{Goal: GoalSignificant, MinRounds: 3, MaxRounds: 6}},
}

// simCVs are the run-to-run CVs simulated: 5% (short runs without stack
// sampling) and the 8.7-13% the lab's runs show.
var simCVs = []float64{0.05, 0.10, 0.13}

// simRatios: an A/A and a true 5% difference.
var simRatios = []float64{1, 1.05}

// simAnalyses are both analyses a matrix can pre-register; every case
// runs under each.
var simAnalyses = []string{AnalysisBlocked, AnalysisUnpaired}

// simRhos are the round effects simulated besides none (the correlation
// of the two sides' noise within a round): rounds slow for both (0.7, as
// the demo's round 1 was) and rounds where one side gains what the other
// loses (-0.5, as the flush A/As showed); at CV 10%, normal noise.
var simRhos = []float64{0.7, -0.5}

// simCampaigns per case; simSeed is every case's seed, so that the cases
// of one rule and noise draw the same standardized runs (common random
// numbers: a case differs from another by its CV or ratio only).
const (
	simCampaigns = 2000
	simSeed      = 7
)

// simCase is one simulated setting and what its campaigns ended with.
type simCase struct {
	rule         int // index in simRules
	analysis     string
	rho          float64 // round effect (Campaigns.Rho)
	cv, ratio    float64
	noise        int // index in noises
	res          SimResult
	fixedRounds  int  // fixedN(cv, precision): the rounds a fixed plan needs at the true CV
	fixedReached bool // fixedRounds <= the rule's MaxRounds
}

func (c simCase) String() string {
	return fmt.Sprintf("%s --analysis %s, round effect %+.1f, %s, CV %.0f%%, true ratio %.2f", simRules[c.rule].flags, c.analysis, c.rho, noises[c.noise].name, 100*c.cv, c.ratio)
}

// ruleOf is the case's rule with its analysis.
func (c simCase) ruleOf() Rule {
	r := simRules[c.rule].rule
	r.Analysis = c.analysis
	return r
}

// simulateRules runs every case's campaigns through Campaigns.Run (the
// rule's Evaluate and Stop, as a matrix's round calls them), the cases
// spread over the CPUs; each case has its own generator, so the figures
// do not depend on the spreading.
func simulateRules() []simCase {
	var cases []simCase
	add := func(c simCase) {
		c.fixedRounds = fixedN(c.analysis, c.cv, 0.10)
		c.fixedReached = c.fixedRounds <= simRules[c.rule].rule.MaxRounds
		cases = append(cases, c)
	}
	for r := range simRules {
		for _, an := range simAnalyses {
			for _, cv := range simCVs {
				for n := range noises {
					for _, ratio := range simRatios {
						add(simCase{rule: r, analysis: an, cv: cv, ratio: ratio, noise: n})
					}
				}
			}
			for _, rho := range simRhos {
				for _, ratio := range simRatios {
					add(simCase{rule: r, analysis: an, rho: rho, cv: 0.10, ratio: ratio})
				}
			}
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c := &cases[i]
				c.res = Campaigns{Rule: c.ruleOf(), TrueRatio: c.ratio, CV: c.cv, Rho: c.rho, Noise: noises[c.noise].f, N: simCampaigns, Seed: simSeed}.Run()
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()
	return cases
}

// fixedN is the rounds a fixed plan needs for a ±precision interval when
// the runs vary by the true cv without a round effect, by the textbook
// formula rather than by simulation: the smallest n with
// t(0.975, df)·cv·√(2/n) <= precision, df = 2n-2 unpaired (two samples'
// variances) and n-1 blocked (one log ratio per round, whose sd is
// about cv·√2).
func fixedN(analysis string, cv, precision float64) int {
	n := 2
	df := func(n int) float64 {
		if analysis == AnalysisBlocked {
			return float64(n - 1)
		}
		return float64(2*n - 2)
	}
	for tQuantile(1-Alpha/2, df(n))*cv*math.Sqrt(2/float64(n)) > precision {
		n++
	}
	return n
}

// TestStoppingRuleErrorRates is the proof of the error rates:
// 2000 simulated campaigns per case (each rule of simRules, CV 5%, 10%
// and 13%, normal and Student t with 3 df, an A/A and a true 5%
// difference) through the stopping code, holding each case to
//
//   - an A/A ends "different" at most 5% of the time plus the Monte Carlo
//     margin (3 standard errors of a 5% rate over 2000 campaigns: 1.5%);
//   - the final 95% interval holds the true ratio at least 93% of the
//     time;
//   - the mean rounds against an expectation derived without the
//     simulation. Precision rule: when the fixed plan the true CV calls
//     for (fixedN) fits within --max-repeat, the rule stops on average no
//     later than it (the first round whose interval is narrow enough ends
//     the campaign, and the fixed n is where a typical spread gets there)
//     plus a quarter round; when it does not fit, at least half the
//     campaigns run to --max-repeat and the mean is within one round of
//     it. Significance rule: an A/A stops early only on a false
//     "different", whose chance before the last round is at most the α
//     spent on rounds M..N-1, so the mean is at least
//     N - (N-M)·α(N-1), less 3 standard errors. Both rules: more
//     run-to-run noise never makes the mean smaller (same draws, larger
//     CV), and a real difference never makes a significance rule run
//     longer than an A/A.
//
// The matrix stops on the same Rule.Stop, given the report's statuses,
// which TestJudgeMatchesEvaluate (orchestrator/matrix) holds equal to
// Evaluate's. `make bench` prints these figures (BenchmarkStoppingRule).
func TestStoppingRuleErrorRates(t *testing.T) {
	cases := simulateRules()
	byKey := map[string]SimResult{}
	key := func(c simCase, cv, ratio float64) string {
		return fmt.Sprintf("%d/%s/%g/%d/%g/%g", c.rule, c.analysis, c.rho, c.noise, cv, ratio)
	}
	for _, c := range cases {
		byKey[key(c, c.cv, c.ratio)] = c.res
	}
	for _, c := range cases {
		rule, res := c.ruleOf(), c.res
		if c.rho != 0 {
			checkRoundEffect(t, c, byKey[fmt.Sprintf("%d/%s/%g/%d/%g/%g", c.rule, otherAnalysis(c.analysis), c.rho, c.noise, c.cv, c.ratio)])
			continue
		}
		t.Logf("%s: different %.3f, coverage %.3f, mean rounds %.2f, at max %.2f (fixed plan at this CV: %d rounds)",
			c, res.Different, res.Coverage, res.MeanRounds, res.AtMax, c.fixedRounds)
		if c.ratio == 1 && res.Different > 0.05+mcMargin {
			t.Errorf("%s: false 'different' rate %.3f above 5%% + %.3f", c, res.Different, mcMargin)
		}
		if res.Coverage < 0.93 {
			t.Errorf("%s: coverage %.3f below 93%%", c, res.Coverage)
		}
		maxR := float64(rule.MaxRounds)
		switch {
		case rule.Goal == GoalSignificant && c.ratio == 1:
			early := rule.Level(rule.MaxRounds-1) + spentBefore(rule, rule.MaxRounds-1)
			floor := maxR - float64(rule.MaxRounds-rule.MinRounds)*(early+3*math.Sqrt(early*(1-early)/simCampaigns))
			if res.MeanRounds < floor {
				t.Errorf("%s: mean rounds %.2f below %.2f (an A/A stops early only on a false 'different')", c, res.MeanRounds, floor)
			}
		case rule.Goal == GoalSignificant:
			if aa := byKey[key(c, c.cv, 1)]; res.MeanRounds > aa.MeanRounds {
				t.Errorf("%s: mean rounds %.2f above the A/A's %.2f", c, res.MeanRounds, aa.MeanRounds)
			}
		case c.fixedReached:
			// The blocked analysis stops on precision from round
			// MinBlockedRounds only: when that floor is at or above the
			// fixed plan, a typical spread has reached the target there,
			// so at most half the campaigns go one round further.
			want, slack := float64(c.fixedRounds), 0.25
			if c.analysis == AnalysisBlocked && c.fixedRounds <= MinBlockedRounds {
				want, slack = float64(min(MinBlockedRounds, rule.MaxRounds)), 0.5
			}
			if res.MeanRounds > want+slack {
				t.Errorf("%s: mean rounds %.2f above the fixed plan's %.0f + %.2f", c, res.MeanRounds, want, slack)
			}
		default:
			if res.AtMax < 0.5 || res.MeanRounds < maxR-1 {
				t.Errorf("%s: the fixed plan needs %d rounds, above --max-repeat %d, yet only %.2f of campaigns ran to it (mean rounds %.2f)",
					c, c.fixedRounds, rule.MaxRounds, res.AtMax, res.MeanRounds)
			}
		}
		for _, lower := range simCVs {
			if lower >= c.cv {
				continue
			}
			// 0.01: the blocked analysis works on log ratios, so the
			// same draws at a larger CV are not exactly a rescaling.
			if l := byKey[key(c, lower, c.ratio)]; l.MeanRounds > res.MeanRounds+0.01 {
				t.Errorf("%s: mean rounds %.2f below CV %.0f%%'s %.2f", c, res.MeanRounds, 100*lower, l.MeanRounds)
			}
		}
	}
}

// spentBefore is the α a significance rule spends on rounds MinRounds to
// k-1.
func spentBefore(r Rule, k int) float64 {
	s := 0.0
	for j := r.MinRounds; j < k; j++ {
		s += r.Level(j)
	}
	return s
}

func otherAnalysis(a string) string {
	if a == AnalysisBlocked {
		return AnalysisUnpaired
	}
	return AnalysisBlocked
}

// checkRoundEffect holds a case with a round effect to what each analysis
// promises. Blocked: its error rates whatever the round effect (the
// round's share cancels in the round's ratio), and with rounds slow for
// both sides (rho > 0) it is the more precise: it reaches a true 5%
// difference more often than the unpaired analysis does. Unpaired: its
// rates hold while rounds are positively correlated (the ignored round
// effect only widens its interval), and it is shown to break when they
// are negatively correlated: then the variance of the difference is
// (1-rho) times larger than the two samples' own, which Welch's test does
// not know, so an A/A ends "different" more often than the blocked
// analysis allows. `make bench` prints both (BenchmarkStoppingRule).
func checkRoundEffect(t *testing.T, c simCase, other SimResult) {
	t.Helper()
	res := c.res
	t.Logf("%s: different %.3f, coverage %.3f, mean rounds %.2f, at max %.2f", c, res.Different, res.Coverage, res.MeanRounds, res.AtMax)
	valid := c.analysis == AnalysisBlocked || c.rho > 0
	if valid && c.ratio == 1 && res.Different > 0.05+mcMargin {
		t.Errorf("%s: false 'different' rate %.3f above 5%% + %.3f", c, res.Different, mcMargin)
	}
	if valid && res.Coverage < 0.93 {
		t.Errorf("%s: coverage %.3f below 93%%", c, res.Coverage)
	}
	switch {
	case !valid && c.ratio == 1 && res.Different <= other.Different:
		t.Errorf("%s: unpaired with anti-correlated rounds ends an A/A 'different' %.3f of the time, not above the blocked analysis's %.3f", c, res.Different, other.Different)
	case c.analysis == AnalysisBlocked && c.rho > 0 && c.ratio != 1 && res.Different <= other.Different:
		t.Errorf("%s: blocked with a shared round effect finds a true 5%% difference %.3f of the time, not more than unpaired's %.3f", c, res.Different, other.Different)
	}
}
