package stats

import (
	"errors"
	"math"
)

// Interval is a confidence interval of a ratio of means at level 1-Alpha.
// An unbounded side is ±Inf (Unbounded set): the baseline's mean is not
// significantly different from 0 at that level, so no finite range holds
// the ratio.
type Interval struct {
	Low, High float64
	Alpha     float64
	Unbounded bool
}

// Contains reports whether r lies in the interval.
func (iv Interval) Contains(r float64) bool { return r >= iv.Low && r <= iv.High }

// HalfWidth is half the interval's width relative to the point estimate r
// (0.054 for [0.70, 0.78] around 0.74); +Inf when unbounded.
func (iv Interval) HalfWidth(r float64) float64 {
	if iv.Unbounded {
		return math.Inf(1)
	}
	return (iv.High - iv.Low) / 2 / math.Abs(r)
}

// ErrZeroBaseline: the baseline's mean is 0, so there is no ratio.
var ErrZeroBaseline = errors.New("no ratio: the baseline is 0")

// Ratio is mean(a)/mean(b), or ErrZeroBaseline.
func Ratio(a, b Sample) (float64, error) {
	if b.Mean == 0 {
		return math.NaN(), ErrZeroBaseline
	}
	return a.Mean / b.Mean, nil
}

// Fieller is the 1-alpha interval of mean(a)/mean(b) for independent
// samples: every r for which a - r·b is not significantly different from 0
// by Welch's t statistic
//
//	(ma - r·mb)² <= t²(ν(r)) · (va + r²·vb),
//
// va and vb the variances of the means, ν(r) the Welch–Satterthwaite
// degrees of freedom of va + r²·vb. The bounds are found by bracketing and
// bisection (ν depends on r, so they are no longer a quadratic's roots).
// At r = 1 the condition is Welch's test: the interval excludes 1 exactly
// when Welch's p < alpha.
func Fieller(a, b Sample, alpha float64) (Interval, error) {
	if a.N == 0 || b.N == 0 {
		return Interval{}, ErrNoRuns
	}
	if a.N < 2 || b.N < 2 {
		return Interval{}, ErrTooFew
	}
	r, err := Ratio(a, b)
	if err != nil {
		return Interval{}, err
	}
	va, vb := a.varOfMean(), b.varOfMean()
	iv := Interval{Alpha: alpha}
	if va+r*r*vb == 0 {
		iv.Low, iv.High = r, r
		return iv, nil
	}
	// f(r) <= 0 inside the interval; f(estimate) < 0.
	f := func(x float64) float64 {
		t := tQuantile(1-alpha/2, welchDF(va, vb, a.N, b.N, x))
		d := a.Mean - x*b.Mean
		return d*d - t*t*(va+x*x*vb)
	}
	// Each bound is a fixed point: the root of the quadratic whose t is
	// taken at the degrees of freedom of that very root. A few rounds of
	// it converge (t changes slowly with r); bisection on f is the
	// fallback when they do not, or when the quadratic opens downwards.
	tAt := func(x float64) float64 { return tQuantile(1-alpha/2, welchDF(va, vb, a.N, b.N, x)) }
	scale := math.Sqrt(va+r*r*vb) / math.Abs(b.Mean) // a standard error of the ratio
	for side, sign := range []float64{-1, 1} {
		x, ok := fixedPoint(a.Mean, b.Mean, va, vb, r, sign, tAt)
		if !ok || f(x+sign*1e-6*scale) <= 0 {
			x = bound(f, r, sign*scale)
		}
		if side == 0 {
			iv.Low = x
		} else {
			iv.High = x
		}
	}
	iv.Unbounded = math.IsInf(iv.Low, 0) || math.IsInf(iv.High, 0)
	return iv, nil
}

// fixedPoint iterates r_{k+1} = the lower (sign -1) or upper root of
//
//	r²(mb² - t²vb) - 2r·ma·mb + (ma² - t²va) = 0,  t = t(ν(r_k)).
func fixedPoint(ma, mb, va, vb, r0, sign float64, tAt func(float64) float64) (float64, bool) {
	x := r0
	for i := 0; i < 30; i++ {
		t := tAt(x)
		t2 := t * t
		qa := mb*mb - t2*vb
		disc := t2 * (va*mb*mb + vb*ma*ma - t2*va*vb)
		if qa <= 0 || disc < 0 {
			return 0, false
		}
		next := (ma*mb + sign*math.Sqrt(disc)) / qa
		if math.Abs(next-x) <= 1e-12*math.Abs(next) {
			return next, true
		}
		x = next
	}
	return 0, false
}

// bound walks from x0 (where f < 0) in steps of step, doubling, until f
// turns positive, then bisects to the crossing; ±Inf when f stays below 0
// out to 2^60 steps (the set is unbounded on that side).
func bound(f func(float64) float64, x0, step float64) float64 {
	in, h := x0, step
	out := math.NaN()
	for i := 0; i < 60; i++ {
		if x := x0 + h; f(x) > 0 {
			out = x
			break
		} else {
			in = x
		}
		h *= 2
	}
	if math.IsNaN(out) {
		return math.Copysign(math.Inf(1), step)
	}
	// Bisect to a relative 1e-9 of the estimate: far below any digit a
	// report prints.
	tol := 1e-9 * math.Max(math.Abs(x0), math.Abs(step))
	for math.Abs(out-in) > tol {
		mid := (in + out) / 2
		if f(mid) > 0 {
			out = mid
		} else {
			in = mid
		}
	}
	return in
}
