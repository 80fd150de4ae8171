package report

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Two configurations against one baseline: the judge (Holm) decides them
// together.
// Alone, "edge" would be significant (p = 0.033 < 0.05); as the larger
// p of two it is held to 0.05/1 only if the smaller one was rejected at
// 0.05/2, which it is, so edge's level is 0.05 and stays significant;
// a third, weaker comparison makes the family three and edge's level
// 0.025, so edge is then not significant. In every case the printed
// interval excludes 1 exactly when the comparison is significant.
func TestHolmAcrossConfigurations(t *testing.T) {
	base := []float64{100, 101, 99, 100.5}
	strong := []float64{110, 111, 109, 110.5}
	edge := []float64{101.6, 102.8, 100.7, 102.3}
	weak := []float64{100.6, 101.4, 99.2, 100.9}
	decide := func(others ...[]float64) []*judge.Group {
		b := armGroup("base", base...)
		var gs []*judge.Group
		var cs []stats.Comparison
		for i, xs := range others {
			g := armGroup([]string{"strong", "edge", "weak"}[i], xs...)
			g.Ratio = g.Rate.Mean / b.Rate.Mean
			gs = append(gs, g)
			cs = append(cs, stats.Comparison{Label: g.Label, Other: g.Steady, Base: b.Steady})
		}
		for i, s := range (stats.Rule{Alpha: analyse.Alpha}).Evaluate(0, cs) {
			gs[i].Take(s)
			if gs[i].Test == nil {
				t.Fatal(s.Err)
			}
		}
		for _, g := range gs {
			g.CompareWith(b)
			if g.RatioCI == nil {
				t.Fatalf("%s: no interval: %v", g.Label, g.RatioCIErr)
			}
			excludes := g.RatioCI.Low > 1 || g.RatioCI.High < 1
			if excludes != g.Test.Significant() {
				t.Errorf("%s: interval [%.4f, %.4f] at %.4f and %s disagree", g.Label, g.RatioCI.Low, g.RatioCI.High, g.RatioCI.Level, judge.Significance(g.Test, nil))
			}
		}
		return gs
	}
	two := decide(strong, edge)
	if p := two[1].Test.P; !(p > 0.025 && p < 0.05) {
		t.Fatalf("edge's p = %.4f: the fixture no longer sits between the levels", p)
	}
	if !two[1].Test.Significant() || two[1].Test.M != 2 {
		t.Errorf("edge among two: %s", judge.Significance(two[1].Test, nil))
	}
	three := decide(strong, edge, weak)
	if three[1].Test.Significant() {
		t.Errorf("edge among three: %s", judge.Significance(three[1].Test, nil))
	}
	if got := judge.Significance(three[1].Test, nil); !strings.Contains(got, "not significant at 0.025, Holm over 3 comparisons") {
		t.Errorf("edge's wording: %s", got)
	}
	if got := judge.CIPhrase(three[1].RatioCI, nil); !strings.Contains(got, "(97.5% CI, Holm)") {
		t.Errorf("edge's interval: %s", got)
	}
}
