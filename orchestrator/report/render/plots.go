package render

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// chart is a plot and the legend drawn to its right, outside the data
// (inside, it would hide the lines it names).
type chart struct {
	p      *plot.Plot
	legend plot.Legend
	height vg.Length // 0: plotH
}

// palette has ten colours told apart easily, lines and bars alike; past
// ten, lines repeat them dashed.
var palette = []color.Color{
	color.RGBA{0x4e, 0x79, 0xa7, 0xff}, color.RGBA{0xf2, 0x8e, 0x2b, 0xff}, color.RGBA{0xe1, 0x57, 0x59, 0xff},
	color.RGBA{0x76, 0xb7, 0xb2, 0xff}, color.RGBA{0x59, 0xa1, 0x4f, 0xff}, color.RGBA{0xed, 0xc9, 0x48, 0xff},
	color.RGBA{0xb0, 0x7a, 0xa1, 0xff}, color.RGBA{0xff, 0x9d, 0xa7, 0xff}, color.RGBA{0x9c, 0x75, 0x5f, 0xff},
	color.RGBA{0x5a, 0x5a, 0x5a, 0xff},
}

// Plot size: wide enough for a minute of per-second points to read.
const (
	plotW = 9 * vg.Inch
	plotH = 4 * vg.Inch
)

// plots renders the table's charts: throughput and latency over time, the
// worst replica lag over time, and the comparison bars with 95% CIs.
// Time charts overlay one line per label (the mean of its runs at each
// second) on a time axis that starts with the monitors, which start right
// before the benchmark.
// drawPlots draws each table's plots once, when a writer first needs them.
func DrawPlots(rep *judge.Report) error {
	for _, t := range rep.Tables {
		if t.PlotsDrawn {
			continue
		}
		plots, err := plots(t, warmupLine(t))
		if err != nil {
			return fmt.Errorf("%s: plots: %w", t.Workload, err)
		}
		t.Plots, t.PlotsDrawn = plots, true
	}
	return nil
}

