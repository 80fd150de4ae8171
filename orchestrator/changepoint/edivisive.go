// Package changepoint finds where a benchmark series' level changes:
// E-divisive means (Matteson and James 2014, as MongoDB's performance CI
// and Apache Otava use it), each split kept only when a permutation test
// finds it significant, applied recursively to the segments it leaves.
//
// Why this method: a benchmark series is short (tens of points), noisy
// (the lab's runs vary by CV 5-13%) and not normal (stalls make long left
// tails). E-divisive's statistic compares the distributions on either side
// of a split through mean absolute differences, so it needs no
// distribution and no noise estimate, and the permutation test gives each
// accepted split a stated false-alarm rate (Alpha) whatever the noise
// looks like. A segment of few campaigns is tested exactly, over every
// arrangement of its values into its campaigns (exactLimit), so that a
// short history's answer does not hang on the shuffles drawn. The simulation (simulate.go, asserted in the tests, printed
// by make bench) measures that rate and the detection of planted shifts.
//
// Splits can be restricted to block boundaries: the runs of one campaign
// (a matrix's repetitions, interleaved with other configurations) share
// everything, so a level change between two of them is noise by
// construction; only a boundary between campaigns can be a change point.
package changepoint

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Options tune the detector; the zero value takes the defaults.
type Options struct {
	// Alpha is each split's significance level (default 0.05).
	Alpha float64
	// Permutations is the permutation test's size (default 199: the
	// smallest p it can give is 1/200).
	Permutations int
	// MinSize is the fewest values a segment keeps on either side of a
	// split (default 2).
	MinSize int
	// Seed makes the permutations reproducible: the same series always
	// gets the same answer.
	Seed uint64
}

func (o Options) withDefaults() Options {
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.Permutations <= 0 {
		o.Permutations = 199
	}
	if o.MinSize < 2 {
		o.MinSize = 2
	}
	return o
}

// ChangePoint is a split the test kept: the first index of the new level,
// the permutation p-value, and the means of the segments on either side
// (after every split is known).
type ChangePoint struct {
	Index         int
	P             float64
	Before, After float64
}

// Relative is the change of level as a fraction of the level before
// (+0.1: 10% higher).
func (c ChangePoint) Relative() float64 { return c.After/c.Before - 1 }

// Detect finds the change points of xs. blocks, when not nil, gives each
// value's block (non-decreasing along xs): a split falls only where the
// block changes.
func Detect(xs []float64, blocks []int, o Options) []ChangePoint {
	o = o.withDefaults()
	rng := rand.New(rand.NewPCG(o.Seed, uint64(len(xs))))
	allowed := func(i int) bool { return blocks == nil || blocks[i] != blocks[i-1] }
	type seg struct{ lo, hi int }
	queue := []seg{{0, len(xs)}}
	var cps []ChangePoint
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		at, q := bestSplit(xs[s.lo:s.hi], o.MinSize, func(i int) bool { return allowed(s.lo + i) })
		if at < 0 {
			continue
		}
		p := permutationP(xs[s.lo:s.hi], q, o, rng, func(i int) bool { return allowed(s.lo + i) })
		if p > o.Alpha {
			continue
		}
		cps = append(cps, ChangePoint{Index: s.lo + at, P: p})
		queue = append(queue, seg{s.lo, s.lo + at}, seg{s.lo + at, s.hi})
	}
	sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	for i := range cps {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = cps[i-1].Index
		}
		if i+1 < len(cps) {
			hi = cps[i+1].Index
		}
		cps[i].Before, cps[i].After = mean(xs[lo:cps[i].Index]), mean(xs[cps[i].Index:hi])
	}
	return cps
}

// permutationP is the share of shuffles of xs whose best split scores at
// least q (the observed one counted, so never 0). It stops early once the
// answer cannot fall below alpha. A segment of few blocks is tested
// exactly (exactP).
func permutationP(xs []float64, q float64, o Options, rng *rand.Rand, allowed func(int) bool) float64 {
	if sizes := blockSizes(len(xs), allowed); arrangements(sizes, exactLimit) <= exactLimit {
		return exactP(xs, q, sizes, o, allowed)
	}
	perm := append([]float64(nil), xs...)
	limit := int(math.Ceil(o.Alpha * float64(o.Permutations+1)))
	ge := 1
	for i := 0; i < o.Permutations; i++ {
		rng.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		if _, qp := bestSplit(perm, o.MinSize, allowed); atLeast(qp, q) {
			ge++
			if ge > limit {
				return float64(ge) / float64(i+2)
			}
		}
	}
	return float64(ge) / float64(o.Permutations+1)
}

// atLeast is qp >= q up to rounding: the same values in another order
// within a block score the same statistic, summed in another order, and
// must count as scoring it.
func atLeast(qp, q float64) bool { return qp >= q-1e-9*math.Abs(q) }

