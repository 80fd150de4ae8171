package analyse

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/orch-bench/orch/orchestrator/stats"
)

// ClusterPair is one cluster's steady-state rates of the baseline and of
// the configuration compared with it.
type ClusterPair struct {
	Cluster     string
	Base, Other []float64
}

// ClusterRatio is the comparison within one cluster.
type ClusterRatio struct {
	Cluster     string
	Base, Other Sample
	// Ratio is Other.Mean / Base.Mean.
	Ratio float64
	// CILow, CIHigh are Fieller's 95% interval for the ratio; NaN with
	// fewer than two runs a side or when the baseline's mean is not
	// significantly above zero (the interval is then unbounded).
	CILow, CIHigh float64
	Test          *TTest
	TestErr       error
}

// Blocked is a comparison with the cluster as blocking factor.
type Blocked struct {
	Clusters []ClusterRatio
	// Used counts the clusters whose ratio enters the combination (both
	// sides have a run that ended ok).
	Used int
	// Ratio is the combined ratio.
	Ratio float64
	// CILow, CIHigh are the 95% interval across clusters; NaN with one.
	CILow, CIHigh float64
	// Test: with one cluster Welch's test of its runs; with more, Student's
	// t-test that the mean log ratio across clusters is zero.
	Test    *TTest
	TestErr error
	// Heterogeneity is Cochran's Q over the clusters' log ratios; nil when
	// a cluster has too few runs to know its noise.
	Heterogeneity *Heterogeneity
	// Warning says the clusters disagree beyond their noise ("" if not).
	Warning string
}

// Heterogeneity is Cochran's Q test of equal ratios on every cluster.
type Heterogeneity struct {
	Q, DF, P float64
}

// ErrNoClusters is returned for a comparison without any cluster.
var ErrNoClusters = errors.New("n/a (no cluster has runs of both configurations)")

// CompareBlocked compares Other with Base cluster by cluster and combines
// the clusters. NaN rates are skipped, as everywhere in the report.
func CompareBlocked(pairs []ClusterPair) Blocked {
	out := Blocked{Ratio: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	var logs []float64
	var used []ClusterRatio
	for _, p := range pairs {
		cr := compareWithin(p)
		out.Clusters = append(out.Clusters, cr)
		if cr.Base.N > 0 && cr.Other.N > 0 && cr.Ratio > 0 && !math.IsInf(cr.Ratio, 0) {
			logs = append(logs, math.Log(cr.Ratio))
			used = append(used, cr)
		}
	}
	out.Used = len(used)
	switch len(used) {
	case 0:
		out.TestErr = ErrNoClusters
		return out
	case 1:
		// Today's analysis: the ratio of the means and Welch's test.
		c := used[0]
		out.Ratio, out.Test, out.TestErr = c.Ratio, c.Test, c.TestErr
		return out
	}
	var within []float64
	for _, c := range used {
		if v := logRatioVar(c); !math.IsNaN(v) {
			within = append(within, v)
		}
	}
	// stats.CombineLogs: Student's t over the clusters' log ratios, never
	// narrower than the clusters' own noise makes their mean.
	est, err := stats.CombineLogs(logs, within)
	if err != nil {
		out.TestErr = err
		return out
	}
	out.Ratio = math.Exp(est.LogRatio)
	iv := est.Interval(Alpha)
	out.CILow, out.CIHigh = iv.Low, iv.High
	if tt, err := est.Test(); err != nil {
		out.TestErr = err
	} else {
		out.Test = &TTest{T: tt.T, DF: tt.DF, P: tt.P}
	}
	out.Heterogeneity = cochranQ(used)
	if h := out.Heterogeneity; h != nil && h.P < Alpha {
		out.Warning = disagreement(used, h)
	}
	return out
}

// logRatioVar is var log(Other.Mean/Base.Mean) ≈ va/ma² + vb/mb², va and
// vb the variances of the means; NaN with fewer than two runs a side.
func logRatioVar(c ClusterRatio) float64 {
	if c.Base.N < 2 || c.Other.N < 2 {
		return math.NaN()
	}
	return c.Other.SD*c.Other.SD/float64(c.Other.N)/(c.Other.Mean*c.Other.Mean) +
		c.Base.SD*c.Base.SD/float64(c.Base.N)/(c.Base.Mean*c.Base.Mean)
}

// compareWithin is the plain comparison inside one cluster, with
// Fieller's interval for the ratio.
func compareWithin(p ClusterPair) ClusterRatio {
	cr := ClusterRatio{Cluster: p.Cluster, Base: Describe(p.Base), Other: Describe(p.Other), CILow: math.NaN(), CIHigh: math.NaN()}
	cr.Ratio = cr.Other.Mean / cr.Base.Mean
	if cr.Base.N == 0 || cr.Other.N == 0 {
		cr.TestErr = ErrNoRuns
		return cr
	}
	if tt, err := Welch(p.Other, p.Base); err != nil {
		cr.TestErr = err
	} else {
		cr.Test = &tt
	}
	cr.CILow, cr.CIHigh = Fieller(cr.Other, cr.Base)
	return cr
}

// Fieller is the 95% interval of mean(a)/mean(b) (stats.Fieller); NaN
// when it cannot be computed or is unbounded.
func Fieller(a, b Sample) (lo, hi float64) {
	iv, err := stats.Fieller(stats.Sample{N: a.N, Mean: a.Mean, SD: a.SD}, stats.Sample{N: b.N, Mean: b.Mean, SD: b.SD}, Alpha)
	if err != nil || iv.Unbounded {
		return math.NaN(), math.NaN()
	}
	return iv.Low, iv.High
}

// cochranQ tests equal log ratios across clusters, weighting each by its
// inverse variance (delta method: var log(a/b) ≈ va/ma² + vb/mb²). It
// needs every cluster's noise: nil when one has fewer than two runs a
// side or no variation at all.
func cochranQ(cs []ClusterRatio) *Heterogeneity {
	var ys, ws []float64
	for _, c := range cs {
		v := logRatioVar(c)
		if v <= 0 || math.IsNaN(v) {
			return nil
		}
		ys, ws = append(ys, math.Log(c.Ratio)), append(ws, 1/v)
	}
	pooled := stat.Mean(ys, ws)
	q := 0.0
	for i, y := range ys {
		q += ws[i] * (y - pooled) * (y - pooled)
	}
	df := float64(len(ys) - 1)
	return &Heterogeneity{Q: q, DF: df, P: distuv.ChiSquared{K: df}.Survival(q)}
}

// disagreement is the warning for clusters whose ratios differ beyond
// their noise, naming each cluster's ratio and interval.
func disagreement(cs []ClusterRatio, h *Heterogeneity) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("%s %s", c.Cluster, Ratio(c.Ratio))
		if !math.IsNaN(c.CILow) {
			parts[i] += fmt.Sprintf(" (95%% CI %s-%s)", Ratio(c.CILow), Ratio(c.CIHigh))
		}
	}
	return fmt.Sprintf("the clusters disagree beyond their noise: %s (Cochran's Q = %.2f on %g df, p = %.3g); "+
		"their hardware or placement changes the effect, so the combined ratio averages different effects: look at each cluster",
		strings.Join(parts, ", "), h.Q, h.DF, h.P)
}
