package analyse

import (
	"math"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// MinDetectPoints is the shortest per-second series warm-up detection
// looks at: with fewer, a changepoint cannot be told from noise.
const MinDetectPoints = 8

// DetectWarmup finds where a run's rate settles: the end of the warm-up,
// as the time of the last interval before the steady state (0 when the
// series starts steady). It fits mean shifts by least squares (binary
// segmentation, Barrett et al. OOPSLA'17 use changepoints for the same
// question) and accepts a changepoint only if it explains more than the
// penalty 3·σ²·ln(n) of the squared deviations, σ being estimated from
// the first differences (robust to the shift itself). Changepoints are
// looked for in the first half of the series only: a late drop (a flush
// storm, a full cache) is part of what the run measured, not warm-up, and
// a series whose rate keeps changing is reported as such rather than
// trimmed to its end. A warm-up is a sustained change from the start: the
// steady state begins with the first segment already at the final
// level, so a dip that recovers within the first half (a shift down and
// back up: a transient, e.g. an instrument's pause) ends no warm-up.
// ok is false when the series is too short.
func DetectWarmup(series []load.Point) (warmupS float64, ok bool) {
	var ts, vs []float64
	for _, p := range series {
		if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
			ts, vs = append(ts, p.T), append(vs, p.V)
		}
	}
	n := len(vs)
	if n < MinDetectPoints {
		return 0, false
	}
	sigma2 := noiseVariance(vs)
	penalty := 3 * sigma2 * math.Log(float64(n))
	cuts := changepoints(vs, 0, n/2, penalty)
	if len(cuts) == 0 {
		return 0, true
	}
	// Segments [0, c1), [c1, c2), ..., [cm, n): the steady state starts
	// with the first one whose level a shift test cannot tell from the
	// last one's.
	bounds := append(append([]int{0}, cuts...), n)
	last := vs[bounds[len(bounds)-2]:]
	for i := 0; i < len(bounds)-1; i++ {
		if seg := vs[bounds[i]:bounds[i+1]]; shiftGain(seg, last) <= penalty {
			if bounds[i] == 0 {
				return 0, true
			}
			return ts[bounds[i]-1], true
		}
	}
	return ts[cuts[len(cuts)-1]-1], true
}

// changepoints is binary segmentation: the accepted changepoints of xs
// (which starts at pos of the series) at or before limit, in order. A
// changepoint after limit is a change during the run: only the part
// before it is searched further.
func changepoints(xs []float64, pos, limit int, penalty float64) []int {
	k, gain := bestShift(xs, len(xs))
	switch {
	case k <= 0 || gain <= penalty:
		return nil
	case pos+k > limit:
		return changepoints(xs[:k], pos, limit, penalty)
	}
	out := changepoints(xs[:k], pos, limit, penalty)
	out = append(out, pos+k)
	return append(out, changepoints(xs[k:], pos+k, limit, penalty)...)
}

// shiftGain is how much of the squared deviation of a and b together a
// mean shift between them explains: |a||b|/(|a|+|b|)·(mean a - mean b)².
func shiftGain(a, b []float64) float64 {
	na, nb := float64(len(a)), float64(len(b))
	if na == 0 || nb == 0 {
		return 0
	}
	d := load.MeanOf(a) - load.MeanOf(b)
	return na * nb / (na + nb) * d * d
}

// bestShift returns the k in [1, maxK] that splits xs into xs[:k] and
// xs[k:] with the smallest total squared deviation from the two means, and
// how much that is below the deviation from one mean.
func bestShift(xs []float64, maxK int) (int, float64) {
	n := len(xs)
	if n < 4 {
		return 0, 0
	}
	if maxK > n-2 {
		maxK = n - 2 // at least two steady points after the shift
	}
	total := 0.0
	for _, x := range xs {
		total += x
	}
	// The reduction in squared deviation of a split at k is
	// k(n-k)/n · (mean(left) - mean(right))².
	bestK, bestGain, left := 0, 0.0, 0.0
	for k := 1; k <= maxK; k++ {
		left += xs[k-1]
		ml, mr := left/float64(k), (total-left)/float64(n-k)
		gain := float64(k*(n-k)) / float64(n) * (ml - mr) * (ml - mr)
		if gain > bestGain {
			bestK, bestGain = k, gain
		}
	}
	return bestK, bestGain
}

// noiseVariance estimates the variance of the noise around the series'
// level from its first differences: for independent noise, a difference
// has twice its variance, and the median absolute deviation (scaled by
// 1/0.6745 to a standard deviation) ignores the few large differences a
// level shift makes.
func noiseVariance(xs []float64) float64 {
	d := make([]float64, len(xs)-1)
	for i := 1; i < len(xs); i++ {
		d[i-1] = xs[i] - xs[i-1]
	}
	med := load.Median(d)
	for i := range d {
		d[i] = math.Abs(d[i] - med)
	}
	sigma := load.Median(d) / 0.6745 / math.Sqrt2
	if sigma == 0 {
		// Flat differences (a constant or a perfect ramp): fall back to a
		// small fraction of the level so only real shifts count.
		m := load.MeanOf(xs)
		sigma = 0.01 * math.Abs(m)
	}
	return sigma * sigma
}
