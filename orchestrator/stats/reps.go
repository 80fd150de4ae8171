package stats

import "math"

// Power is the power RunsNeeded plans for.
const Power = 0.8

// RunsNeeded is the smallest number of runs per configuration (at least
// 2) for which a two-sided Welch test at alpha would detect the observed
// difference of means with Power, given the observed standard deviations:
//
//	n >= (t(1-α/2, ν) + t(Power, ν))² · (s_a² + s_b²) / (m_a - m_b)²
//
// with ν the Welch–Satterthwaite degrees of freedom for n runs a side.
// Student's t, not the normal: with the few runs a matrix has, the normal
// approximation understates n (4 instead of 6 on a 2+2 demo). 0 when it
// cannot be computed (fewer than two runs a side, no difference); capped
// at 10^6.
func RunsNeeded(a, b Sample, alpha float64) int {
	if a.N < 2 || b.N < 2 {
		return 0
	}
	d := a.Mean - b.Mean
	va, vb := a.SD*a.SD, b.SD*b.SD
	if d == 0 || math.IsNaN(d) || va+vb == 0 {
		return 0
	}
	need := func(n int) bool {
		df := math.Inf(1)
		if den := (va*va + vb*vb) / float64(n-1); den > 0 {
			df = (va + vb) * (va + vb) / den
		}
		z := tQuantile(1-alpha/2, df) + tQuantile(Power, df)
		return float64(n) >= z*z*(va+vb)/(d*d)
	}
	return smallest(need)
}

// ExpectedRounds is how many rounds a comparison of two configurations
// with run-to-run coefficient of variation cv is expected to need before
// its interval's half-width is within precision of the ratio (near 1):
// the smallest n in [minRounds, maxRounds] with
//
//	t(1-α/2, 2n-2) · cv · √(2/n) <= precision,
//
// and false when even maxRounds are not expected to suffice.
func ExpectedRounds(cv, precision float64, minRounds, maxRounds int) (int, bool) {
	if !(cv >= 0) || precision <= 0 {
		return maxRounds, false
	}
	for n := max(minRounds, 2); n <= maxRounds; n++ {
		if tQuantile(1-Alpha/2, float64(2*n-2))*cv*math.Sqrt(2/float64(n)) <= precision {
			return n, true
		}
	}
	return maxRounds, false
}

// BlocksNeeded is the blocked analysis's RunsNeeded: the smallest number
// of blocks (rounds, one run of each side in each) for which Student's t
// on the blocks' log ratios, at alpha, would detect the estimate's mean
// log ratio with Power, given the blocks' own spread (e's standard error
// times √blocks):
//
//	n >= (t(1-α/2, n-1) + t(Power, n-1))² · s² / d²
//
// A blocked comparison is planned with the analysis that will judge it:
// Welch's n (RunsNeeded) ignores the round effect the blocks cancel, and
// says "need 15" where 6 rounds would do (or the reverse when rounds are
// anti-correlated). 0 when it cannot be computed; capped at 10^6.
func BlocksNeeded(e Estimate, alpha float64) int {
	d := e.LogRatio
	s := e.SE * math.Sqrt(e.DF+1)
	if e.DF < 1 || d == 0 || math.IsNaN(d) || math.IsNaN(s) || s == 0 {
		return 0
	}
	need := func(n int) bool {
		z := tQuantile(1-alpha/2, float64(n-1)) + tQuantile(Power, float64(n-1))
		return float64(n) >= z*z*s*s/(d*d)
	}
	return smallest(need)
}

// smallest is the smallest n >= 2 for which need holds (need is monotone
// in n), by doubling then bisection; capped at 10^6.
func smallest(need func(n int) bool) int {
	lo, hi := 1, 2
	for !need(hi) {
		lo, hi = hi, hi*2
		if hi >= 1_000_000 {
			return 1_000_000
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if need(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}
