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
	// The step a standard error of the ratio makes (delta method).
	scale := math.Sqrt(va+r*r*vb) / math.Abs(b.Mean)
	iv.Low, iv.High = bound(f, r, -scale), bound(f, r, scale)
	iv.Unbounded = math.IsInf(iv.Low, 0) || math.IsInf(iv.High, 0)
	return iv, nil
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
	for i := 0; i < 200 && in != out; i++ {
		mid := (in + out) / 2
		if mid == in || mid == out {
			break
		}
		if f(mid) > 0 {
			out = mid
		} else {
			in = mid
		}
	}
	return in
}
