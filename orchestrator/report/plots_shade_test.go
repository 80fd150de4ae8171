package report

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

func TestMergePeriods(t *testing.T) {
	got := render.MergePeriods([][2]float64{{10, 12}, {1, 3}, {11, 16}, {2, 4}, {20, 21}})
	want := [][2]float64{{1, 4}, {10, 16}, {20, 21}}
	if !slices.Equal(got, want) {
		t.Errorf("mergePeriods = %v, want %v", got, want)
	}
}

func TestLogTicks(t *testing.T) {
	labels := func(min, max float64) []string {
		var out []string
		for _, tk := range (render.LogTicks{}).Ticks(min, max) {
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
	if got := (render.LogTicks{}).Ticks(0, 10); got != nil {
		t.Errorf("a log axis from 0: %v", got)
	}
}

// On the demo (gdb samples in every run) the stack-sample shade is drawn
// once per merged period, plus its legend swatch: stacked per run, the
// translucent bands turned into a solid block over the lines.
func TestShadeDrawnOncePerPeriod(t *testing.T) {
	rep := build(t, analyse.Options{}, demoDir)
	if err := render.DrawPlots(rep); err != nil {
		t.Fatal(err)
	}
	tb := rep.Tables[0]
	if len(tb.Plots) == 0 {
		t.Fatal("the demo drew no plots")
	}
	var ps [][2]float64
	runs := 0
	for _, r := range tb.Runs {
		n := len(ps)
		for _, s := range r.Spans {
			if s.What == load.SpanStacks {
				ps = append(ps, [2]float64{s.From, s.To})
			}
		}
		if len(ps) > n {
			runs++
		}
	}
	merged := len(render.MergePeriods(ps))
	if runs < 2 || merged >= len(ps) {
		t.Fatalf("the demo should have overlapping stack samples in several runs: %d runs, %d periods, %d merged", runs, len(ps), merged)
	}
	_, c := render.SpanColor(load.SpanStacks)
	// As the SVG writer spells a translucent colour (un-premultiplied,
	// truncated).
	r, g, b, a := c.RGBA()
	k := 255.0 / float64(a)
	fill := fmt.Sprintf("fill:#%02X%02X%02X;", int(float64(r)*k), int(float64(g)*k), int(float64(b)*k))
	for _, p := range tb.Plots {
		if !strings.HasSuffix(p.Name, "-throughput") && !strings.HasSuffix(p.Name, "-latency") {
			continue
		}
		if got := strings.Count(string(p.SVG), fill); got != merged+1 {
			t.Errorf("%s: %d shapes in the stack-sample colour, want %d periods and the legend's", p.Name, got, merged)
		}
	}
}
