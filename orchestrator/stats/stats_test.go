package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func scaled(xs []float64, k float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * k
	}
	return out
}

// The two cases a review of the old code reproduced: the interval and the
// significance beside it disagreed. Now 1 is inside the interval exactly
// when Welch's p >= 0.05.
func TestIntervalAndSignificanceAgree(t *testing.T) {
	cases := []struct{ a, b []float64 }{
		{[]float64{119.81, 116.78, 130.81, 108.29}, []float64{105.78, 80.61, 93.14}},
		{[]float64{143.19, 129.06}, []float64{92.72, 105.13, 89.97, 91.53}},
	}
	for _, c := range cases {
		a, b := Describe(c.a), Describe(c.b)
		iv, err := Fieller(a, b, Alpha)
		if err != nil {
			t.Fatal(err)
		}
		w, err := Welch(a, b)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Contains(1) != (w.P >= Alpha) {
			t.Errorf("a=%v b=%v: interval [%.4f, %.4f] and p=%.4f disagree", c.a, c.b, iv.Low, iv.High, w.P)
		}
	}
}

// Welch's test of a against r·b is the oracle for Fieller's set: at each
// bound the test's p is alpha, inside it is above.
func TestFiellerBoundsAreWelchAtAlpha(t *testing.T) {
	a := []float64{2111, 2050, 2188, 2075, 2140}
	b := []float64{1460, 1532, 1390, 1488}
	iv, err := Fieller(Describe(a), Describe(b), Alpha)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []float64{iv.Low, iv.High} {
		w, _ := Welch(Describe(a), Describe(scaled(b, r)))
		if math.Abs(w.P-Alpha) > 1e-6 {
			t.Errorf("at bound %.6f Welch p = %.8f, want %.2f", r, w.P, Alpha)
		}
	}
	mid, _ := Welch(Describe(a), Describe(scaled(b, (iv.Low+iv.High)/2)))
	if mid.P <= Alpha {
		t.Errorf("inside the interval p = %.4f", mid.P)
	}
	if r := Describe(a).Mean / Describe(b).Mean; !iv.Contains(r) {
		t.Errorf("interval [%v, %v] lacks the estimate %v", iv.Low, iv.High, r)
	}
}

func TestIntervalAgreesWithWelchOnRandomSamples(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	disagree := 0
	for i := 0; i < 4000; i++ {
		na, nb := 2+rng.IntN(6), 2+rng.IntN(6)
		ma, mb := 100.0, 100*(0.8+0.4*rng.Float64())
		sa, sb := 2+20*rng.Float64(), 2+20*rng.Float64()
		var a, b []float64
		for j := 0; j < na; j++ {
			a = append(a, ma+sa*rng.NormFloat64())
		}
		for j := 0; j < nb; j++ {
			b = append(b, mb+sb*rng.NormFloat64())
		}
		da, db := Describe(a), Describe(b)
		iv, err := Fieller(da, db, Alpha)
		if err != nil {
			continue
		}
		w, _ := Welch(da, db)
		if iv.Contains(1) != (w.P >= Alpha) {
			disagree++
			if disagree < 5 {
				t.Errorf("a=%v b=%v: [%v, %v] p=%v", a, b, iv.Low, iv.High, w.P)
			}
		}
	}
	if disagree > 0 {
		t.Errorf("%d of 4000 disagree", disagree)
	}
}

func TestFiellerUnboundedAndZeroBaseline(t *testing.T) {
	// The baseline's mean is not significantly above 0.
	iv, err := Fieller(Describe([]float64{10, 11, 12}), Describe([]float64{-5, 1, 8}), Alpha)
	if err != nil {
		t.Fatal(err)
	}
	if !iv.Unbounded || !math.IsInf(iv.HalfWidth(1), 1) {
		t.Errorf("want unbounded, got %+v", iv)
	}
	if _, err := Fieller(Describe([]float64{1, 2}), Describe([]float64{0, 0}), Alpha); !errors.Is(err, ErrZeroBaseline) {
		t.Errorf("zero baseline: %v", err)
	}
	if _, err := Fieller(Describe([]float64{1}), Describe([]float64{1, 2}), Alpha); !errors.Is(err, ErrTooFew) {
		t.Errorf("one run: %v", err)
	}
}

