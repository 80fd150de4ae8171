package report

import (
	"slices"
	"testing"
)

func TestMergePeriods(t *testing.T) {
	got := mergePeriods([][2]float64{{10, 12}, {1, 3}, {11, 16}, {2, 4}, {20, 21}})
	want := [][2]float64{{1, 4}, {10, 16}, {20, 21}}
	if !slices.Equal(got, want) {
		t.Errorf("mergePeriods = %v, want %v", got, want)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (logTicks{}).Ticks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	// Less than a decade: every digit, so the axis still reads.
	if got := labels(1.8, 8.5); !slices.Equal(got, []string{"2", "3", "4", "5", "6", "7", "8"}) {
		t.Errorf("2-8 ms: %v", got)
	}
	// A 1 s spike over 2 ms: 1, 2, 5 per decade.
	if got := labels(1.5, 1100); !slices.Equal(got, []string{"2", "5", "10", "20", "50", "100", "200", "500", "1000"}) {
		t.Errorf("2-1100 ms: %v", got)
	}
	if got := (logTicks{}).Ticks(0, 10); got != nil {
		t.Errorf("a log axis from 0: %v", got)
	}
}