// exactLimit is the most arrangements of a segment's values into its
// blocks that are tested exactly, every one of them, rather than by
// Permutations shuffles. Splits fall only between blocks, so the statistic
// depends only on which values each block holds: a short history (three
// campaigns of three runs: 1,680 arrangements) gets its exact p, where 199
// shuffles would miss even a clean change at the last campaign (exact p
// 40/1680 = 0.024) about once in 50 series.
const exactLimit = 5000

// blockSizes are the lengths of the runs of values between allowed
// splits.
func blockSizes(n int, allowed func(int) bool) []int {
	var sizes []int
	start := 0
	for i := 1; i < n; i++ {
		if allowed(i) {
			sizes = append(sizes, i-start)
			start = i
		}
	}
	return append(sizes, n-start)
}

// arrangements is the multinomial n!/(b1!...bk!), or more than limit.
func arrangements(sizes []int, limit int) int {
	// Block by block, the product only grows (each factor n/i >= 1).
	total, n := 1.0, 0
	for _, b := range sizes {
		for i := 1; i <= b; i++ {
			n++
			if total = total * float64(n) / float64(i); total > float64(limit) {
				return limit + 1
			}
		}
	}
	return int(math.Round(total))
}

// exactP is the share of all arrangements of xs into blocks of the given
// sizes whose best split scores at least q (the observed arrangement is
// one of them, so never 0). It stops once the answer is above alpha.
func exactP(xs []float64, q float64, sizes []int, o Options, allowed func(int) bool) float64 {
	n := len(xs)
	count := arrangements(sizes, exactLimit)
	limit := int(math.Floor(o.Alpha * float64(count)))
	perm := make([]float64, 0, n)
	used := make([]bool, n)
	ge := 0
	var fill func(block, from, left int) bool
	// fill chooses the values of each block as an increasing set of
	// indices (from: the smallest index it may take next; left: values
	// still to choose); it returns false to stop early.
	fill = func(block, from, left int) bool {
		if left == 0 {
			if block+1 == len(sizes) {
				if _, qp := bestSplit(perm, o.MinSize, allowed); atLeast(qp, q) {
					ge++
					return ge <= limit
				}
				return true
			}
			return fill(block+1, 0, sizes[block+1])
		}
		for i := from; i < n; i++ {
			if used[i] {
				continue
			}
			used[i] = true
			perm = append(perm, xs[i])
			ok := fill(block, i+1, left-1)
			perm = perm[:len(perm)-1]
			used[i] = false
			if !ok {
				return false
			}
		}
		return true
	}
	fill(0, 0, sizes[0]) // stopped early, the share is above alpha already
	return float64(ge) / float64(count)
}

// bestSplit is the split of xs with the largest E-divisive statistic
// (exponent 1) among those leaving minSize values on each side where
// allowed says yes, and that statistic; -1 when there is none.
//
//	Q(τ) = m·k/(m+k) · (2/(m·k)·B − W_L/C(m,2) − W_R/C(k,2))
//
// with B the sum of |x_i − x_j| across the split and W_L, W_R the sums
// within each side. Sums of absolute differences to earlier values come
// from Fenwick trees over ranks, so a scan is O(n log n).
func bestSplit(xs []float64, minSize int, allowed func(int) bool) (int, float64) {
	n := len(xs)
	if n < 2*minSize {
		return -1, 0
	}
	wl := prefixWithin(xs, false)
	wr := prefixWithin(xs, true) // wr[i]: within sum of xs[n-i:]
	total := wl[n]
	best, bestQ := -1, math.Inf(-1)
	for t := minSize; t <= n-minSize; t++ {
		if !allowed(t) {
			continue
		}
		m, k := float64(t), float64(n-t)
		wL, wR := wl[t], wr[n-t]
		b := total - wL - wR
		q := m * k / (m + k) * (2*b/(m*k) - wL/(m*(m-1)/2) - wR/(k*(k-1)/2))
		if q > bestQ {
			best, bestQ = t, q
		}
	}
	return best, bestQ
}

// prefixWithin returns w with w[i] the sum of |x_a − x_b| over pairs
// among the first i values (the last i when reverse).
func prefixWithin(xs []float64, reverse bool) []float64 {
	n := len(xs)
	sorted := append([]float64(nil), xs...)
	sort.Float64s(sorted)
	cnt := make([]float64, n+1)
	sum := make([]float64, n+1)
	w := make([]float64, n+1)
	var seenN, seenSum float64
	for step := 0; step < n; step++ {
		i := step
		if reverse {
			i = n - 1 - step
		}
		x := xs[i]
		r := sort.SearchFloat64s(sorted, x) + 1 // 1-based rank, ties share it
		// Values seen so far that are <= x: count and sum.
		var c, s float64
		for j := r; j > 0; j -= j & -j {
			c += cnt[j]
			s += sum[j]
		}
		w[step+1] = w[step] + (c*x - s) + (seenSum - s) - (seenN-c)*x
		for j := r; j <= n; j += j & -j {
			cnt[j]++
			sum[j] += x
		}
		seenN++
		seenSum += x
	}
	return w
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
