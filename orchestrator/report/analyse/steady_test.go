package analyse

import (
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// series builds a per-second series t = 1, 2, ... from values.
func perSecond(vs ...float64) []load.Point {
	out := make([]load.Point, len(vs))
	for i, v := range vs {
		out[i] = load.Point{T: float64(i + 1), V: v}
	}
	return out
}

func TestDetectWarmupStep(t *testing.T) {
	// Three slow seconds (~1000/s) then a steady ~3000/s with ±1% noise:
	// the shift at index 3 explains k(n-k)/n·δ² = 3·13/16·2000² ≈ 9.75e6
	// of squared deviation, far above 3·σ²·ln 16 with σ ≈ 30; the warm-up
	// ends with the interval at t = 3.
	s := perSecond(900, 1000, 1100, 3000, 2970, 3030, 3010, 2990, 3020, 2980, 3000, 3030, 2970, 3010, 2990, 3000)
	w, ok := DetectWarmup(s)
	if !ok || w != 3 {
		t.Errorf("DetectWarmup = %v, %v; want 3, true", w, ok)
	}
}

func TestDetectWarmupRamp(t *testing.T) {
	// A ramp over four seconds: binary segmentation cuts it once in the
	// middle and again until what is left is level.
	s := perSecond(500, 1500, 2200, 2700, 3000, 3010, 2990, 3005, 2995, 3000, 3010, 2990, 3000, 3005, 2995, 3000)
	w, ok := DetectWarmup(s)
	if !ok || w < 3 || w > 4 {
		t.Errorf("DetectWarmup = %v, %v; want the end of the ramp (3 or 4 s)", w, ok)
	}
}

func TestDetectWarmupSteadyAndShort(t *testing.T) {
	// Noise alone (±1%): no changepoint, no warm-up.
	s := perSecond(3000, 2970, 3030, 3010, 2990, 3020, 2980, 3000, 3030, 2970, 3010, 2990)
	if w, ok := DetectWarmup(s); !ok || w != 0 {
		t.Errorf("steady series: DetectWarmup = %v, %v; want 0, true", w, ok)
	}
	// A drop late in the run (second half) is measured, not trimmed.
	s = perSecond(3000, 2970, 3030, 3010, 2990, 3020, 2980, 3000, 1500, 1510, 1490, 1500)
	if w, ok := DetectWarmup(s); !ok || w != 0 {
		t.Errorf("late drop: DetectWarmup = %v, %v; want 0, true", w, ok)
	}
	// Warm-up and a late drop: the drop is found first (it is the larger
	// shift), then the part before it still shows the warm-up.
	s = perSecond(1000, 1000, 3000, 2970, 3030, 3010, 2990, 3020, 2980, 3000, 3010, 1500, 1510, 1490, 1500, 1505)
	if w, ok := DetectWarmup(s); !ok || w != 2 {
		t.Errorf("warm-up and late drop: DetectWarmup = %v, %v; want 2, true", w, ok)
	}
	if _, ok := DetectWarmup(perSecond(1, 2, 3)); ok {
		t.Error("3 points: want ok=false")
	}
}

func TestDetectWarmupIgnoresADipThatRecovers(t *testing.T) {
	// Steady ~3000/s, a pause at t=5..7 (an instrument stopping the
	// server), back to 3000/s: a shift down and back up within the first
	// half is a transient, not the end of a warm-up.
	s := perSecond(3000, 2970, 3030, 3010, 600, 500, 700, 3000, 2990, 3020, 2980, 3000, 3010, 2990, 3000, 3005, 2995, 3000, 3010, 2990)
	if w, ok := DetectWarmup(s); !ok || w != 0 {
		t.Errorf("dip that recovers: DetectWarmup = %v, %v; want 0, true", w, ok)
	}
	// A real warm-up followed by such a dip: the warm-up ends where the
	// level first reaches the final one, the dip stays in the window.
	s = perSecond(1000, 1000, 3000, 2970, 3030, 600, 500, 3010, 2990, 3020, 2980, 3000, 3010, 2990, 3000, 3005, 2995, 3000, 3010, 2990)
	if w, ok := DetectWarmup(s); !ok || w != 2 {
		t.Errorf("warm-up then a dip: DetectWarmup = %v, %v; want 2, true", w, ok)
	}
}

func TestWindowExcludesInstrumentSpans(t *testing.T) {
	// Stack sampling from 10.2 to 16.5 s on the load's clock: the client's
	// intervals 11..17 touch it and are left out of the steady rate, of
	// detection and of the window's seconds.
	var pts []load.Point
	for i := 1; i <= 20; i++ {
		v := 3000.0
		if i >= 11 && i <= 17 {
			v = 500
		}
		pts = append(pts, load.Point{T: float64(i), V: v})
	}
	w := load.Window{FromS: 5, ToS: 20, Excluded: []load.Span{{From: 10.2, To: 16.5, What: load.SpanStacks, Host: "master", Detail: "gdb"}}, How: "--warmup"}
	w.SetSegs(pts)
	b := &load.Bench{Rates: map[string]load.Rate{load.MetricWrites: {Series: pts}}}
	if v, how := b.Steady(load.MetricWrites, w); v != 3000 || how != "intervals" {
		t.Errorf("steady = %v (%s), want 3000 from the intervals outside the span", v, how)
	}
	if got := lengthS(w); got != 8 {
		t.Errorf("window covers %v s, want 8 (5-10 and 17-20)", got)
	}
	if got := excludedText(w); got != "excluded 7.0 s (6.3 s of gdb stack sampling on master)" {
		t.Errorf("excluded: %q", got)
	}
	if d, ok := DetectWarmup(Clean(w, pts)); !ok || d != 0 {
		t.Errorf("detection on the cleaned series: %v, %v; want 0 (the pause is not a warm-up)", d, ok)
	}
}
