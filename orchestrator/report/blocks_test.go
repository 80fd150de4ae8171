package report

import (
	"math"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

// Expected values below were computed by hand (Python with mpmath for
// Student's t quantiles and the chi-squared tail), not with this package.
var (
	eastPair   = analyse.ClusterPair{Cluster: "east", Base: []float64{100, 102, 98}, Other: []float64{120, 123, 117}}
	westPair   = analyse.ClusterPair{Cluster: "west", Base: []float64{50, 51, 49}, Other: []float64{62.5, 63, 62}}
	westFaster = analyse.ClusterPair{Cluster: "west", Base: []float64{50, 51, 49}, Other: []float64{75, 76, 74}}
)

// Two clusters of different speed (east twice west's rate) with nearly the
// same effect: per-cluster ratios 1.20 and 1.25, combined sqrt(1.2*1.25).
func TestCompareBlockedTwoClusters(t *testing.T) {
	b := analyse.CompareBlocked([]analyse.ClusterPair{eastPair, westPair})
	if b.Used != 2 || len(b.Clusters) != 2 {
		t.Fatalf("used %d of %d clusters", b.Used, len(b.Clusters))
	}
	e, w := b.Clusters[0], b.Clusters[1]
	near(t, "east ratio", e.Ratio, 1.2, 1e-12)
	near(t, "west ratio", w.Ratio, 1.25, 1e-12)
	// Fieller's bounds are the ratios r at which Welch's test of Other
	// against r·Base has p = 0.05 (the degrees of freedom of each r).
	// With the df fixed at the estimate's they were 1.138463-1.264102
	// (east) and 1.198179-1.305810 (west).
	for _, c := range []struct {
		name   string
		pair   analyse.ClusterPair
		lo, hi float64
	}{{"east", eastPair, e.CILow, e.CIHigh}, {"west", westPair, w.CILow, w.CIHigh}} {
		for _, r := range []float64{c.lo, c.hi} {
			var scaled []float64
			for _, x := range c.pair.Base {
				scaled = append(scaled, r*x)
			}
			tt, err := analyse.Welch(c.pair.Other, scaled)
			if err != nil {
				t.Fatal(err)
			}
			near(t, c.name+" p at a Fieller bound", tt.P, 0.05, 1e-6)
		}
	}
	near(t, "east Fieller low", e.CILow, 1.137871, 1e-6)
	near(t, "west Fieller high", w.CIHigh, 1.306583, 1e-6)
	near(t, "combined", b.Ratio, 1.224744871391589, 1e-12)
	near(t, "combined CI low", b.CILow, 0.944958983624230, 1e-9)
	near(t, "combined CI high", b.CIHigh, 1.58737048485110, 1e-9)
	if b.Test == nil {
		t.Fatalf("no combined test: %v", b.TestErr)
	}
	near(t, "t", b.Test.T, 9.932515862422637, 1e-9)
	near(t, "p", b.Test.P, 0.0638792597491863, 1e-9)
	if b.Heterogeneity == nil {
		t.Fatal("no heterogeneity test")
	}
	near(t, "Q", b.Heterogeneity.Q, 3.357492081823526, 1e-9)
	near(t, "Q p", b.Heterogeneity.P, 0.0668998789498061, 1e-9)
	if b.Warning != "" {
		t.Errorf("ratios 1.20 and 1.25 (p=0.067) warned: %s", b.Warning)
	}
	// Pooling all six runs per side would have given 182.5/150 = 1.217:
	// the faster cluster would weigh twice.
	if pooled := (120.0 + 62.5) / (100.0 + 50.0); math.Abs(b.Ratio-pooled) < 1e-3 {
		t.Errorf("combined %v equals the pooled ratio %v", b.Ratio, pooled)
	}
}

// Clusters whose effects differ far beyond their noise get a warning that
// names each cluster's ratio.
func TestCompareBlockedDisagreement(t *testing.T) {
	b := analyse.CompareBlocked([]analyse.ClusterPair{eastPair, westFaster})
	near(t, "combined", b.Ratio, 1.3416407864998738, 1e-12)
	near(t, "combined CI low", b.CILow, 0.325055126243069, 1e-9)
	near(t, "combined CI high", b.CIHigh, 5.53752226831211, 1e-8)
	near(t, "p", b.Test.P, 0.230982701434484, 1e-9)
	near(t, "Q", b.Heterogeneity.Q, 93.20015260410187, 1e-8)
	if b.Heterogeneity.P > 1e-20 {
		t.Errorf("Q p = %g, want 4.7e-22", b.Heterogeneity.P)
	}
	for _, want := range []string{"the clusters disagree beyond their noise", "east 1.20x (95% CI 1.14x-1.26x)", "west 1.50x (95% CI 1.44x-1.56x)", "Q = 93.20 on 1 df"} {
		if !strings.Contains(b.Warning, want) {
			t.Errorf("warning lacks %q: %s", want, b.Warning)
		}
	}
}

// With one cluster the blocked analysis is the plain one: the ratio of
// means and Welch's test of the same runs, exactly.
func TestCompareBlockedOneClusterIsPlain(t *testing.T) {
	b := analyse.CompareBlocked([]analyse.ClusterPair{eastPair})
	plain, err := analyse.Welch(eastPair.Other, eastPair.Base)
	if err != nil {
		t.Fatal(err)
	}
	if b.Ratio != analyse.Describe(eastPair.Other).Mean/analyse.Describe(eastPair.Base).Mean || b.Test == nil || *b.Test != plain {
		t.Errorf("one cluster: ratio %v test %+v; plain ratio %v test %+v", b.Ratio, b.Test, 1.2, plain)
	}
	if !math.IsNaN(b.CILow) || b.Heterogeneity != nil || b.Warning != "" {
		t.Errorf("one cluster has an across-cluster interval or warning: %+v", b)
	}
}

// A cluster without runs of one side is shown but not combined; no runs
// anywhere is no comparison.
func TestCompareBlockedMissingRuns(t *testing.T) {
	b := analyse.CompareBlocked([]analyse.ClusterPair{eastPair, {Cluster: "west", Base: []float64{50}, Other: []float64{math.NaN()}}})
	if b.Used != 1 || b.Clusters[1].TestErr != analyse.ErrNoRuns || b.Ratio != 1.2 {
		t.Errorf("used %d, west err %v, ratio %v", b.Used, b.Clusters[1].TestErr, b.Ratio)
	}
	if b := analyse.CompareBlocked(nil); b.TestErr != analyse.ErrNoClusters || !math.IsNaN(b.Ratio) {
		t.Errorf("no clusters: %+v", b)
	}
	// One run a side: a ratio, no interval, no heterogeneity test.
	one := analyse.CompareBlocked([]analyse.ClusterPair{{Cluster: "a", Base: []float64{10}, Other: []float64{12}}, {Cluster: "b", Base: []float64{20}, Other: []float64{25}}})
	if one.Heterogeneity != nil || !math.IsNaN(one.Clusters[0].CILow) {
		t.Errorf("single runs: heterogeneity %+v, CI %v", one.Heterogeneity, one.Clusters[0].CILow)
	}
	near(t, "single runs combined", one.Ratio, math.Sqrt(1.2*1.25), 1e-12)
}

// Fieller's interval is unbounded (NaN) when the baseline is not clearly
// above zero.
func TestFiellerUnbounded(t *testing.T) {
	lo, hi := analyse.Fieller(analyse.Describe([]float64{10, 12, 11}), analyse.Describe([]float64{-1, 1, 2}))
	if !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("interval %v..%v for a baseline around zero", lo, hi)
	}
}

// Two clusters whose ratios agree exactly by chance while their runs are
// noisy: the combined interval is as wide as the runs' noise makes it
// (computed by hand from the delta-method variances and t(1) = 12.7062),
// not a zero-width interval from one degree of freedom.
func TestCompareBlockedNeverNarrowerThanRuns(t *testing.T) {
	b := analyse.CompareBlocked([]analyse.ClusterPair{
		{Cluster: "east", Base: []float64{100, 110, 90}, Other: []float64{87, 97, 77}},
		{Cluster: "west", Base: []float64{50, 55, 45}, Other: []float64{43.5, 48.5, 38.5}},
	})
	near(t, "combined", b.Ratio, 0.87, 1e-12)
	near(t, "CI low", b.CILow, 0.3947247328499957, 1e-9)
	near(t, "CI high", b.CIHigh, 1.9175388239166637, 1e-9)
	if b.Test == nil {
		t.Fatalf("no test: %v", b.TestErr)
	}
	near(t, "t", b.Test.T, -2.2390005194942777, 1e-9)
	if b.Test.Significant() {
		t.Errorf("p = %v: two noisy clusters that happen to agree are no significant finding", b.Test.P)
	}
}
