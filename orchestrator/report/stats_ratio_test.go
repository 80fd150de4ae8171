package report

import (
	"errors"
	"math"
	"testing"
)

func TestFiellerHandComputed(t *testing.T) {
	// a = 9, 11, 13: mean 11, s² = (4+0+4)/2 = 4, va = s²/n = 4/3.
	// b = 4.5, 5.5, 6.5: mean 5.5, s² = 1, vb = 1/3. r = 11/5.5 = 2.
	// Welch–Satterthwaite at r: va + r²vb = 4/3 + 4/3 = 8/3;
	//   df = (8/3)² / ((4/3)²/2 + 16(1/3)²/2) = (64/9) / (16/9) = 4.
	// t(0.975, 4) = 2.776445105 (tables), t² = 7.708647422.
	// A = mb² - t²vb = 30.25 - 7.708647422/3 = 27.680450859
	// disc = t²(va·mb² + vb·ma²) - t⁴·va·vb
	//      = 7.708647422·(40.333333 + 40.333333) - 59.42325·(4/9) = 595.420561
	// bounds = (ma·mb ∓ √disc)/A = (60.5 ∓ 24.401241)/27.680451
	//        = 1.304125 and 3.067191.
	ci, err := FiellerCI([]float64{9, 11, 13}, []float64{4.5, 5.5, 6.5})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "df", ci.DF, 4, 1e-9)
	near(t, "low", ci.Low, 1.304125, 1e-5)
	near(t, "high", ci.High, 3.067191, 1e-5)
	// The interval is not symmetric around r = 2: a ratio's never is.
	if !(ci.High-2 > 2-ci.Low) {
		t.Errorf("interval [%g, %g] should reach further above 2 than below", ci.Low, ci.High)
	}
}

func TestFiellerUnboundedAndTooFew(t *testing.T) {
	// b = 1, 3: mean 2, vb = s²/n = 2/2 = 1; a = 10, 12 (va = 1, r = 5).
	// df = (1 + 25)² / (1/1 + 625/1) = 676/626 ≈ 1.08, t ≈ 11.5, so
	// A = mb² - t²·vb = 4 - 132 < 0: the baseline's mean is not
	// significantly above zero and no finite interval exists.
	if _, err := FiellerCI([]float64{10, 12}, []float64{1, 3}); !errors.Is(err, ErrUnbounded) {
		t.Errorf("err = %v, want ErrUnbounded", err)
	}
	if _, err := FiellerCI([]float64{10}, []float64{1, 3}); !errors.Is(err, ErrTooFew) {
		t.Errorf("one run: err = %v, want ErrTooFew", err)
	}
}

func TestCVAndRepsNeeded(t *testing.T) {
	// 100, 110, 120: mean 110, sd 10, CV = 10/110 = 0.0909.
	a := Describe([]float64{100, 110, 120})
	near(t, "cv", CV(a), 10.0/110, 1e-12)
	// b = 95, 105, 115: mean 105, sd 10. d = 5.
	// (z.975 + z.80)² = (1.959964 + 0.841621)² = 7.848880
	// n = 7.848880 · (100 + 100) / 25 = 62.79 -> 63.
	b := Describe([]float64{95, 105, 115})
	if n := RepsNeeded(a, b); n != 63 {
		t.Errorf("RepsNeeded = %d, want 63", n)
	}
	// A difference far above the noise needs no more than the minimum:
	// 7.848880 · (4 + 1) / 5.5² = 1.30 -> 2.
	if n := RepsNeeded(Describe([]float64{9, 11, 13}), Describe([]float64{4.5, 5.5, 6.5})); n != 2 {
		t.Errorf("RepsNeeded = %d, want 2", n)
	}
	if n := RepsNeeded(Describe([]float64{1}), b); n != 0 {
		t.Errorf("one run: RepsNeeded = %d, want 0", n)
	}
}

func TestMedian(t *testing.T) {
	near(t, "odd", Median([]float64{5, 1, 3}), 3, 0)
	near(t, "even", Median([]float64{4, 1, 3, 2}), 2.5, 0)
	if !math.IsNaN(Median(nil)) {
		t.Error("median of nothing should be NaN")
	}
}

func TestMannWhitneyExact(t *testing.T) {
	// Complete separation, 5 vs 5: U = 0 for a. Of C(10,5) = 252 equally
	// likely rank arrangements exactly one gives U = 0 and one U = 25, so
	// the two-sided p = 2/252 = 0.0079365.
	u, err := MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Exact || u.U != 0 {
		t.Errorf("got %+v, want exact U=0", u)
	}
	near(t, "p", u.P, 2.0/252, 1e-12)

	// One swap: a = 1,2,3,4,6 b = 5,7,8,9,10: U = 1 (6 > 5). Arrangements
	// with U <= 1: U=0 (1) and U=1 (1), so p = 2·2/252 = 0.015873.
	u, _ = MannWhitney([]float64{1, 2, 3, 4, 6}, []float64{5, 7, 8, 9, 10})
	near(t, "U", u.U, 1, 0)
	near(t, "p one swap", u.P, 4.0/252, 1e-12)
}

func TestMannWhitneyTiesNormal(t *testing.T) {
	// a = 1,1,2 b = 2,3,3: U = pairs a > b plus half the ties: the 2 in a
	// ties the 2 in b (0.5), nothing else wins: U = 0.5. Ties: {1,1}, {2,2},
	// {3,3}: Σ(t³-t) = 3·6 = 18. n = 6, mean U = 4.5,
	// σ² = 9/12 · (7 - 18/30) = 0.75 · 6.4 = 4.8.
	// z = (|0.5 - 4.5| - 0.5)/√4.8 = 3.5/2.19089 = 1.59752,
	// p = 2·(1 - Φ(1.59752)) = 0.110148.
	u, err := MannWhitney([]float64{1, 1, 2}, []float64{2, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	if u.Exact {
		t.Error("ties: want the normal approximation")
	}
	near(t, "U", u.U, 0.5, 0)
	near(t, "p", u.P, 0.110148, 1e-5)
}
