package stats

import (
	"math"
	"testing"
)

// noises are the run-to-run distributions the simulations draw from.
var noises = []struct {
	name string
	f    Noise
}{{"normal", Normal}, {"heavy-tailed", HeavyTailed}}

// mcMargin is 3 standard errors of a 5% rate over 2000 campaigns.
var mcMargin = 3 * math.Sqrt(0.05*0.95/2000)

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
	if stop, why := r.Stop(3, sts); stop || why != "going on: rocksdb's half-width is ±5.4% (target ±3%)" {
		t.Errorf("got %v %q", stop, why)
	}
	if stop, why := r.Stop(6, sts); !stop || why != "±3% not reached: ±5.4% after 6 rounds (rocksdb, --max-repeat 6)" {
		t.Errorf("got %v %q", stop, why)
	}
	sts[0].HalfWidth = 0.02
	if stop, why := r.Stop(4, sts); !stop || why != "±3% reached after 4 rounds: every interval's half-width is within it (worst rocksdb: ±2%)" {
		t.Errorf("got %v %q", stop, why)
	}
	// Judged by blocks, the rule waits for MinBlockedRounds before it
	// stops on a narrow interval, and says so.
	sts[0].Analysis = AnalysisBlocked
	if stop, why := r.Stop(4, sts); stop || why != "going on: ±2% (rocksdb) reached, but the blocked analysis stops on precision only from round 5" {
		t.Errorf("got %v %q", stop, why)
	}
	if stop, _ := r.Stop(5, sts); !stop {
		t.Error("blocked, reached at round 5: not stopped")
	}
	r.MaxRounds = 4
	if stop, why := r.Stop(4, sts); !stop || why != "±3% reached at --max-repeat 4 (worst rocksdb: ±2%)" {
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

// An unbounded interval pins the ratio's side of 1, not its size: a
// significant comparison is "different" for the rule as for the report's
// verdict, and no equivalence band can hold it, whichever of its ends
// Fieller found finite.
func TestEvaluateUnboundedButSignificant(t *testing.T) {
	// The baseline's mean is not significantly above 0 (t about 1.2), so
	// the ratio's interval is unbounded; the other is far above it.
	c := []Comparison{{Label: "b/a", Other: []float64{100, 101, 99, 100}, Base: []float64{1, -0.5, 2, 0.2}}}
	sig := Rule{Goal: GoalSignificant, MinRounds: 3, MaxRounds: 5, Alpha: Alpha}
	s := sig.Evaluate(5, c)[0]
	if s.Test == nil || !s.Decision.Significant || !s.Interval.Unbounded || s.Outcome != Different ||
		!math.IsInf(s.Interval.Low, -1) || !math.IsInf(s.Interval.High, 1) || !math.IsInf(s.HalfWidth, 1) {
		t.Errorf("significant, unbounded: %+v", s)
	}
	band := Rule{Precision: 0.1, MinRounds: 3, MaxRounds: 5, Equivalence: 0.1, Alpha: Alpha}
	if s := band.Evaluate(5, c)[0]; s.Outcome != Unresolved || !s.Interval.Unbounded {
		t.Errorf("with a ±10%% band: %+v", s)
	}
}

// A round effect both sides share (the lab slower in round 2, faster in
// round 3) hides a steady 5% difference from Welch's test but not from the
// rounds' log ratios: runs needed follows the analysis that judges.
// Worked by hand: log ratios 0.0392, 0.0583, 0.0488, 0.0488 (mean 0.0488,
// sd 0.0078, s²/d² = 0.0254); n = 2 needs (12.71 + 1.376)²·0.0254 = 5.0 > 2,
// n = 3 needs (4.303 + 1.061)²·0.0254 = 0.73 <= 3.
func TestRunsNeededFollowsTheAnalysis(t *testing.T) {
	base := []float64{100, 80, 120, 90}
	other := []float64{104, 84.8, 126, 94.5}
	blocks := []Block{{Round: 1}, {Round: 2}, {Round: 3}, {Round: 4}}
	c := Comparison{Other: other, Base: base, OtherBlocks: blocks, BaseBlocks: blocks}
	if n := (Rule{Alpha: Alpha}).RunsNeeded(c, Alpha); n != 3 {
		t.Errorf("blocked: RunsNeeded = %d, want 3 rounds", n)
	}
	welch := RunsNeeded(Describe(other), Describe(base), Alpha)
	if welch < 50 {
		t.Errorf("Welch's runs needed = %d: the round effect should hide the difference from it", welch)
	}
	if n := (Rule{Alpha: Alpha, Analysis: AnalysisUnpaired}).RunsNeeded(c, Alpha); n != welch {
		t.Errorf("unpaired: RunsNeeded = %d, want Welch's %d", n, welch)
	}
	two := []Block{{Cluster: "a", Round: 1}, {Cluster: "a", Round: 2}, {Cluster: "b", Round: 1}, {Cluster: "b", Round: 2}}
	if n := (Rule{Alpha: Alpha}).RunsNeeded(Comparison{Other: other, Base: base, OtherBlocks: two, BaseBlocks: two}, Alpha); n != 0 {
		t.Errorf("two clusters: RunsNeeded = %d, want 0 (not a number of runs)", n)
	}
}
