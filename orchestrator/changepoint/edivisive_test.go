package changepoint

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The Fenwick sums must equal the pairwise sums they stand for.
func TestPrefixWithinMatchesPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 23)
	for i := range xs {
		xs[i] = math.Round(rng.NormFloat64() * 3) // ties on purpose
	}
	fw, bw := prefixWithin(xs, false), prefixWithin(xs, true)
	for i := 0; i <= len(xs); i++ {
		if got, want := fw[i], pairs(xs[:i]); math.Abs(got-want) > 1e-9 {
			t.Fatalf("first %d: %v, want %v", i, got, want)
		}
		if got, want := bw[i], pairs(xs[len(xs)-i:]); math.Abs(got-want) > 1e-9 {
			t.Fatalf("last %d: %v, want %v", i, got, want)
		}
	}
}

func pairs(xs []float64) float64 {
	s := 0.0
	for i := range xs {
		for j := i + 1; j < len(xs); j++ {
			s += math.Abs(xs[i] - xs[j])
		}
	}
	return s
}

func TestDetectStep(t *testing.T) {
	xs := []float64{100, 101, 99, 100, 102, 98, 100, 90, 91, 89, 90, 92, 88}
	cps := Detect(xs, nil, Options{Seed: 1})
	if len(cps) != 1 || cps[0].Index != 7 {
		t.Fatalf("change points %+v, want one at 7", cps)
	}
	if r := cps[0].Relative(); math.Abs(r-(-0.1)) > 0.005 {
		t.Errorf("relative change %.4f, want -0.10", r)
	}
	if cps[0].P > 0.05 {
		t.Errorf("p %.3f above alpha", cps[0].P)
	}
	// Same series, same answer (the permutations are seeded).
	again := Detect(xs, nil, Options{Seed: 1})
	if again[0] != cps[0] {
		t.Errorf("not reproducible: %+v then %+v", cps[0], again[0])
	}
}

// With blocks, a split falls only between campaigns: the step inside
// campaign 2 moves to one of its edges.
func TestDetectBlocks(t *testing.T) {
	xs := []float64{100, 100.5, 99.5, 100, 99, 101, 100, 90, 90.5, 89.5, 90, 91, 89}
	blocks := []int{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3}
	cps := Detect(xs, blocks, Options{Seed: 1})
	if len(cps) != 1 || (cps[0].Index != 6 && cps[0].Index != 9) {
		t.Fatalf("change points %+v, want one at a campaign boundary (6 or 9)", cps)
	}
}

func TestDetectTwoSteps(t *testing.T) {
	var xs []float64
	wobble := []float64{0.4, -0.3, 0.1, -0.5, 0.2, 0.3, -0.2, 0.0, 0.5, -0.4, 0.1, -0.2}
	for i := 0; i < 36; i++ {
		level := 100.0
		switch {
		case i >= 24:
			level = 120
		case i >= 12:
			level = 90
		}
		xs = append(xs, level+wobble[i%len(wobble)])
	}
	cps := Detect(xs, nil, Options{Seed: 2})
	if len(cps) != 2 || cps[0].Index != 12 || cps[1].Index != 24 {
		t.Fatalf("change points %+v, want 12 and 24", cps)
	}
}

func TestDetectShortSeries(t *testing.T) {
	if cps := Detect([]float64{1, 2, 3}, nil, Options{}); len(cps) != 0 {
		t.Errorf("3 points: %+v, want none (too short to split)", cps)
	}
}

// Three campaigns of three runs, the third far lower: the split is the
// third campaign whatever the seed, with the exact p over all 1,680
// arrangements of the nine values into three blocks of three: only those
// putting the three low values together in the first or the last block
// (20 arrangements of the others each) score as high, 40/1680.
func TestDetectExactThreeCampaigns(t *testing.T) {
	xs := []float64{100, 101, 99, 100.5, 99.5, 100, 36, 37, 35}
	blocks := []int{0, 0, 0, 1, 1, 1, 2, 2, 2}
	if n := arrangements([]int{3, 3, 3}, exactLimit); n != 1680 {
		t.Fatalf("arrangements of 3+3+3: %d, want 1680", n)
	}
	for seed := uint64(0); seed < 60; seed++ {
		cps := Detect(xs, blocks, Options{Seed: seed})
		if len(cps) != 1 || cps[0].Index != 6 || math.Abs(cps[0].P-40.0/1680) > 1e-12 {
			t.Fatalf("seed %d: change points %+v, want one at 6 with p = 40/1680", seed, cps)
		}
	}
	// Two campaigns of three can never be significant at 5%: the least
	// exact p is 2/C(6,3) = 0.1.
	if cps := Detect(xs[:6:6], blocks[:6], Options{Seed: 1}); len(cps) != 0 {
		t.Errorf("two campaigns: %+v, want none", cps)
	}
	if cps := Detect([]float64{100, 101, 99, 36, 37, 35}, blocks[:6], Options{Seed: 1}); len(cps) != 0 {
		t.Errorf("two campaigns far apart: %+v, want none (least p 0.1)", cps)
	}
	// Beyond the limit the shuffles decide (ten campaigns of a matrix's
	// three runs).
	if n := arrangements([]int{10, 3, 3}, exactLimit); n <= exactLimit {
		t.Errorf("arrangements of 10+3+3: %d, want beyond %d", n, exactLimit)
	}
}
