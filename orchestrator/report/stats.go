package report

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/orch-bench/orch/orchestrator/stats"
)

// Alpha is the significance level of the comparisons.
const Alpha = 0.05

// Sample describes one label's steady-state figures over its runs.
type Sample struct {
	N    int
	Mean float64
	// SD is the sample standard deviation (n-1); NaN with one run.
	SD float64
	// CILow, CIHigh bound the 95% confidence interval of the mean from
	// Student's t with n-1 degrees of freedom; NaN with one run.
	CILow, CIHigh float64
}

// Describe computes n, mean, standard deviation and the 95% confidence
// interval of xs (NaN values are skipped).
func Describe(xs []float64) Sample {
	xs = finite(xs)
	s := Sample{N: len(xs), Mean: math.NaN(), SD: math.NaN(), CILow: math.NaN(), CIHigh: math.NaN()}
	switch len(xs) {
	case 0:
		return s
	case 1:
		s.Mean = xs[0]
		return s
	}
	s.Mean, s.SD = stat.MeanStdDev(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(s.N - 1)}.Quantile(0.975)
	half := t * s.SD / math.Sqrt(float64(s.N))
	s.CILow, s.CIHigh = s.Mean-half, s.Mean+half
	return s
}

// TTest is the outcome of Welch's unequal-variance t-test, and the level
// it is decided at.
type TTest struct {
	T, DF, P float64
	// Level is the alpha this comparison is decided at (0: Alpha), which
	// Holm's correction lowers when a table compares several
	// configurations with one baseline; M is how many it corrects for.
	// The comparison's interval is printed at 1-Level, so it excludes 1
	// exactly when the test is significant.
	Level float64
	M     int
}

// Significant reports p below the comparison's level.
func (t TTest) Significant() bool { return t.P < t.level() }

func (t TTest) level() float64 {
	if t.Level > 0 {
		return t.Level
	}
	return Alpha
}

// Errors of Welch for samples it cannot test.
var (
	ErrNoRuns     = errors.New("n/a (no run ended ok)")
	ErrTooFew     = errors.New("n/a (one run)")
	ErrNoVariance = errors.New("n/a (no variation in either sample)")
)

// Welch runs Welch's two-sided t-test of mean(a) = mean(b) (stats.Welch),
// which does not assume equal variances: engines and settings differ in
// how steady they are as much as in how fast. NaN values are skipped.
func Welch(a, b []float64) (TTest, error) {
	a, b = finite(a), finite(b)
	if len(a) < 2 || len(b) < 2 {
		return TTest{}, ErrTooFew
	}
	t, err := stats.Welch(stats.Describe(a), stats.Describe(b))
	if errors.Is(err, stats.ErrNoVariance) {
		return TTest{}, ErrNoVariance
	}
	if err != nil {
		return TTest{}, err
	}
	return TTest{T: t.T, DF: t.DF, P: t.P}, nil
}

func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// meanOf is the mean of the finite values, NaN when there are none.
func meanOf(xs []float64) float64 {
	xs = finite(xs)
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}
