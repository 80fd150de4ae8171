package report

import (
	"errors"
	"math"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

func TestFiellerHandComputed(t *testing.T) {
	// a = 9, 11, 13: mean 11, s² = 4, va = s²/n = 4/3.
	// b = 4.5, 5.5, 6.5: mean 5.5, s² = 1, vb = 1/3. r = 11/5.5 = 2.
	// Fieller's set is every r with (ma - r·mb)² <= t²(ν(r))·(va + r²vb),
	// ν(r) the Welch–Satterthwaite df of va + r²vb: 4 at r = 2, but
	// (va + r²vb)² / (va²/2 + r⁴vb²/2) = 3.367 at both bounds. With a
	// fixed df of 4 the bounds would be 1.304125 and 3.067191 (the roots
	// of the quadratic with t(0.975, 4) = 2.776445); with the df of each
	// r they are wider, 1.257331 and 3.181341, and there Welch's test of a
	// against r·b has p = 0.05 exactly, which is what makes the interval
	// and the significance agree.
	ci, err := analyse.FiellerCI([]float64{9, 11, 13}, []float64{4.5, 5.5, 6.5})
	if err != nil {
		t.Fatal(err)
	}
	near(t, "low", ci.Low, 1.257331, 1e-5)
	near(t, "high", ci.High, 3.181341, 1e-5)
	for _, r := range []float64{ci.Low, ci.High} {
		w, err := analyse.Welch([]float64{9, 11, 13}, []float64{4.5 * r, 5.5 * r, 6.5 * r})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "p at a bound", w.P, 0.05, 1e-6)
		near(t, "df at a bound", w.DF, 3.3673, 1e-3)
	}
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
	if _, err := analyse.FiellerCI([]float64{10, 12}, []float64{1, 3}); !errors.Is(err, analyse.ErrUnbounded) {
		t.Errorf("err = %v, want ErrUnbounded", err)
	}
	if _, err := analyse.FiellerCI([]float64{10}, []float64{1, 3}); !errors.Is(err, analyse.ErrTooFew) {
		t.Errorf("one run: err = %v, want ErrTooFew", err)
	}
}

func TestCV(t *testing.T) {
	// 100, 110, 120: mean 110, sd 10, CV = 10/110 = 0.0909.
	near(t, "cv", analyse.CV(analyse.Describe([]float64{100, 110, 120})), 10.0/110, 1e-12)
}

func TestMedian(t *testing.T) {
	near(t, "odd", load.Median([]float64{5, 1, 3}), 3, 0)
	near(t, "even", load.Median([]float64{4, 1, 3, 2}), 2.5, 0)
	if !math.IsNaN(load.Median(nil)) {
		t.Error("median of nothing should be NaN")
	}
}

func TestMannWhitneyExact(t *testing.T) {
	// Complete separation, 5 vs 5: U = 0 for a. Of C(10,5) = 252 equally
	// likely rank arrangements exactly one gives U = 0 and one U = 25, so
	// the two-sided p = 2/252 = 0.0079365.
	u, err := analyse.MannWhitney([]float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Exact || u.U != 0 {
		t.Errorf("got %+v, want exact U=0", u)
	}
	near(t, "p", u.P, 2.0/252, 1e-12)

	// One swap: a = 1,2,3,4,6 b = 5,7,8,9,10: U = 1 (6 > 5). Arrangements
	// with U <= 1: U=0 (1) and U=1 (1), so p = 2·2/252 = 0.015873.
	u, _ = analyse.MannWhitney([]float64{1, 2, 3, 4, 6}, []float64{5, 7, 8, 9, 10})
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
	u, err := analyse.MannWhitney([]float64{1, 1, 2}, []float64{2, 3, 3})
	if err != nil {
		t.Fatal(err)
	}
	if u.Exact {
		t.Error("ties: want the normal approximation")
	}
	near(t, "U", u.U, 0.5, 0)
	near(t, "p", u.P, 0.110148, 1e-5)
}
