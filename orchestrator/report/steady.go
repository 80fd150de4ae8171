package report

import (
	"math"
)

// MinDetectPoints is the shortest per-second series warm-up detection
// looks at: with fewer, a changepoint cannot be told from noise.
const MinDetectPoints = 8

// DetectWarmup finds where a run's rate settles: the end of the warm-up,
// as the time of the last interval before the steady state (0 when the
// series starts steady). It fits a mean shift by least squares
// (binary segmentation, Barrett et al. OOPSLA'17 use changepoints for the
// same question) and accepts a changepoint only if it explains more than
// the penalty 3·σ²·ln(n) of the squared deviations, σ being estimated from
// the first differences (robust to the shift itself). Changepoints are
// looked for in the first half of the series only: a late drop (a flush
// storm, a full cache) is part of what the run measured, not warm-up, and
// a series whose rate keeps changing is reported as such rather than
// trimmed to its end. ok is false when the series is too short.
func DetectWarmup(series []Point) (warmupS float64, ok bool) {
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
	start := steadyStart(vs, 0, n/2, penalty)
	if start == 0 {
		return 0, true
	}
	return ts[start-1], true
}

// steadyStart is binary segmentation: the index in xs (which starts at
// pos of the series) where the last accepted changepoint before limit
// puts the steady state. A changepoint after limit is a change during the
// run: only the part before it is searched further.
func steadyStart(xs []float64, pos, limit int, penalty float64) int {
	k, gain := bestShift(xs, len(xs))
	switch {
	case k <= 0 || gain <= penalty:
		return 0
	case pos+k > limit:
		return steadyStart(xs[:k], pos, limit, penalty)
	}
	return k + steadyStart(xs[k:], pos+k, limit, penalty)
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
	med := Median(d)
	for i := range d {
		d[i] = math.Abs(d[i] - med)
	}
	sigma := Median(d) / 0.6745 / math.Sqrt2
	if sigma == 0 {
		// Flat differences (a constant or a perfect ramp): fall back to a
		// small fraction of the level so only real shifts count.
		m := meanOf(xs)
		sigma = 0.01 * math.Abs(m)
	}
	return sigma * sigma
}
