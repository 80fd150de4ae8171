package report

import (
	"errors"
	"math"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.9g, want %.9g (±%g)", what, got, want, tol)
	}
}

func TestDescribeKnownValues(t *testing.T) {
	// Mean 5, sum of squared deviations 32: sd = sqrt(32/7). Student's t
	// 0.975 quantile for 7 degrees of freedom is 2.364624251 (tables).
	s := analyse.Describe([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.N != 8 {
		t.Fatalf("N = %d, want 8", s.N)
	}
	near(t, "mean", s.Mean, 5, 1e-12)
	sd := math.Sqrt(32.0 / 7)
	near(t, "sd", s.SD, sd, 1e-12)
	half := 2.364624251 * sd / math.Sqrt(8)
	near(t, "ci low", s.CILow, 5-half, 1e-6)
	near(t, "ci high", s.CIHigh, 5+half, 1e-6)

	// n=2: the t quantile for 1 degree of freedom is 12.70620474.
	s = analyse.Describe([]float64{1, 3})
	near(t, "n=2 ci high", s.CIHigh, 2+12.70620474*math.Sqrt(2)/math.Sqrt(2), 1e-6)
}

func TestDescribeFewValues(t *testing.T) {
	s := analyse.Describe([]float64{math.NaN(), 42})
	if s.N != 1 || s.Mean != 42 || !math.IsNaN(s.SD) || !math.IsNaN(s.CILow) {
		t.Errorf("one value: %+v, want n=1 mean=42 and no sd or CI", s)
	}
	s = analyse.Describe(nil)
	if s.N != 0 || !math.IsNaN(s.Mean) {
		t.Errorf("no value: %+v, want n=0 and NaN mean", s)
	}
}

func TestWelchTwoDegreesOfFreedom(t *testing.T) {
	// Means 2 and 6, variances 2 and 2, n=2 each: se² = 1+1, t = -4/√2,
	// df = 2² / (1/1 + 1/1) = 2. For 2 degrees of freedom the two-sided
	// p-value has a closed form: 1 - |t|/sqrt(2+t²).
	tt, err := analyse.Welch([]float64{1, 3}, []float64{5, 7})
	if err != nil {
		t.Fatal(err)
	}
	want := -4 / math.Sqrt(2)
	near(t, "t", tt.T, want, 1e-12)
	near(t, "df", tt.DF, 2, 1e-12)
	near(t, "p", tt.P, 1-math.Abs(want)/math.Sqrt(2+want*want), 1e-9)
	if tt.Significant() {
		t.Errorf("p=%.3f reported significant", tt.P)
	}
}

func TestWelchUnequalVariances(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	b := []float64{2, 4, 6, 8, 10}
	// By hand: variances 2.5 and 10, se² = 0.5+2 = 2.5, t = -3/√2.5,
	// df = 2.5² / (0.5²/4 + 2²/4) = 6.25/1.0625.
	tt, err := analyse.Welch(a, b)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "t", tt.T, -3/math.Sqrt(2.5), 1e-12)
	near(t, "df", tt.DF, 6.25/1.0625, 1e-12)
	near(t, "p", tt.P, tTwoSided(tt.T, tt.DF), 1e-6)
}

func TestWelchSignificant(t *testing.T) {
	a := []float64{3196.03, 3210.4, 3188.2, 3201.7}
	b := []float64{2155.97, 2160.1, 2149.5}
	tt, err := analyse.Welch(a, b)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "p", tt.P, tTwoSided(tt.T, tt.DF), 1e-6)
	if !tt.Significant() || tt.P > 1e-6 {
		t.Errorf("p = %g for means a thousand apart with sd ~ 10, want tiny and significant", tt.P)
	}
}

func TestWelchRefusesWhatItCannotTest(t *testing.T) {
	if _, err := analyse.Welch([]float64{1}, []float64{1, 2}); !errors.Is(err, analyse.ErrTooFew) {
		t.Errorf("one run: err = %v, want ErrTooFew", err)
	}
	if _, err := analyse.Welch([]float64{1, math.NaN()}, []float64{1, 2}); !errors.Is(err, analyse.ErrTooFew) {
		t.Errorf("one finite run: err = %v, want ErrTooFew", err)
	}
	if _, err := analyse.Welch([]float64{3, 3}, []float64{4, 4}); !errors.Is(err, analyse.ErrNoVariance) {
		t.Errorf("constant samples: err = %v, want ErrNoVariance", err)
	}
}

// tTwoSided integrates Student's t density (Simpson's rule) to get the
// two-sided p-value: an independent check of the library's CDF.
func tTwoSided(t, df float64) float64 {
	lg1, _ := math.Lgamma((df + 1) / 2)
	lg2, _ := math.Lgamma(df / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(df*math.Pi)
	pdf := func(x float64) float64 { return c * math.Pow(1+x*x/df, -(df+1)/2) }
	x := math.Abs(t)
	const n = 20000
	h := x / n
	s := pdf(0) + pdf(x)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * pdf(float64(i)*h)
	}
	return 1 - 2*s*h/3
}
