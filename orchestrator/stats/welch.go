package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TTest is the outcome of Welch's unequal-variance t-test of mean(a) =
// mean(b).
type TTest struct {
	T, DF, P float64
}

// Errors for samples that cannot be compared.
var (
	ErrNoRuns     = errors.New("n/a (no run ended ok)")
	ErrTooFew     = errors.New("n/a (one run)")
	ErrNoVariance = errors.New("n/a (no variation in either sample)")
)

// Welch tests mean(a) = mean(b) without assuming equal variances: engines
// and settings differ in how steady they are as much as in how fast.
func Welch(a, b Sample) (TTest, error) {
	if a.N == 0 || b.N == 0 {
		return TTest{}, ErrNoRuns
	}
	if a.N < 2 || b.N < 2 {
		return TTest{}, ErrTooFew
	}
	va, vb := a.varOfMean(), b.varOfMean()
	if va+vb == 0 {
		return TTest{}, ErrNoVariance
	}
	t := (a.Mean - b.Mean) / math.Sqrt(va+vb)
	df := welchDF(va, vb, a.N, b.N, 1)
	p := 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(math.Abs(t))
	return TTest{T: t, DF: df, P: p}, nil
}
