package changepoint

import (
	"math/rand/v2"
	"sort"
)

// Scenario is a simulated history: campaigns of Reps runs each, every run
// normal around its campaign's level with a coefficient of variation CV;
// after Pre campaigns the level moves by Shift (0: a stationary, A/A
// history of Pre campaigns).
type Scenario struct {
	CV    float64
	Shift float64
	Pre   int
	// MaxPost is how many campaigns after the shift the detector is given
	// at most, one more each night.
	MaxPost int
	Reps    int
	Sims    int
	Seed    uint64
}

// Figures is what a scenario measured over its simulated histories.
type Figures struct {
	// FalseAlarms is the share of histories with a change point where
	// there is none (stationary: anywhere; shifted: away from the shift).
	FalseAlarms float64
	// Detected is the share of shifted histories in which the shift was
	// found (at its boundary, give or take one campaign) within MaxPost
	// campaigns; Delay the median number of campaigns after the shift it
	// took, among those (0 when none).
	Detected float64
	Delay    float64
}

// Simulate runs the scenario: a stationary history is tested once at its
// full length; a shifted one is tested after each new campaign, as a
// nightly `orch history --check` would, until the shift is found.
func Simulate(s Scenario, o Options) Figures {
	rng := rand.New(rand.NewPCG(s.Seed, 0x5eed))
	var f Figures
	var delays []float64
	false_, found := 0, 0
	for i := 0; i < s.Sims; i++ {
		o.Seed = rng.Uint64()
		post := s.MaxPost
		if s.Shift == 0 {
			post = 0
		}
		xs, blocks := history(rng, s, post)
		if s.Shift == 0 {
			if len(Detect(xs, blocks, o)) > 0 {
				false_++
			}
			continue
		}
		boundary := s.Pre * s.Reps
		for p := 1; p <= post; p++ {
			n := (s.Pre + p) * s.Reps
			cps := Detect(xs[:n], blocks[:n], o)
			hit, other := false, false
			for _, c := range cps {
				d := c.Index - boundary
				if d >= -s.Reps && d <= s.Reps {
					hit = true
				} else {
					other = true
				}
			}
			if hit {
				found++
				delays = append(delays, float64(p))
				if other {
					false_++
				}
				break
			}
			if p == post && other {
				false_++
			}
		}
	}
	f.FalseAlarms = float64(false_) / float64(s.Sims)
	if s.Shift != 0 {
		f.Detected = float64(found) / float64(s.Sims)
	}
	if len(delays) > 0 {
		sort.Float64s(delays)
		f.Delay = delays[len(delays)/2]
	}
	return f
}

// history draws one series: Pre campaigns at level 1, then post at
// 1+Shift, Reps runs each; blocks number the campaigns.
func history(rng *rand.Rand, s Scenario, post int) ([]float64, []int) {
	var xs []float64
	var blocks []int
	for c := 0; c < s.Pre+post; c++ {
		level := 1.0
		if c >= s.Pre {
			level += s.Shift
		}
		for r := 0; r < s.Reps; r++ {
			xs = append(xs, level*(1+s.CV*rng.NormFloat64()))
			blocks = append(blocks, c)
		}
	}
	return xs, blocks
}
