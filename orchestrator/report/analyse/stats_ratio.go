package analyse

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// RatioCI is a confidence interval of mean(a)/mean(b) by Fieller's
// method (stats.Fieller): the set of ratios r for which a - r·b is not
// significantly different from zero. It is stated as Fieller's (not a
// bootstrap) because with the 2-5 repetitions a matrix usually has,
// resampling repetitions gives a handful of distinct values and an
// interval narrower than the data support.
type RatioCI struct {
	Low, High float64
	// Level is the interval's alpha: 0.05 for a 95% interval, lower under
	// Holm's correction (see TTest.Level).
	Level float64
}

// ErrUnbounded: the baseline's mean is not significantly different from
// zero at this confidence, so the ratio's interval is not a finite range.
var ErrUnbounded = errors.New("unbounded (the baseline's mean is not significantly above 0)")

// FiellerCI is the 95% interval of mean(a)/mean(b).
func FiellerCI(a, b []float64) (RatioCI, error) { return FiellerAt(a, b, Alpha) }

// FiellerAt is the 1-alpha interval of mean(a)/mean(b) for independent
// samples; ErrUnbounded when a side has no finite bound, and the error of
// stats.Ratio when the baseline's mean is 0.
func FiellerAt(a, b []float64, alpha float64) (RatioCI, error) {
	a, b = load.Finite(a), load.Finite(b)
	if len(a) < 2 || len(b) < 2 {
		return RatioCI{}, ErrTooFew
	}
	iv, err := stats.Fieller(stats.Describe(a), stats.Describe(b), alpha)
	if err != nil {
		return RatioCI{}, err
	}
	if iv.Unbounded {
		return RatioCI{Level: alpha}, ErrUnbounded
	}
	return RatioCI{Low: iv.Low, High: iv.High, Level: alpha}, nil
}

// CV is the coefficient of variation sd/mean; NaN with fewer than two
// values or a zero mean.
func CV(s Sample) float64 {
	if s.N < 2 || s.Mean == 0 {
		return math.NaN()
	}
	return s.SD / math.Abs(s.Mean)
}

// MaxCV is the coefficient of variation above which a configuration is
// flagged as noisy (pbench's --max-stddev default).
const MaxCV = 0.05

// MinMannWhitney is the smallest n per side for which the report runs a
// Mann-Whitney test: with fewer, even a complete separation cannot reach
// p < 0.05 by much and the rank test says little.
const MinMannWhitney = 5

// UTest is the outcome of a two-sided Mann-Whitney U test.
type UTest struct {
	U float64 // U of the first sample: pairs (a, b) with a > b, ties ½
	P float64
	// Exact is set when P comes from the exact distribution of U (no ties,
	// both samples of at most 20); else the normal approximation with tie
	// and continuity corrections.
	Exact bool
}

// MannWhitney tests whether a and b come from the same distribution without
// assuming normality (benchstat's default for benchmark results).
func MannWhitney(a, b []float64) (UTest, error) {
	a, b = load.Finite(a), load.Finite(b)
	n1, n2 := len(a), len(b)
	if n1 < 1 || n2 < 1 {
		return UTest{}, ErrTooFew
	}
	u := 0.0
	for _, x := range a {
		for _, y := range b {
			switch {
			case x > y:
				u++
			case x == y:
				u += 0.5
			}
		}
	}
	ties := tieGroups(append(append([]float64(nil), a...), b...))
	if len(ties) == 0 && n1 <= 20 && n2 <= 20 {
		return UTest{U: u, P: exactUP(u, n1, n2), Exact: true}, nil
	}
	n := float64(n1 + n2)
	mu := float64(n1*n2) / 2
	tc := 0.0
	for _, t := range ties {
		tc += t*t*t - t
	}
	sigma2 := float64(n1*n2) / 12 * ((n + 1) - tc/(n*(n-1)))
	if sigma2 <= 0 {
		return UTest{U: u, P: 1}, nil
	}
	z := (math.Abs(u-mu) - 0.5) / math.Sqrt(sigma2)
	if z < 0 {
		z = 0
	}
	return UTest{U: u, P: math.Min(1, 2*distuv.UnitNormal.Survival(z))}, nil
}

// exactUP is the two-sided p-value of U for samples of n1 and n2 without
// ties: twice the smaller tail of U's null distribution, which counts, for
// each u, the rank arrangements (of C(n1+n2, n1)) giving that U.
func exactUP(u float64, n1, n2 int) float64 {
	// f[i][j][k]: arrangements of i values of a and j of b with U = k.
	maxU := n1 * n2
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // no a value: U = 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		for j := 0; j <= n2; j++ {
			cur[j] = make([]float64, maxU+1)
			for k := 0; k <= maxU; k++ {
				// The largest value is an a (it beats all j b's) or a b.
				v := 0.0
				if k-j >= 0 {
					v += prev[j][k-j]
				}
				if j > 0 {
					v += cur[j-1][k]
				}
				cur[j][k] = v
			}
		}
		prev = cur
	}
	dist := prev[n2]
	total := 0.0
	for _, c := range dist {
		total += c
	}
	k := int(math.Round(u))
	lower, upper := 0.0, 0.0
	for i, c := range dist {
		if i <= k {
			lower += c
		}
		if i >= k {
			upper += c
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}

// tieGroups returns the sizes of the groups of equal values (size > 1).
func tieGroups(xs []float64) []float64 {
	slices.Sort(xs)
	var out []float64
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		if j-i > 1 {
			out = append(out, float64(j-i))
		}
		i = j
	}
	return out
}
