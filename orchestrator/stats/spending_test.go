package stats

import (
	"math"
	"strings"
	"testing"
)

// Lan & DeMets (1983), O'Brien-Fleming-type spending at α = 0.05 two-sided:
// α(0.5) = 2 - 2Φ(1.95996/√0.5) = 2 - 2Φ(2.7718) = 0.00557, α(1) = 0.05.
func TestSpendingFunction(t *testing.T) {
	if got := spend(0.05, 0.5); math.Abs(got-0.00557) > 0.00002 {
		t.Errorf("α(0.5) = %.5f, want 0.00557", got)
	}
	if got := spend(0.05, 1); math.Abs(got-0.05) > 1e-12 {
		t.Errorf("α(1) = %.6f, want 0.05", got)
	}
	// The looks' shares add up to Alpha, rise towards the end, and a
	// precision rule decides at Alpha on every round.
	r := Rule{Goal: GoalSignificant, MinRounds: 3, MaxRounds: 8}
	sum, prev := 0.0, 0.0
	for k := r.MinRounds; k <= r.MaxRounds; k++ {
		l := r.Level(k)
		if l <= prev {
			t.Errorf("round %d's level %.4f not above round %d's %.4f", k, l, k-1, prev)
		}
		sum, prev = sum+l, l
	}
	if math.Abs(sum-Alpha) > 1e-12 || r.Level(2) != 0 {
		t.Errorf("levels sum to %.6f (want %.2f); round 2 level %.4f", sum, Alpha, r.Level(2))
	}
	if l := (Rule{Precision: 0.1, MinRounds: 3, MaxRounds: 8}).Level(5); l != Alpha {
		t.Errorf("precision rule level %.4f", l)
	}
}

// falseRate is the share of A/A campaigns a naive every-round test at 5%
// ends "different", by the same Evaluate at a fixed 5%.
func (c Campaigns) falseRate() float64 {
	rng := c.rng()
	fixed := Rule{Precision: 0.5, MinRounds: 3, MaxRounds: 8}
	hits := 0
	for i := 0; i < c.N; i++ {
		var a, b []float64
		for k := 1; k <= fixed.MaxRounds; k++ {
			b = append(b, 1000*(1+c.CV*c.Noise(rng)))
			a = append(a, 1000*(1+c.CV*c.Noise(rng)))
			if k >= fixed.MinRounds && fixed.Evaluate(k, []Comparison{{Other: a, Base: b}})[0].Outcome == Different {
				hits++
				break
			}
		}
	}
	return float64(hits) / float64(c.N)
}

func TestSignificanceStopWords(t *testing.T) {
	r := Rule{Goal: GoalSignificant, MinRounds: 3, MaxRounds: 6}
	open := []Status{{Label: "rocksdb/innodb", Outcome: NoDifference, Decision: Decision{P: 0.03, M: 1}}}
	if stop, why := r.Stop(4, open); stop || !strings.HasPrefix(why, "going on: rocksdb/innodb (p=0.03) is not decided at this round's level α=0.0") {
		t.Errorf("got %v %q", stop, why)
	}
	if stop, why := r.Stop(6, open); !stop || !strings.HasPrefix(why, "stopped at --max-repeat 6: rocksdb/innodb (p=0.03) is not decided") {
		t.Errorf("got %v %q", stop, why)
	}
	open[0].Outcome = Different
	if stop, why := r.Stop(4, open); !stop || !strings.HasPrefix(why, "stopped after 4 rounds: every comparison is decided") {
		t.Errorf("got %v %q", stop, why)
	}
	for _, bad := range []Rule{{Goal: "soon", MinRounds: 3, MaxRounds: 6}, {Goal: GoalSignificant, Precision: 0.1, MinRounds: 3, MaxRounds: 6}} {
		if bad.Validate() == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
