package recheck

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// The steady-state test, recomputed from the runs' own window intervals
// (run.series) by the method docs/reports.md states: a configuration's
// runs, each over its own mean, averaged at the client seconds every
// run's window has; split in two where least squares puts one level
// shift (3 s or more each side); the two means' difference over its
// standard error, the residuals' variance inflated by (1+ρ)/(1-ρ) for
// their lag-1 autocorrelation ρ (bias-corrected by (1+3ρ)/n, kept in
// [0, 0.9]); significant when above the 95% quantile of the same
// statistic's maximum over splits on AR(1) noise (ρ 0.3), simulated
// here with this package's own generator and seed; a change of phase
// when also 10% or more of the earlier level.

// The method's constants, as its Method paragraph states them (like the
// 5% noise threshold, not figures of the runs).
const (
	shiftAlpha  = 0.05 // false alarm rate
	shiftMinRel = 0.10 // smallest change called a phase
	shiftSeg    = 3    // fewest intervals each side
	shiftRho    = 0.3  // AR(1) coefficient the critical value is set for
	// shiftMaxPts: a longer window is tested on means of consecutive
	// intervals, at most this many.
	shiftMaxPts = 600
	// critSims are this package's simulations per length (fewer for
	// long windows, at least critSimsMin: the cost is sims x points); the
	// report simulates reportSims: the critical value each finds is
	// uncertain, so a statistic within critBand of the 95% quantile (in
	// quantile level: 2.58 standard errors of the report's estimate, 99%
	// of its seeds, plus 3 of this one's) decides nothing.
	critSims    = 100000
	critSimsMin = 20000
	reportSims  = 4000
)

// simsFor is how many series critical simulates for n points.
func simsFor(n int) int { return max(critSimsMin, min(critSims, 4_000_000/max(n, 1))) }

// critBand is that uncertainty for sims simulations of this package's.
func critBand(sims int) float64 {
	v := shiftAlpha * (1 - shiftAlpha)
	return 2.58*math.Sqrt(v/reportSims) + 3*math.Sqrt(v/float64(sims))
}

// verdict is a decision recomputed with a simulated critical value.
type verdict int

const (
	no verdict = iota
	yes
	unsure // the statistic is within the critical value's uncertainty
)

// split is one series' best two-segment split.
type split struct {
	tested               bool
	n                    int
	at, next             float64 // last second before, first after (its interval's start)
	before, after, rel   float64
	stat, critLo, critHi float64
	from, to             float64 // the tested stretch's ends
	found                verdict // significant and at least shiftMinRel
}

// testSplit tests points (client second, rate) for one level shift.
func testSplit(pts [][2]float64) split {
	ts, xs := binMeans(pts)
	s := split{n: len(xs)}
	if s.n < 2*shiftSeg {
		return s
	}
	s.tested = true
	step := commonStep(pts) * float64(binSize(len(pts)))
	k, stat := bestSplit(xs)
	s.stat = stat
	s.before, s.after = mean(xs[:k]), mean(xs[k:])
	s.at, s.next = ts[k-1], ts[k]-step
	s.from, s.to = ts[0]-step, ts[len(ts)-1]
	if s.before != 0 {
		s.rel = s.after/s.before - 1
	}
	s.critLo, s.critHi = critical(s.n)
	switch {
	case math.Abs(s.rel) < shiftMinRel || stat < s.critLo:
		s.found = no
	case stat > s.critHi:
		s.found = yes
	default:
		s.found = unsure
	}
	return s
}

// bestSplit is the k minimising the two segments' squared deviations
// from their means (xs[:k], xs[k:], each at least shiftSeg long) and the
// t statistic of that split's mean difference.
func bestSplit(xs []float64) (int, float64) {
	n := len(xs)
	pre := make([]float64, n+1)
	for i, x := range xs {
		pre[i+1] = pre[i] + x
	}
	// Σ(x-m)² over a segment is Σx² - (Σx)²/len: with Σx² fixed, the
	// least squares split maximises the explained part.
	bestK, best := 0, 0.0
	for k := shiftSeg; k <= n-shiftSeg; k++ {
		l, r := pre[k], pre[n]-pre[k]
		if e := l*l/float64(k) + r*r/float64(n-k); bestK == 0 || e > best {
			bestK, best = k, e
		}
	}
	ml, mr := pre[bestK]/float64(bestK), (pre[n]-pre[bestK])/float64(n-bestK)
	var ss, lag, prev float64
	for i, x := range xs {
		e := x - ml
		if i >= bestK {
			e = x - mr
		}
		ss += e * e
		if i > 0 {
			lag += e * prev
		}
		prev = e
	}
	d := math.Abs(ml - mr)
	if ss == 0 {
		if d > 0 {
			return bestK, math.Inf(1)
		}
		return bestK, 0
	}
	rho := lag / ss
	rho = math.Min(0.9, math.Max(0, rho+(1+3*rho)/float64(n)))
	v := ss / float64(n-2) * (1 + rho) / (1 - rho)
	return bestK, d / math.Sqrt(v*(1/float64(bestK)+1/float64(n-bestK)))
}

var (
	critMu    sync.Mutex
	critCache = map[int][2]float64{}
)

