package stats

import (
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the significance level of one comparison (before Holm).
const Alpha = 0.05

// Sample describes a set of runs' figures: n, mean, sample standard
// deviation (n-1; NaN with one value) and the 95% interval of the mean.
type Sample struct {
	N             int
	Mean, SD      float64
	CILow, CIHigh float64
}

// Describe computes a Sample of the finite values of xs.
func Describe(xs []float64) Sample {
	xs = Finite(xs)
	s := Sample{N: len(xs), Mean: math.NaN(), SD: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	switch len(xs) {
	case 0:
		return s
	case 1:
		s.Mean = xs[0]
		return s
	}
	s.Mean, s.SD = stat.MeanStdDev(xs, nil)
	half := tQuantile(1-Alpha/2, float64(s.N-1)) * s.SD / math.Sqrt(float64(s.N))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// varOfMean is the variance of the sample's mean, s²/n.
func (s Sample) varOfMean() float64 { return s.SD * s.SD / float64(s.N) }

// Finite drops NaN and infinite values.
func Finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// tQuantile is Student's t quantile; an infinite df is the normal's.
func tQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return distuv.UnitNormal.Quantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// welchDF is the Welch–Satterthwaite degrees of freedom of the variance
// va + k²·vb of a - k·b (va, vb the variances of the two means).
func welchDF(va, vb float64, na, nb int, k float64) float64 {
	num := va + k*k*vb
	den := va*va/float64(na-1) + k*k*k*k*vb*vb/float64(nb-1)
	if den == 0 {
		return math.Inf(1)
	}
	return num * num / den
}
