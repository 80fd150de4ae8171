package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBlockedByHand: three rounds, each with one run a side, in an order
// other than the rounds' (the analysis pairs by block, not by position).
// Log ratios ln(110/100), ln(90/80), ln(105/100); their mean m, sd s,
// se = s/√3, t = m/se on 2 df; Student's t with 2 df has the closed-form
// two-sided p = 1 - |t|/√(t²+2) and quantile q(0.975) = 4.302652729.
func TestBlockedByHand(t *testing.T) {
	ys := []float64{math.Log(1.1), math.Log(90.0 / 80), math.Log(1.05)}
	m := (ys[0] + ys[1] + ys[2]) / 3
	ss := 0.0
	for _, y := range ys {
		ss += (y - m) * (y - m)
	}
	se := math.Sqrt(ss/2) / math.Sqrt(3)
	tv := m / se
	wantP := 1 - math.Abs(tv)/math.Sqrt(tv*tv+2)
	const q = 4.302652729
	c := Comparison{Label: "x", Other: []float64{90, 110, 105}, Base: []float64{100, 100, 80},
		OtherBlocks: []Block{{Round: 2}, {Round: 1}, {Round: 3}}, BaseBlocks: []Block{{Round: 1}, {Round: 3}, {Round: 2}}}
	s := Rule{Alpha: Alpha}.Evaluate(0, []Comparison{c})[0]
	if s.Analysis != AnalysisBlocked || s.Test == nil || s.Test.DF != 2 {
		t.Fatalf("status %+v", s)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Abs(want) {
			t.Errorf("%s = %.9g, want %.9g", what, got, want)
		}
	}
	near("ratio", s.Ratio, math.Exp(m))
	near("p", s.Test.P, wantP)
	near("low", s.Interval.Low, math.Exp(m-q*se))
	near("high", s.Interval.High, math.Exp(m+q*se))
	// Unpaired, the same runs: the ratio of the means and Welch's test.
	u := Rule{Alpha: Alpha, Analysis: AnalysisUnpaired}.Evaluate(0, []Comparison{c})[0]
	near("unpaired ratio", u.Ratio, (90+110+105)/3.0/((100+100+80)/3.0))
	if u.Analysis != AnalysisUnpaired {
		t.Errorf("unpaired analysed %s", u.Analysis)
	}
}

// TestBlockedIntervalAgreesWithTest: the blocked interval excludes 1
// exactly when its p is below the level, on random blocked samples, one
// cluster and three.
func TestBlockedIntervalAgreesWithTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 2000; i++ {
		clusters := 1 + 2*(i%2)
		var c Comparison
		for cl := 0; cl < clusters; cl++ {
			for r := 1; r <= 2+rng.IntN(4); r++ {
				b := Block{Cluster: string(rune('a' + cl)), Round: r}
				shared := 1 + 0.1*rng.NormFloat64()
				c.Base = append(c.Base, 1000*shared*(1+0.05*rng.NormFloat64()))
				c.Other = append(c.Other, 1000*shared*(1.03+0.05*rng.NormFloat64()))
				c.BaseBlocks, c.OtherBlocks = append(c.BaseBlocks, b), append(c.OtherBlocks, b)
			}
		}
		s := Rule{Alpha: Alpha}.Evaluate(0, []Comparison{c})[0]
		if s.Test == nil {
			t.Fatalf("case %d: %v", i, s.Err)
		}
		excludes := s.Interval.Low > 1 || s.Interval.High < 1
		if excludes != (s.Test.P < Alpha) && math.Abs(s.Test.P-Alpha) > 1e-9 {
			t.Fatalf("case %d: p %.6g, interval [%.6g, %.6g]", i, s.Test.P, s.Interval.Low, s.Interval.High)
		}
	}
}