// critical is the band of bestSplit's 95% quantile on n points of AR(1)
// noise (coefficient shiftRho), simulated (seed fixed: the same answer
// every time): its quantiles at 0.95 ∓ critBand.
func critical(n int) (lo, hi float64) {
	critMu.Lock()
	defer critMu.Unlock()
	if c, ok := critCache[n]; ok {
		return c[0], c[1]
	}
	rng := rand.New(rand.NewPCG(36, uint64(n)))
	sims := simsFor(n)
	stats := make([]float64, sims)
	xs := make([]float64, n)
	for i := range stats {
		e := rng.NormFloat64() // stationary start
		for j := range xs {
			e = shiftRho*e + math.Sqrt(1-shiftRho*shiftRho)*rng.NormFloat64()
			xs[j] = e
		}
		_, stats[i] = bestSplit(xs)
	}
	sort.Float64s(stats)
	q := func(level float64) float64 {
		return stats[min(sims-1, max(0, int(math.Ceil(level*float64(sims)))-1))]
	}
	band := critBand(sims)
	c := [2]float64{q(1 - shiftAlpha - band), q(1 - shiftAlpha + band)}
	critCache[n] = c
	return c[0], c[1]
}

// binSize is how many consecutive intervals a point of the test holds.
func binSize(n int) int { return (n + shiftMaxPts - 1) / shiftMaxPts }

// binMeans is the series as means of binSize consecutive points, each at
// its last point's second.
func binMeans(pts [][2]float64) (ts, xs []float64) {
	k := max(1, binSize(len(pts)))
	for i := 0; i < len(pts); i += k {
		j := min(i+k, len(pts))
		sum := 0.0
		for _, p := range pts[i:j] {
			sum += p[1]
		}
		ts, xs = append(ts, pts[j-1][0]), append(xs, sum/float64(j-i))
	}
	return ts, xs
}

// commonStep is the most frequent spacing of the points' seconds (the
// client's report interval), 1 s when there is none.
func commonStep(pts [][2]float64) float64 {
	count := map[float64]int{}
	best, bestN := 1.0, 0
	for i := 1; i < len(pts); i++ {
		d := math.Round((pts[i][0]-pts[i-1][0])*1000) / 1000
		if d <= 0 {
			continue
		}
		count[d]++
		if c := count[d]; c > bestN || c == bestN && d < best {
			best, bestN = d, c
		}
	}
	return best
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// phases is a configuration's steady-state test recomputed: its runs'
// mean profile's split (pooled), and how many runs (each by its own
// best split) moved the same way within tol of it.
type phases struct {
	pooled                 split
	tested, shifted        int
	alone                  int      // shifted runs whose own test is significant
	aloneUnsure            []string // shifted runs whose own test decides nothing
	atMin, atMax, windowS  float64
	agree                  bool
	runs                   []*run
	runSplits              map[*run]split
	label                  string
	reportFound, usedFound bool // what the report said, what the checks used
}

// phaseTol is how far apart runs' shifts may be and still be one change.
func phaseTol(windowS float64) float64 { return math.Max(3, windowS/5) }

// testPhases recomputes a configuration's steady-state test.
func testPhases(label string, rs []*run) *phases {
	p := &phases{label: label, runSplits: map[*run]split{}}
	sum, count := map[float64]float64{}, map[float64]int{}
	for _, r := range rs {
		s := testSplit(r.series)
		vs := make([]float64, len(r.series))
		for i, pt := range r.series {
			vs[i] = pt[1]
		}
		m := mean(vs)
		if !s.tested || m == 0 || math.IsNaN(m) {
			continue
		}
		p.runs = append(p.runs, r)
		p.runSplits[r] = s
		p.windowS = math.Max(p.windowS, s.to-s.from)
		for _, pt := range r.series {
			sum[pt[0]] += pt[1] / m
			count[pt[0]]++
		}
	}
	p.tested = len(p.runs)
	var pooled [][2]float64
	for t, c := range count {
		if c == p.tested {
			pooled = append(pooled, [2]float64{t, sum[t] / float64(c)})
		}
	}
	sort.Slice(pooled, func(i, j int) bool { return pooled[i][0] < pooled[j][0] })
	p.pooled = testSplit(pooled)
	p.atMin, p.atMax = p.pooled.at, p.pooled.next
	tol := phaseTol(p.windowS)
	for _, r := range p.runs {
		s := p.runSplits[r]
		if math.Abs(s.rel) < shiftMinRel || (s.rel < 0) != (p.pooled.rel < 0) || math.Abs(s.at-p.pooled.at) > tol {
			continue
		}
		p.shifted++
		switch s.found {
		case yes:
			p.alone++
		case unsure:
			p.aloneUnsure = append(p.aloneUnsure, r.id)
		}
		p.atMin, p.atMax = math.Min(p.atMin, s.at), math.Max(p.atMax, s.next)
	}
	p.agree = p.shifted == p.tested
	return p
}

// phaseMeans is each run's mean rate over its window's intervals ending
// at or before cut (later: after it), runs with fewer than two left out.
func phaseMeans(rs []*run, cut float64, later bool) []float64 {
	var out []float64
	for _, r := range rs {
		var xs []float64
		for _, pt := range r.series {
			if (pt[0] > cut) == later {
				xs = append(xs, pt[1])
			}
		}
		if len(xs) >= 2 {
			out = append(out, mean(xs))
		}
	}
	return out
}
