package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Analyses a comparison can be made with, chosen before the data: by the
// design (a matrix runs in rounds, so rounds are blocks, and clusters are
// blocks), or pre-registered with --analysis.
const (
	// AnalysisBlocked: each block's (round's, on a cluster) log ratio of
	// the two configurations, and Student's t across blocks (block-1 df);
	// over several clusters, each cluster's mean log ratio and t across
	// clusters (clusters-1 df), never narrower than the rounds' own noise
	// allows. A round effect shared by both sides (the lab slower in round
	// 1 for every engine) cancels in the block's ratio.
	AnalysisBlocked = "blocked"
	// AnalysisUnpaired: the ratio of the means and Fieller's interval
	// from Welch's test, every run independent of the others (rounds
	// ignored); over several clusters, each cluster's ratio of means
	// combined across clusters as above.
	AnalysisUnpaired = "unpaired"
)

// ValidAnalysis says what is wrong with an --analysis value ("" is the
// design's default).
func ValidAnalysis(a string) error {
	switch a {
	case "", AnalysisBlocked, AnalysisUnpaired:
		return nil
	}
	return fmt.Errorf("--analysis %s: want %s or %s", a, AnalysisBlocked, AnalysisUnpaired)
}

// Block is where a run ran in a blocked design: its cluster ("" for one)
// and its round there.
type Block struct {
	Cluster string
	Round   int
}

// ErrFewBlocks: a blocked comparison needs two blocks (rounds) holding
// runs of both configurations.
var ErrFewBlocks = errors.New("n/a (fewer than two rounds hold runs of both configurations)")

// ErrNotPositive: a log ratio needs positive figures.
var ErrNotPositive = errors.New("n/a (a figure is 0 or negative: no log ratio)")

// Estimate is a log ratio's estimate, standard error and degrees of
// freedom, from which a test and an interval at any level follow, so the
// two can never disagree.
type Estimate struct {
	LogRatio, SE, DF float64
}

// Test is Student's t-test of a log ratio of 0 (a ratio of 1).
func (e Estimate) Test() (TTest, error) {
	if e.SE == 0 || math.IsNaN(e.SE) {
		return TTest{}, ErrNoVariance
	}
	t := e.LogRatio / e.SE
	return TTest{T: t, DF: e.DF, P: 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}.Survival(math.Abs(t))}, nil
}

// Interval is the 1-alpha interval of the ratio: exp(log ratio ± t·se).
// It excludes 1 exactly when Test's p < alpha.
func (e Estimate) Interval(alpha float64) Interval {
	h := tQuantile(1-alpha/2, e.DF) * e.SE
	return Interval{Low: math.Exp(e.LogRatio - h), High: math.Exp(e.LogRatio + h), Alpha: alpha}
}

// CombineLogs combines k groups' log ratios ys (clusters, or the blocks of
// one cluster) into their mean with Student's t across them (k-1 df). When
// every group's own variance of its log ratio is known (within[i], NaN
// when not), the standard error is never below what those variances give
// the mean: a few groups can agree by chance far better than their runs'
// noise allows (two give one degree of freedom).
//
// With one group the estimate is its log ratio, with no standard error
// (ErrFewBlocks): a ratio without an interval; with none, NaN.
func CombineLogs(ys, within []float64) (Estimate, error) {
	k := len(ys)
	switch k {
	case 0:
		return Estimate{LogRatio: math.NaN(), SE: math.NaN()}, ErrFewBlocks
	case 1:
		return Estimate{LogRatio: ys[0], SE: math.NaN()}, ErrFewBlocks
	}
	mean, sd := stat.MeanStdDev(ys, nil)
	e := Estimate{LogRatio: mean, SE: sd / math.Sqrt(float64(k)), DF: float64(k - 1)}
	if len(within) == k {
		sum := 0.0
		for _, v := range within {
			sum += v
		}
		if w := math.Sqrt(sum) / float64(k); w > e.SE {
			e.SE = w
		}
	}
	return e, nil
}

