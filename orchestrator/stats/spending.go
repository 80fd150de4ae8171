package stats

import (
	"fmt"
	"math"
)

// Goals a Rule stops on.
const (
	// GoalPrecision stops once every interval is narrow enough (the
	// default): the stop does not depend on which way the means fell.
	GoalPrecision = "precision"
	// GoalSignificant stops once every comparison is decided. Looking at
	// significance after every round and stopping on it would find a
	// difference in an A/A far more often than 5% of the time, so each
	// look is decided at its share of Alpha (Level), and the shares add up
	// to Alpha.
	GoalSignificant = "significant"
)

// Level is the family-wise level the comparisons are decided at after
// rounds complete rounds. A precision rule decides at Alpha whatever the
// round. A significance rule spends Alpha over its looks, rounds
// MinRounds to MaxRounds, along the Lan-DeMets O'Brien-Fleming spending
// function α(t) = 2 - 2Φ(z(1-α/2)/√t), t = rounds/MaxRounds: a look gets
// α(t) less what the looks before it had, little early (when a lucky
// spread is likeliest) and most at the end. The looks are tested as if
// independent of each other (Bonferroni over looks): the chance that any
// look of an A/A ends "different" is at most the sum of the shares, Alpha,
// whatever their correlation. That is conservative (TestStoppingRuleErrorRates
// measures how much), and needs no group-sequential tables.
func (r Rule) Level(rounds int) float64 {
	alpha := r.alpha()
	if r.Goal != GoalSignificant {
		return alpha
	}
	if rounds < r.MinRounds || r.MaxRounds <= 0 {
		return 0
	}
	k := min(rounds, r.MaxRounds)
	spent := 0.0
	if k > r.MinRounds {
		spent = spend(alpha, float64(k-1)/float64(r.MaxRounds))
	}
	return spend(alpha, float64(k)/float64(r.MaxRounds)) - spent
}

func (r Rule) alpha() float64 {
	if r.Alpha == 0 {
		return Alpha
	}
	return r.Alpha
}

// spend is the O'Brien-Fleming-like spending function at information
// fraction t in (0, 1]: 2 - 2Φ(z(1-α/2)/√t).
func spend(alpha, t float64) float64 {
	z := math.Sqrt2 * math.Erfinv(1-alpha) // z(1-α/2)
	return math.Erfc(z / math.Sqrt(t) / math.Sqrt2)
}

// decided reports whether every comparison has its answer under a
// significance rule: different, or, with an equivalence band, equivalent.
func (r Rule) decided(sts []Status) bool {
	for _, s := range sts {
		if s.Outcome != Different && s.Outcome != Equivalent {
			return false
		}
	}
	return len(sts) > 0
}

// stopSignificant is Stop for a significance rule.
func (r Rule) stopSignificant(rounds int, sts []Status) (bool, string) {
	level := r.Level(rounds)
	open := ""
	for _, s := range sts {
		if s.Outcome != Different && s.Outcome != Equivalent {
			open = s.Label
			if !math.IsNaN(s.Decision.P) && s.Decision.M > 0 {
				open += fmt.Sprintf(" (p=%.2g)", s.Decision.P)
			}
			break
		}
	}
	switch {
	case rounds < r.MinRounds:
		return false, fmt.Sprintf("going on: %d of at least %d rounds", rounds, r.MinRounds)
	case r.decided(sts):
		return true, fmt.Sprintf("stopped after %d rounds: every comparison is decided at this round's level α=%.3g (of %g spent over rounds %d-%d)",
			rounds, level, r.alpha(), r.MinRounds, r.MaxRounds)
	case rounds >= r.MaxRounds:
		return true, fmt.Sprintf("stopped at --max-repeat %d: %s is not decided at the last round's level α=%.3g", r.MaxRounds, open, level)
	}
	return false, fmt.Sprintf("going on: %s is not decided at this round's level α=%.3g", open, level)
}
