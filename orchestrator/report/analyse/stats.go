package analyse

import (
	"errors"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Alpha is the significance level of the comparisons.
const Alpha = stats.Alpha

// Sample describes one label's steady-state figures over its runs: n,
// mean, sample standard deviation (n-1; NaN with one run) and the 95%
// interval of the mean from Student's t (stats.Sample).
type Sample = stats.Sample

// Describe computes a Sample of xs (NaN values are skipped).
func Describe(xs []float64) Sample { return stats.Describe(xs) }

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
func (t TTest) Significant() bool { return t.P < t.DecidedAt() }

func (t TTest) DecidedAt() float64 {
	if t.Level > 0 {
		return t.Level
	}
	return Alpha
}

// Errors of Welch for samples it cannot test (stats', which the judge
// returns).
var (
	ErrNoRuns     = stats.ErrNoRuns
	ErrTooFew     = stats.ErrTooFew
	ErrNoVariance = stats.ErrNoVariance
)

// Welch runs Welch's two-sided t-test of mean(a) = mean(b) (stats.Welch),
// which does not assume equal variances: engines and settings differ in
// how steady they are as much as in how fast. NaN values are skipped.
func Welch(a, b []float64) (TTest, error) {
	a, b = load.Finite(a), load.Finite(b)
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