// blockedEstimate is the comparison's blocked analysis: per block the
// log of the ratio of the two sides' means there (one run each in a
// round), then CombineLogs over the blocks, or over several clusters
// each cluster's mean of its blocks' log ratios (its within variance the
// blocks' s²/n, known with two blocks or more).
func blockedEstimate(c Comparison) (Estimate, error) {
	type side struct{ sum, n float64 }
	type cell struct{ other, base side }
	cells := map[Block]*cell{}
	var order []Block
	add := func(b Block, x float64, other bool) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		ce := cells[b]
		if ce == nil {
			ce = &cell{}
			cells[b] = ce
			order = append(order, b)
		}
		s := &ce.base
		if other {
			s = &ce.other
		}
		s.sum, s.n = s.sum+x, s.n+1
	}
	for i, x := range c.Other {
		add(c.OtherBlocks[i], x, true)
	}
	for i, x := range c.Base {
		add(c.BaseBlocks[i], x, false)
	}
	byCluster := map[string][]float64{}
	var clusters []string
	for _, b := range order {
		ce := cells[b]
		if ce.other.n == 0 || ce.base.n == 0 {
			continue
		}
		o, ba := ce.other.sum/ce.other.n, ce.base.sum/ce.base.n
		if o <= 0 || ba <= 0 {
			return Estimate{LogRatio: math.NaN()}, ErrNotPositive
		}
		if _, ok := byCluster[b.Cluster]; !ok {
			clusters = append(clusters, b.Cluster)
		}
		byCluster[b.Cluster] = append(byCluster[b.Cluster], math.Log(o/ba))
	}
	if len(clusters) <= 1 {
		var ys []float64
		if len(clusters) == 1 {
			ys = byCluster[clusters[0]]
		}
		return CombineLogs(ys, nil)
	}
	ys, within := make([]float64, len(clusters)), make([]float64, 0, len(clusters))
	for i, cl := range clusters {
		y := byCluster[cl]
		ys[i] = stat.Mean(y, nil)
		if len(y) >= 2 {
			_, sd := stat.MeanStdDev(y, nil)
			within = append(within, sd*sd/float64(len(y)))
		}
	}
	return CombineLogs(ys, within)
}

// clusteredUnpaired is the unpaired analysis over several clusters: each
// cluster's log ratio of means (delta-method variance va/ma² + vb/mb²),
// combined across clusters; ok false with fewer than two clusters (then
// the plain unpaired analysis holds).
func clusteredUnpaired(c Comparison) (Estimate, bool, error) {
	other, base := map[string][]float64{}, map[string][]float64{}
	var clusters []string
	note := func(m map[string][]float64, b Block, x float64) {
		if _, seen := other[b.Cluster]; !seen {
			if _, seen := base[b.Cluster]; !seen {
				clusters = append(clusters, b.Cluster)
			}
		}
		m[b.Cluster] = append(m[b.Cluster], x)
	}
	for i, x := range c.Other {
		note(other, c.OtherBlocks[i], x)
	}
	for i, x := range c.Base {
		note(base, c.BaseBlocks[i], x)
	}
	var ys, within []float64
	for _, cl := range clusters {
		a, b := Describe(other[cl]), Describe(base[cl])
		if a.N == 0 || b.N == 0 {
			continue
		}
		if a.Mean <= 0 || b.Mean <= 0 {
			return Estimate{LogRatio: math.NaN()}, true, ErrNotPositive
		}
		ys = append(ys, math.Log(a.Mean/b.Mean))
		if a.N >= 2 && b.N >= 2 {
			within = append(within, a.varOfMean()/(a.Mean*a.Mean)+b.varOfMean()/(b.Mean*b.Mean))
		}
	}
	if len(ys) < 2 {
		return Estimate{}, false, nil
	}
	e, err := CombineLogs(ys, within)
	return e, true, err
}

// blocked reports whether c is analysed by blocks under the rule: the
// rule asks for it (or leaves it to the design) and c's runs name their
// blocks.
func (r Rule) blocked(c Comparison) bool {
	return r.Analysis != AnalysisUnpaired && len(c.OtherBlocks) == len(c.Other) && len(c.BaseBlocks) == len(c.Base) && len(c.Other) > 0
}

// AnalysisOf is the analysis a rule applies to comparisons whose runs
// name their blocks (blocked says so): the one a report's Method states.
func (r Rule) AnalysisOf(blocked bool) string {
	if blocked && r.Analysis != AnalysisUnpaired {
		return AnalysisBlocked
	}
	return AnalysisUnpaired
}