func plots(t *judge.Table, warmupS float64) ([]judge.Plot, error) {
	slug := slugify(t.Workload)
	var out []judge.Plot
	add := func(name, title string, ch *chart, err error) error {
		if err != nil || ch == nil {
			return err
		}
		svg, err := renderSVG(ch)
		if err != nil {
			return err
		}
		out = append(out, judge.Plot{Name: slug + "-" + name, Title: title, SVG: svg})
		return nil
	}
	rate := func(r *load.Run) []load.Point {
		if r.Bench == nil {
			return nil
		}
		return r.Bench.Series(t.Metric)
	}
	lat := func(r *load.Run) []load.Point {
		if r.Bench == nil {
			return nil
		}
		return r.Bench.LatSeries
	}
	lag := func(r *load.Run) []load.Point { return r.Lag }
	pctl := PctlName(pctl(t))
	steps := []struct {
		name, title, ylabel string
		series              func(*load.Run) []load.Point
	}{
		{"throughput", t.Workload + ": " + t.Metric + " per second", t.Metric, rate},
		{"latency", t.Workload + ": " + pctl + " latency per second (log scale)", pctl + " latency (ms, log scale)", lat},
		{"lag", t.Workload + ": worst replica lag", "transactions behind the master", lag},
	}
	for _, s := range steps {
		// Latency spans decades (one 1 s stall next to 3 ms): on a
		// linear axis the spike flattens every other second.
		p, err := timePlot(t, s.title, s.ylabel, s.series, warmupS, s.name == "latency")
		if err := add(s.name, s.title, p, err); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	p, err := barPlot(t)
	title := t.Workload + ": steady-state " + t.Metric + ", mean and 95% CI"
	if err := add("comparison", title, p, err); err != nil {
		return nil, fmt.Errorf("comparison: %w", err)
	}
	return out, nil
}

func pctl(t *judge.Table) int {
	for _, g := range t.Groups {
		if g.Pctl > 0 {
			return g.Pctl
		}
	}
	for _, r := range t.Runs {
		if r.Bench != nil && r.Bench.Pctl > 0 {
			return r.Bench.Pctl
		}
	}
	return 0
}

// plotRuns is the group's runs a time chart shows: those in the
// statistics, or all of them when none ended ok (an interrupted run's
// curve still tells what happened).
func plotRuns(g *judge.Group) []*load.Run {
	var ok []*load.Run
	for _, r := range g.Runs {
		if r.Usable() {
			ok = append(ok, r)
		}
	}
	if len(ok) == 0 {
		return g.Runs
	}
	return ok
}

// timePlot overlays one line per label; nil when no run has the series.
func timePlot(t *judge.Table, title, ylabel string, series func(*load.Run) []load.Point, warmupS float64, logY bool) (*chart, error) {
	ch := newChart()
	p := ch.p
	p.Title.Text = title
	p.X.Label.Text = "seconds since start"
	p.Y.Label.Text = ylabel
	ymax, xmax := 0.0, 0.0
	ymin := math.Inf(1) // smallest positive value, for a log axis
	// keep drops what a log axis cannot show (0 ms: no transaction).
	keep := func(v float64) bool { return !math.IsNaN(v) && (!logY || v > 0) }
	points := func(pts []load.Point) plotter.XYs {
		xys := make(plotter.XYs, 0, len(pts))
		for _, pt := range pts {
			if keep(pt.V) {
				xys = append(xys, plotter.XY{X: pt.T, Y: pt.V})
				ymax, xmax = math.Max(ymax, pt.V), math.Max(xmax, pt.T)
				ymin = positiveMin(ymin, pt.V)
			}
		}
		return xys
	}
	var lines, spread []*plotter.Line
	var names []string
	for _, g := range t.Groups {
		var all [][]load.Point
		for _, r := range plotRuns(g) {
			if s := series(r); len(s) > 0 {
				all = append(all, s)
			}
		}
		mean := meanSeries(all)
		if len(mean) == 0 {
			continue
		}
		col, dashes := groupColor(t, g)
		if len(all) > 1 {
			// Each repetition faintly under the mean: the spread shows.
			for _, run := range all {
				xys := points(run)
				if len(xys) == 0 {
					continue
				}
				rl, err := plotter.NewLine(xys)
				if err != nil {
					return nil, err
				}
				rl.Color, rl.Dashes, rl.Width = faint(col), dashes, vg.Points(0.8)
				spread = append(spread, rl)
			}
		}
		xys := points(mean)
		if len(xys) == 0 {
			continue
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color, l.Dashes = col, dashes
		l.Width = vg.Points(1.5)
		lines = append(lines, l)
		names = append(names, g.Label)
	}
	if len(lines) == 0 {
		return nil, nil
	}
	if ymax <= 0 {
		ymax = 1
	}
	p.Y.Min, p.Y.Max = 0, ymax*1.1
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, LogTicks{}
		p.Y.Min, p.Y.Max = ymin/1.25, ymax*1.25
	}
	p.X.Min, p.X.Max = 0, xmax
	if err := shade(t, ch, p.Y.Min, p.Y.Max, xmax); err != nil {
		return nil, err
	}
	if warmupS > 0 && warmupS < xmax {
		w, err := plotter.NewLine(plotter.XYs{{X: warmupS, Y: p.Y.Min}, {X: warmupS, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		// Drawn over the shading, dark enough to read on it.
		w.Color, w.Dashes, w.Width = color.Gray{Y: 60}, []vg.Length{vg.Points(5), vg.Points(3)}, vg.Points(1.3)
		p.Add(w)
		ch.legend.Add("end of warm-up", w)
	}
	for _, l := range spread {
		p.Add(l)
	}
	for i, l := range lines {
		p.Add(l)
		ch.legend.Add(names[i], l)
	}
	return ch, nil
}

// meanSeries averages runs second by second (points rounded to the
// second); a second only some runs reached averages those.
func meanSeries(runs [][]load.Point) []load.Point {
	sums, counts := map[int]float64{}, map[int]int{}
	for _, s := range runs {
		for _, p := range s {
			if math.IsNaN(p.V) {
				continue
			}
			k := int(math.Round(p.T))
			sums[k] += p.V
			counts[k]++
		}
	}
	keys := make([]int, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]load.Point, len(keys))
	for i, k := range keys {
		out[i] = load.Point{T: float64(k), V: sums[k] / float64(counts[k])}
	}
	return out
}

// barPlot draws each label's mean steady-state rate with its 95% CI as
// horizontal bars, the baseline on top: labels are long ("rocksdb
// sync_binlog=1 binlog_order_commits=OFF") and read best on their own
// lines. nil when no label has a figure.
func barPlot(t *judge.Table) (*chart, error) {
	var shown []*judge.Group
	for _, g := range t.Groups {
		if g.Rate.N > 0 {
			shown = append(shown, g)
		}
	}
	if len(shown) == 0 {
		return nil, nil
	}
	n := len(shown)
	vals := make(plotter.Values, n)
	names := make([]string, n)
	var xys plotter.XYs
	var errs plotter.XErrors
	xmax, tooFew := 0.0, false
	for i, g := range shown {
		y := n - 1 - i // NominalY counts from the bottom
		vals[y], names[y] = g.Rate.Mean, g.Label
		xmax = math.Max(xmax, g.Rate.Mean)
		if g.Rate.N > 1 && g.Rate.CILow < 0 {
			tooFew = true // as the Configurations table: no interval below 0
		} else if g.Rate.N > 1 {
			half := g.Rate.CIHigh - g.Rate.Mean
			xys = append(xys, plotter.XY{X: g.Rate.Mean, Y: float64(y)})
			errs = append(errs, struct{ Low, High float64 }{half, half})
			xmax = math.Max(xmax, g.Rate.CIHigh)
		}
	}
	ch := newChart()
	ch.height = vg.Length(n)*vg.Points(30) + vg.Inch
	p := ch.p
	p.Title.Text = t.Workload + ": steady-state " + t.Metric
	p.X.Label.Text = t.Metric + " (bar: mean; whiskers: 95% CI; dots: runs)"
	if tooFew {
		p.X.Label.Text = t.Metric + " (bar: mean; whiskers: 95% CI, none where n is too small for one; dots: runs)"
	}
	// One bar chart per configuration (the others' values 0) so each bar
	// has its configuration's colour, as in the time charts; each run's
	// own figure is a dot on its bar.
	var dots plotter.XYs
	for i, g := range shown {
		y := n - 1 - i
		one := make(plotter.Values, n)
		one[y] = vals[y]
		bars, err := plotter.NewBarChart(one, vg.Points(18))
		if err != nil {
			return nil, err
		}
		bars.Horizontal = true
		bars.Color, _ = groupColor(t, g)
		bars.LineStyle.Width = 0
		p.Add(bars)
		for _, v := range load.Finite(g.Steady) {
			dots = append(dots, plotter.XY{X: v, Y: float64(y)})
			xmax = math.Max(xmax, v)
		}
	}
	if len(dots) > 0 {
		sc, err := plotter.NewScatter(dots)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = color.Black, vg.Points(2.5)
		p.Add(sc)
	}
	if len(xys) > 0 {
		eb, err := plotter.NewXErrorBars(errorBars{xys, errs})
		if err != nil {
			return nil, err
		}
		eb.CapWidth = vg.Points(10)
		eb.LineStyle.Width = vg.Points(1.5)
		p.Add(eb)
	}
	p.NominalY(names...)
	p.X.Min, p.X.Max = 0, xmax*1.1
	return ch, nil
}

// errorBars feeds NewXErrorBars: points and their error half-widths.
type errorBars struct {
	plotter.XYs
	plotter.XErrors
}

// sans is the charts' font. SVG names fonts rather than embedding them:
// renderSVG adds fallbacks so a browser without Liberation Sans uses its
// own sans-serif, and each chart stays a few kilobytes.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func newChart() *chart {
	p := plot.New()
	for _, ts := range []*text.Style{&p.Title.TextStyle, &p.X.Label.TextStyle, &p.Y.Label.TextStyle,
		&p.X.Tick.Label, &p.Y.Tick.Label} {
		ts.Font = font.From(sans, ts.Font.Size)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plainTicks{}, plainTicks{}
	l := plot.NewLegend()
	l.TextStyle.Font = font.From(sans, l.TextStyle.Font.Size)
	l.Top = true
	return &chart{p: p, legend: l}
}

// renderSVG draws the chart as a standalone SVG document, the legend in a
// column of its own on the right that widens the canvas rather than
// narrowing the data.
func renderSVG(ch *chart) ([]byte, error) {
	h := ch.height
	if h == 0 {
		h = plotH
	}
	var legendW vg.Length
	if r := ch.legend.Rectangle(draw.New(vgsvg.New(plotW, h))); r.Max.X > r.Min.X {
		legendW = (r.Max.X-r.Min.X)*1.25 + vg.Points(12)
	}
	c := vgsvg.New(plotW+legendW, h)
	dc := draw.New(c)
	ch.p.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	if legendW > 0 {
		// Icons on the column's left, text after them: a browser that
		// substitutes a wider font than the one measured here lets the
		// text run on into the column's slack, never over an icon.
		ch.legend.Left = true
		ch.legend.YOffs = -ch.p.Title.Padding - ch.p.Title.TextStyle.Height(ch.p.Title.Text)
		ch.legend.XOffs = vg.Points(6)
		ch.legend.Draw(draw.Crop(dc, plotW, 0, 0, 0))
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;")), nil
}

// slugify makes a file-name-safe stem.
func slugify(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	if out := strings.Trim(b.String(), "-."); out != "" {
		return out
	}
	return "workload"
}

// plainTicks are gonum's default ticks labelled with the fewest digits
// that say the value: 5000, not 5000.00; 2.5, not 2.50.
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
			if len(ticks[i].Label) > 9 { // float noise: 0.30000000000000004
				ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'g', 6, 64)
			}
		}
	}
	return ticks
}

// groupColor is a configuration's colour, the same in every chart of the
// report: its place among the table's configurations.
func groupColor(t *judge.Table, g *judge.Group) (color.Color, []vg.Length) {
	i := slices.Index(t.Groups, g)
	if i < 0 {
		i = 0
	}
	return palette[i%len(palette)], plotutil.Dashes(i / len(palette))
}

// faint is c at a quarter opacity, for per-repetition lines.
func faint(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}
