package render

import (
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// spanColors shades the periods the monitors flagged: translucent, one
// layer per kind (shade merges the runs' periods first), so the lines
// drawn over them stay visible and the shade is the legend's. None is a
// configuration's colour (palette): stack samples are yellow, not blue.
var spanColors = map[string]color.NRGBA{
	"semi-sync off":      {R: 255, G: 165, A: 60},
	"stall":              {R: 220, G: 20, B: 60, A: 50},
	"fault":              {R: 128, B: 160, A: 50},
	"replica stopped":    {R: 120, G: 120, B: 120, A: 45},
	"host not answering": {R: 90, G: 90, B: 90, A: 45},
	load.SpanStacks:      {R: 230, G: 200, B: 40, A: 60},
}

func SpanColor(what string) (string, color.NRGBA) {
	if strings.HasPrefix(what, "fault") {
		what = "fault"
	}
	c, ok := spanColors[what]
	if !ok {
		c = color.NRGBA{R: 100, G: 100, B: 100, A: 45}
	}
	return what, c
}

// shade adds one translucent band per period of each kind the table's
// runs flagged, the runs' periods merged (a second any run spent in it
// is shaded once: overlapping runs never darken a band into a solid
// block that hides the lines), one legend entry per kind.
func shade(t *judge.Table, ch *chart, ymin, ymax, xmax float64) error {
	var kinds []string
	periods := map[string][][2]float64{}
	for _, r := range t.Runs {
		for _, s := range r.Spans {
			from, to := math.Max(s.From, 0), math.Min(s.To, xmax)
			if math.IsNaN(to) || to <= from {
				continue
			}
			kind, _ := SpanColor(s.What)
			if !slices.Contains(kinds, kind) {
				kinds = append(kinds, kind)
			}
			periods[kind] = append(periods[kind], [2]float64{from, to})
		}
	}
	for _, kind := range kinds {
		_, c := SpanColor(kind)
		for i, p := range MergePeriods(periods[kind]) {
			poly, err := plotter.NewPolygon(plotter.XYs{{X: p[0], Y: ymin}, {X: p[1], Y: ymin}, {X: p[1], Y: ymax}, {X: p[0], Y: ymax}})
			if err != nil {
				return err
			}
			poly.Color, poly.LineStyle.Width = c, 0
			ch.p.Add(poly)
			if i == 0 {
				ch.legend.Add(kind, poly)
			}
		}
	}
	return nil
}

// MergePeriods is the union of [from, to] periods, sorted.
func MergePeriods(ps [][2]float64) [][2]float64 {
	slices.SortFunc(ps, func(a, b [2]float64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var out [][2]float64
	for _, p := range ps {
		if n := len(out); n > 0 && p[0] <= out[n-1][1] {
			out[n-1][1] = math.Max(out[n-1][1], p[1])
			continue
		}
		out = append(out, p)
	}
	return out
}

// positiveMin is the smaller of m and v when v > 0, else m.
func positiveMin(m, v float64) float64 {
	if v > 0 && v < m {
		return v
	}
	return m
}

// LogTicks label a log axis at 1, 2 and 5 times the powers of ten in its
// range (every digit when that leaves fewer than three labels: a 2-8 ms
// range still reads), the other digits as unlabelled minor ticks.
type LogTicks struct{}

func (LogTicks) Ticks(min, max float64) []plot.Tick {
	if min <= 0 || max <= min {
		return nil
	}
	var all []float64
	for e := math.Floor(math.Log10(min)); math.Pow(10, e) <= max; e++ {
		for d := 1.0; d <= 9; d++ {
			if v := d * math.Pow(10, e); v >= min && v <= max {
				all = append(all, v)
			}
		}
	}
	major := func(v float64) bool {
		d := v / math.Pow(10, math.Floor(math.Log10(v)+1e-9))
		return math.Abs(d-1) < 1e-6 || math.Abs(d-2) < 1e-6 || math.Abs(d-5) < 1e-6
	}
	labelled := 0
	for _, v := range all {
		if major(v) {
			labelled++
		}
	}
	out := make([]plot.Tick, len(all))
	for i, v := range all {
		out[i].Value = v
		if labelled < 3 || major(v) {
			out[i].Label = strconv.FormatFloat(v, 'g', 6, 64)
		}
	}
	return out
}
