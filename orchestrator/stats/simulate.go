package stats

import (
	"math"
	"math/rand/v2"
)

// Noise is a run-to-run distribution with mean 0 and standard deviation 1.
type Noise func(rng *rand.Rand) float64

// Normal noise.
func Normal(rng *rand.Rand) float64 { return rng.NormFloat64() }

// HeavyTailed is Student's t with 3 degrees of freedom scaled to unit
// variance: occasional runs far off the rest, as a flush storm or a noisy
// neighbour makes.
func HeavyTailed(rng *rand.Rand) float64 {
	const nu = 3
	chi2 := 0.0
	for i := 0; i < nu; i++ {
		z := rng.NormFloat64()
		chi2 += z * z
	}
	return rng.NormFloat64() / math.Sqrt(chi2/nu) / math.Sqrt(nu/(nu-2.0))
}

// Campaigns are simulated matrices of two configurations under a Rule.
type Campaigns struct {
	Rule Rule
	// TrueRatio is other/base (1: an A/A); CV the run-to-run coefficient
	// of variation of both.
	TrueRatio, CV float64
	// Rho is a round effect: the correlation of the two configurations'
	// noise within a round (0.7: both slow in the same rounds, as when
	// the machine is; -0.5: one gains what the other loses). Each side's
	// own CV is unchanged. The runs name their rounds, so the rule's
	// analysis (blocked or unpaired) decides whether rounds are used.
	Rho   float64
	Noise Noise
	N     int
	Seed  uint64
}

// SimResult is what the campaigns ended with.
type SimResult struct {
	// Different, Equivalent, Unresolved: shares of campaigns ending so
	// (Unresolved also counts "no significant difference").
	Different, Equivalent, Unresolved float64
	// Coverage is the share whose final interval holds the true ratio.
	Coverage float64
	// MeanRounds is the rounds used on average; AtMax the share that ran
	// to MaxRounds.
	MeanRounds, AtMax float64
}

// one runs one campaign: a run of each configuration per round until the
// rule stops; it returns the rounds used and the last round's status.
func (c Campaigns) one(rng *rand.Rand) (int, Status) {
	const base = 1000.0
	var a, b []float64
	var blocks []Block
	for rounds := 1; ; rounds++ {
		zb, za := c.Noise(rng), c.Noise(rng)
		if c.Rho != 0 {
			za = c.Rho*zb + math.Sqrt(1-c.Rho*c.Rho)*za
		}
		b = append(b, base*(1+c.CV*zb))
		a = append(a, base*c.TrueRatio*(1+c.CV*za))
		blocks = append(blocks, Block{Round: rounds})
		// Stop never stops before MinRounds, whatever the statuses (a
		// matrix judges those rounds only for their console line), so
		// the campaign skips their Evaluate.
		var sts []Status
		if rounds >= max(c.Rule.MinRounds, 2) {
			sts = c.Rule.Evaluate(rounds, []Comparison{{Label: "b", Other: a, Base: b, OtherBlocks: blocks, BaseBlocks: blocks}})
		}
		if stop, _ := c.Rule.Stop(rounds, sts); stop {
			return rounds, sts[0]
		}
	}
}

func (c Campaigns) rng() *rand.Rand {
	return rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
}

// Run simulates the campaigns through the same Evaluate and Stop a matrix
// uses, one run per configuration per round.
func (c Campaigns) Run() SimResult {
	rng := c.rng()
	var res SimResult
	for i := 0; i < c.N; i++ {
		rounds, last := c.one(rng)
		res.MeanRounds += float64(rounds)
		if rounds >= c.Rule.MaxRounds {
			res.AtMax++
		}
		switch last.Outcome {
		case Different:
			res.Different++
		case Equivalent:
			res.Equivalent++
		default:
			res.Unresolved++
		}
		if last.Err == nil && last.Interval.Contains(c.TrueRatio) {
			res.Coverage++
		}
	}
	n := float64(c.N)
	res.Different, res.Equivalent, res.Unresolved = res.Different/n, res.Equivalent/n, res.Unresolved/n
	res.Coverage, res.MeanRounds, res.AtMax = res.Coverage/n, res.MeanRounds/n, res.AtMax/n
	return res
}