// Holm's step-down on four p-values (Holm 1979's procedure worked by hand):
// sorted 0.005 < 0.0125, 0.01 < 0.0167, 0.03 >= 0.025 stops.
func TestHolm(t *testing.T) {
	ds := Holm([]float64{0.01, 0.04, 0.03, 0.005}, 0.05)
	want := []struct {
		sig        bool
		adj, alpha float64
	}{{true, 0.03, 0.05 / 3}, {false, 0.06, 0.025}, {false, 0.06, 0.025}, {true, 0.02, 0.0125}}
	for i, w := range want {
		d := ds[i]
		if d.Significant != w.sig || math.Abs(d.Adjusted-w.adj) > 1e-12 || math.Abs(d.Alpha-w.alpha) > 1e-12 || d.M != 4 {
			t.Errorf("p[%d]=%v: got %+v, want %+v", i, d.P, d, w)
		}
		if d.Significant != (d.P < d.Alpha) {
			t.Errorf("p[%d]: decision and level disagree: %+v", i, d)
		}
	}
	one := Holm([]float64{0.04, math.NaN()}, 0.05)
	if !one[0].Significant || one[0].M != 1 || one[1].Significant {
		t.Errorf("a NaN is not a comparison: %+v", one)
	}
}

// R's power.t.test(delta=1, sd=1, power=0.8) gives n = 16.71 per group.
func TestRunsNeededUsesT(t *testing.T) {
	a := Sample{N: 3, Mean: 11, SD: 1}
	b := Sample{N: 3, Mean: 10, SD: 1}
	if n := RunsNeeded(a, b, Alpha); n != 17 {
		t.Errorf("RunsNeeded = %d, want 17", n)
	}
	// The normal approximation's (1.96+0.84)²·2 = 15.7 -> 16 understates it.
	if RunsNeeded(Sample{N: 1, Mean: 11, SD: math.NaN()}, b, Alpha) != 0 {
		t.Error("one run: want 0")
	}
	if RunsNeeded(Sample{N: 3, Mean: 10, SD: 1}, b, Alpha) != 0 {
		t.Error("no difference: want 0")
	}
}

// Welch's runs needed, worked by hand (moved from the report's tests).
func TestRunsNeededWorked(t *testing.T) {
	// 100, 110, 120: mean 110, sd 10.
	a := Describe([]float64{100, 110, 120})
	// b = 95, 105, 115: mean 105, sd 10. d = 5. With n runs a side the
	// Welch df is (100+100)²(n-1)/(100²+100²) = 2(n-1), and n must reach
	// (t(.975, ν) + t(.80, ν))² · 200/25. n = 64: ν = 126, t = 1.9790 and
	// 0.8446, 8 · 2.8236² = 63.78 <= 64; n = 63: ν = 124, 8 · 2.8240² =
	// 63.80 > 63. (The normal approximation said 63.)
	b := Describe([]float64{95, 105, 115})
	if n := RunsNeeded(a, b, Alpha); n != 64 {
		t.Errorf("RunsNeeded = %d, want 64", n)
	}
	// A difference far above the noise: sd 2 and 1, d = 5.5. n = 3:
	// ν = 25·2/17 = 2.94, t = 3.19 and 0.98, 4.17² · 5/30.25 = 2.87 <= 3;
	// n = 2: ν = 1.47, t(.975) > 7, far above 2. (The normal said 2.)
	if n := RunsNeeded(Describe([]float64{9, 11, 13}), Describe([]float64{4.5, 5.5, 6.5}), Alpha); n != 3 {
		t.Errorf("RunsNeeded = %d, want 3", n)
	}
	if n := RunsNeeded(Describe([]float64{1}), b, Alpha); n != 0 {
		t.Errorf("one run: RunsNeeded = %d, want 0", n)
	}
}
