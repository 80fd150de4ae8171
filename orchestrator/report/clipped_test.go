package report

import (
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestClippedIntervalSaysSo: an interval whose lower bound is below 0 (the
// numerator's mean not significantly above 0; matrix.json's round 2 of
// the demo had -0.248) is shown from 0, as rates are never negative, and
// says what it was: the reader is not told a bound the analysis did not
// find.
func TestClippedIntervalSaysSo(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{render.RatioWithin(0.5, -0.248, 1.25), "0.500x [0 (clipped from -0.248), 1.25]"},
		{render.RatioWithin(0.74, 0.68, 0.8), "0.740x [0.680, 0.800]"},
		{render.PctInterval(&analyse.RatioCI{Low: -0.248, High: 1.25}, nil), " [-100% (clipped from -125%), +25%]"},
		{render.PctInterval(&analyse.RatioCI{Low: 0.59, High: 0.73}, nil), " [-41%, -27%]"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
