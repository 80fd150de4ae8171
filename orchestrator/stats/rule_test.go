package stats

import (
	"math"
	"testing"
)

// TestRuleErrorRates runs 2000 simulated campaigns per case through the
// stopping rule a matrix uses and holds its error rates to what the report
// claims: an A/A ends "different" at most 5% of the time (plus the Monte
// Carlo margin, 3 standard errors of a 5% rate over 2000 campaigns: 1.5%),
// and the final 95% interval holds the true ratio at least 93% of the time.
// The run-to-run CV is 5%, what the lab's short runs show without stack
// sampling.
func TestRuleErrorRates(t *testing.T) {
	rule := Rule{Precision: 0.10, MinRounds: 3, MaxRounds: 6}
	eachCampaign(t, rule, []float64{1, 1.05}, 7, func(noise string, ratio float64, res SimResult) {
		if ratio == 1 && res.Different > 0.05+mcMargin {
			t.Errorf("%s A/A: false 'different' rate %.3f above 5%% + %.3f", noise, res.Different, mcMargin)
		}
		if res.Coverage < 0.93 {
			t.Errorf("%s ratio %.2f: coverage %.3f below 93%%", noise, ratio, res.Coverage)
		}
		if res.MeanRounds < float64(rule.MinRounds) || res.MeanRounds > float64(rule.MaxRounds) {
			t.Errorf("mean rounds %.2f outside [%d, %d]", res.MeanRounds, rule.MinRounds, rule.MaxRounds)
		}
	})
}

// noises are the run-to-run distributions the simulations draw from.
var noises = []struct {
	name string
	f    Noise
}{{"normal", Normal}, {"heavy-tailed", HeavyTailed}}

// mcMargin is 3 standard errors of a 5% rate over 2000 campaigns.
var mcMargin = 3 * math.Sqrt(0.05*0.95/2000)

// eachCampaign runs 2000 campaigns of rule at CV 5% per noise and true
// ratio, logs what they ended with and hands it to check.
func eachCampaign(t *testing.T, rule Rule, ratios []float64, seed uint64, check func(noise string, ratio float64, res SimResult)) {
	t.Helper()
	for _, noise := range noises {
		for _, ratio := range ratios {
			res := Campaigns{Rule: rule, TrueRatio: ratio, CV: 0.05, Noise: noise.f, N: 2000, Seed: seed}.Run()
			t.Logf("%s, true ratio %.2f: different %.3f, coverage %.3f, mean rounds %.2f, at max %.2f",
				noise.name, ratio, res.Different, res.Coverage, res.MeanRounds, res.AtMax)
			check(noise.name, ratio, res)
		}
	}
}

func TestRuleEquivalenceOnAA(t *testing.T) {
	rule := Rule{Precision: 0.05, MinRounds: 3, MaxRounds: 8, Equivalence: 0.10}
	res := Campaigns{Rule: rule, TrueRatio: 1, CV: 0.05, Noise: Normal, N: 2000, Seed: 11}.Run()
	t.Logf("A/A with a 10%% band: equivalent %.3f, different %.3f, unresolved %.3f, mean rounds %.2f",
		res.Equivalent, res.Different, res.Unresolved, res.MeanRounds)
	// Different needs the whole interval outside ±10% while the truth is 1.
	if res.Different > 0.05 {
		t.Errorf("A/A ended 'different' %.3f of the time", res.Different)
	}
	if res.Equivalent < 0.5 {
		t.Errorf("A/A with CV 5%% and a 10%% band ended equivalent only %.3f of the time", res.Equivalent)
	}
}

func TestRuleValidate(t *testing.T) {
	for _, r := range []Rule{
		{Precision: 0, MinRounds: 2, MaxRounds: 3},
		{Precision: 1, MinRounds: 2, MaxRounds: 3},
		{Precision: 0.1, MinRounds: 1, MaxRounds: 3},
		{Precision: 0.1, MinRounds: 3, MaxRounds: 8, Equivalence: -0.1},
		{Precision: 0.1, MinRounds: 4, MaxRounds: 3},
		{Precision: 0.1, MinRounds: 3, MaxRounds: 3, Equivalence: 1},
	} {
		if r.Validate() == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	if (Rule{Precision: 0.1, MinRounds: 2, MaxRounds: 4}).Validate() == nil {
		t.Error("--min-repeat 2 accepted")
	}
	if err := (Rule{Precision: 0.1, MinRounds: 3, MaxRounds: 3}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestStopWords(t *testing.T) {
	r := Rule{Precision: 0.03, MinRounds: 2, MaxRounds: 6}
	sts := []Status{{Label: "rocksdb", HalfWidth: 0.054}}
	if stop, why := r.Stop(3, sts); stop || why != "going on: rocksdb's half-width is 5.4% (target 3%)" {
		t.Errorf("got %v %q", stop, why)
	}
	if stop, why := r.Stop(6, sts); !stop || why != "stopped at --max-repeat 6: rocksdb's half-width is 5.4% (target 3%)" {
		t.Errorf("got %v %q", stop, why)
	}
	sts[0].HalfWidth = 0.02
	if stop, why := r.Stop(4, sts); !stop || why != "stopped after 4 rounds: every interval's half-width is within 3%" {
		t.Errorf("got %v %q", stop, why)
	}
}

// CV 5%, target 10%: n = 3 gives t(.975, 4)·0.05·√(2/3) = 2.776·0.0408 =
// 0.113, n = 4 gives t(.975, 6)·0.05·√(1/2) = 2.447·0.0354 = 0.0865.
func TestExpectedRounds(t *testing.T) {
	if n, ok := ExpectedRounds(0.05, 0.10, 3, 10); n != 4 || !ok {
		t.Errorf("got %d %v, want 4 true", n, ok)
	}
	if n, ok := ExpectedRounds(0.30, 0.05, 3, 6); n != 6 || ok {
		t.Errorf("got %d %v, want 6 false", n, ok)
	}
}
