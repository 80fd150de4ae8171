package stats

import (
	"math"
	"sort"
)

// Decision is one comparison's outcome under Holm's step-down correction
// for m comparisons against one baseline.
type Decision struct {
	// P is the comparison's own (unadjusted) p-value; Adjusted is Holm's
	// adjusted p-value (monotone, at most 1).
	P, Adjusted float64
	// Alpha is the level this comparison is decided at, and the one its
	// interval is printed at (1-Alpha): Alpha/(m-k+1) for the k-th
	// smallest p while the step-down goes on, and the stopping step's
	// level for every comparison after it. So the interval excludes 1
	// exactly when Significant.
	Alpha       float64
	Significant bool
	// M is the number of comparisons corrected for.
	M int
}

// Holm decides m comparisons whose p-values are ps at family-wise level
// alpha. A NaN p (a comparison that could not be tested) is not counted
// in m and is never significant.
func Holm(ps []float64, alpha float64) []Decision {
	out := make([]Decision, len(ps))
	var idx []int
	for i, p := range ps {
		out[i] = Decision{P: p, Adjusted: math.NaN(), Alpha: alpha}
		if !math.IsNaN(p) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return ps[idx[x]] < ps[idx[y]] })
	m := len(idx)
	stopped := false
	level, adj := alpha, 0.0
	for k, i := range idx {
		if !stopped {
			level = alpha / float64(m-k)
		}
		adj = math.Max(adj, math.Min(1, float64(m-k)*ps[i]))
		sig := !stopped && ps[i] < level
		if !sig {
			stopped = true
		}
		out[i] = Decision{P: ps[i], Adjusted: adj, Alpha: level, Significant: sig, M: m}
	}
	return out
}
