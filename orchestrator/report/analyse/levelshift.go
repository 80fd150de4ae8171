package analyse

import (
	"math"
	"math/rand"
	"sort"
	"sync"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// ShiftAlpha is the level-shift test's false-alarm rate per run: the
// share of runs whose window is stationary (autocorrelated noise around
// one level) that the test still calls shifted. TestShiftFalseAlarms
// measures it on simulated series with the lab's autocorrelation and CV.
const ShiftAlpha = 0.05

// ShiftMinRel is the smallest shift the report calls a change of phase, as
// a share of the level before it: a significant shift smaller than this is
// noise for the comparison's purpose (a ±10% target).
const ShiftMinRel = 0.10

// ShiftMinSeg is the fewest intervals on each side of a shift: a phase of
// one or two seconds is a transient, not a level.
const ShiftMinSeg = 3

// TestShift tests a window's per-interval rates for one level shift: the
// least-squares two-segment split (each segment at least shiftMinSeg
// intervals), its mean difference standardised by the residual standard
// deviation inflated for lag-1 autocorrelation, long-run variance
// (1+ρ)/(1-ρ), ρ from the residuals with its small-sample bias corrected.
// The statistic is the maximum over all splits, so its critical value is
// that maximum's 1-ShiftAlpha quantile for autocorrelated noise of the same length,
// found by simulation (shiftCrit).
func TestShift(ps []load.Point) load.Shift {
	var ts, xs []float64
	for _, p := range ps {
		if !math.IsNaN(p.V) && !math.IsInf(p.V, 0) {
			ts, xs = append(ts, p.T), append(xs, p.V)
		}
	}
	ts, xs = binned(ts, xs)
	n := len(xs)
	s := load.Shift{N: n}
	if n < 2*ShiftMinSeg {
		return s
	}
	s.Tested = true
	step := load.StepOf(ps) * float64(binOf(len(ps)))
	s.FromS, s.ToS = ts[0]-step, ts[n-1]
	k, stat := shiftStat(xs)
	s.Stat = stat
	s.CritLo, s.Crit, s.CritHi = shiftCrit(n)
	s.Before, s.After = load.MeanOf(xs[:k]), load.MeanOf(xs[k:])
	s.AtS, s.NextS = ts[k-1], ts[k]-step
	if s.Before != 0 {
		s.Rel = s.After/s.Before - 1
	}
	s.Found = stat > s.Crit && math.Abs(s.Rel) >= ShiftMinRel
	return s
}

// shiftStat is the best split k (xs[:k], xs[k:]) and its standardised
// mean difference.
func shiftStat(xs []float64) (int, float64) {
	n := len(xs)
	total := 0.0
	for _, x := range xs {
		total += x
	}
	bestK, bestGain, left := 0, -1.0, 0.0
	for k := 1; k <= n-ShiftMinSeg; k++ {
		left += xs[k-1]
		if k < ShiftMinSeg {
			continue
		}
		ml, mr := left/float64(k), (total-left)/float64(n-k)
		if g := float64(k*(n-k)) / float64(n) * (ml - mr) * (ml - mr); g > bestGain {
			bestK, bestGain = k, g
		}
	}
	ml, mr := load.MeanOf(xs[:bestK]), load.MeanOf(xs[bestK:])
	res := make([]float64, n)
	ss := 0.0
	for i, x := range xs {
		m := ml
		if i >= bestK {
			m = mr
		}
		res[i] = x - m
		ss += res[i] * res[i]
	}
	if ss == 0 {
		if bestGain > 0 {
			return bestK, math.Inf(1)
		}
		return bestK, 0
	}
	num := 0.0
	for i := 1; i < n; i++ {
		num += res[i] * res[i-1]
	}
	// The lag-1 autocorrelation of residuals around fitted means is biased
	// low by about (1+3ρ)/n (Kendall, Marriott & Pope); corrected, then
	// kept in [0, 0.9]: negative autocorrelation would shrink the variance
	// and raise false alarms.
	rho := num / ss
	rho = math.Max(0, math.Min(0.9, rho+(1+3*rho)/float64(n)))
	v := ss / float64(n-2) * (1 + rho) / (1 - rho)
	return bestK, math.Sqrt(bestGain / v)
}

var (
	critMu    sync.Mutex
	critCache = map[int][3]float64{}
)

// shiftSims is how many white-noise series shiftCrit simulates: the
// quantile's standard error is then about 0.3% of the false-alarm rate.
const shiftSims = 4000

// ShiftPhi is the lag-1 autocorrelation the critical value is set for:
// the test's false-alarm rate is at most ShiftAlpha for stationary noise
// autocorrelated up to it (TestShiftFalseAlarms: 0.5% at 0, 5% at 0.3,
// about 10% at 0.5). The lab's stationary runs measure -0.37 to 0.18
// (the demo's InnoDB runs, the shared sysbench samples); the estimate of
// rho that shiftStat corrects for is too noisy on 15-60 points to rely on
// alone.
const ShiftPhi = 0.3

// shiftCrit is the 1-ShiftAlpha quantile of shiftStat on n points of
// Gaussian AR(1) noise with coefficient shiftPhi, simulated with a fixed
// seed (the same report every time) and kept per n, with the quantiles at
// 1-ShiftAlpha ∓ 1.96·√(α(1-α)/shiftSims) either side (lo, hi): the
// band in which the critical value of another simulation would fall 19
// times in 20.
func shiftCrit(n int) (lo, crit, hi float64) {
	critMu.Lock()
	defer critMu.Unlock()
	if c, ok := critCache[n]; ok {
		return c[0], c[1], c[2]
	}
	rng := rand.New(rand.NewSource(int64(n)))
	stats := make([]float64, shiftSims)
	xs := make([]float64, n)
	for i := range stats {
		e := rng.NormFloat64()
		for j := range xs {
			e = ShiftPhi*e + math.Sqrt(1-ShiftPhi*ShiftPhi)*rng.NormFloat64()
			xs[j] = e
		}
		_, stats[i] = shiftStat(xs)
	}
	sort.Float64s(stats)
	at := func(q float64) float64 {
		return stats[min(shiftSims, max(1, int(math.Ceil(q*shiftSims))))-1]
	}
	band := 1.96 * math.Sqrt(ShiftAlpha*(1-ShiftAlpha)/shiftSims)
	c := [3]float64{at(1 - ShiftAlpha - band), at(1 - ShiftAlpha), at(1 - ShiftAlpha + band)}
	critCache[n] = c
	return c[0], c[1], c[2]
}

// shiftMaxN is the most points TestShift tests: a longer window (an
// hour of seconds) is tested on the means of consecutive intervals, at
// most shiftMaxN of them, so that simulating its critical value stays a
// fraction of a second.
const shiftMaxN = 600

func binOf(n int) int { return (n + shiftMaxN - 1) / shiftMaxN }

// binned is the series as means of binOf(n) consecutive points, each at
// its last point's time (the series itself when short enough).
func binned(ts, xs []float64) ([]float64, []float64) {
	k := binOf(len(xs))
	if k <= 1 {
		return ts, xs
	}
	var bt, bx []float64
	for i := 0; i < len(xs); i += k {
		j := min(i+k, len(xs))
		bt, bx = append(bt, ts[j-1]), append(bx, load.MeanOf(xs[i:j]))
	}
	return bt, bx
}
