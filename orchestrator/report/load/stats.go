package load

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/orch-bench/orch/orchestrator/stats"
)

func Finite(xs []float64) []float64 { return stats.Finite(xs) }

// MeanOf is the mean of the finite values, NaN when there are none.
func MeanOf(xs []float64) float64 {
	xs = Finite(xs)
	if len(xs) == 0 {
		return math.NaN()
	}
	return stat.Mean(xs, nil)
}

// Median of the finite values, NaN when there are none.
func Median(xs []float64) float64 {
	xs = Finite(xs)
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}
