package load

import (
	"math"
	"testing"
)

// TestWindowLatAvg: the window's mean latency is Σ threads / Σ tps over
// the kept intervals only (Little's law), none for an open-loop run or
// intervals without threads.
func TestWindowLatAvg(t *testing.T) {
	// 4 threads; a slow warm-up second (100 tps: 40 ms) then 1000 and
	// 500 tps (4 and 8 ms each): over seconds 2-3 the events' mean
	// latency is 2 thread-seconds of 4 threads over 1500 events.
	closed := func() *Bench {
		return &Bench{
			Rates:   map[string]Rate{MetricTPS: {Series: []Point{{T: 1, V: 100}, {T: 2, V: 1000}, {T: 3, V: 500}}}},
			threads: []Point{{T: 1, V: 4}, {T: 2, V: 4}, {T: 3, V: 4}},
		}
	}
	w := Window{FromS: 1, ToS: 3}
	if got, want := closed().WindowLatAvg(w), 1000*8.0/1500; math.Abs(got-want) > 1e-9 {
		t.Errorf("window 1-3 s: %v ms, want %v (not the mean of 4 and 8 ms)", got, want)
	}
	if got := closed().WindowLatAvg(Window{FromS: 0, ToS: 3}); math.Abs(got-1000*12.0/1600) > 1e-9 {
		t.Errorf("whole run: %v ms, want %v", got, 1000*12.0/1600)
	}
	open := closed()
	open.openLoop = true
	if got := open.WindowLatAvg(w); !math.IsNaN(got) {
		t.Errorf("open-loop (--rate) run: %v, want none", got)
	}
	noThreads := closed()
	noThreads.threads[2].V = math.NaN()
	if got := noThreads.WindowLatAvg(w); !math.IsNaN(got) {
		t.Errorf("an interval without threads: %v, want none", got)
	}
	if got := closed().WindowLatAvg(Window{FromS: 5, ToS: 9}); !math.IsNaN(got) {
		t.Errorf("no interval in the window: %v, want none", got)
	}
}
