package render

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// dbiMarkdown is dbinsert.md and its answer line: the seed's table (per
// batch, serial and random rates of each library), the total rate's ratio
// with its interval over repetitions, the files' size ratio, the plot, the
// collapse if any, and why (disk writes and CPU per insertion).
func dbiMarkdown(cfgs []*load.DBIConfig, failed []*load.DBIRun, plot string) (string, string) {
	var b strings.Builder
	b.WriteString("# db-insert: fractal tree vs Berkeley DB\n\n")
	answer := dbiAnswer(cfgs)
	b.WriteString("**Answer:** " + answer + "\n\n")
	r0 := cfgs[0].Runs[0]
	cache := "the library's default cache"
	if !math.IsNaN(r0.CacheSize) {
		cache = "--cachesize " + dbiMiB(r0.CacheSize)
	}
	fmt.Fprintf(&b, "Each run: PerconaFT's db-insert, batches of %s serial then %s random insertions of %.0f-byte records, %s; "+
		"each configuration's figures are the means over its runs that ended ok (%s).\n\n",
		thousands(float64(r0.BatchSize)), thousands(float64(r0.BatchSize)), r0.RecordBytes, cache, runCounts(cfgs))
	b.WriteString("## Per batch (insertions/s)\n\n| batch | data inserted |")
	for _, c := range cfgs {
		fmt.Fprintf(&b, " %s serial | %s random |", c.Label, c.Label)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|---|", len(cfgs)) + "\n")
	n := 0
	for _, c := range cfgs {
		n = max(n, c.Batches())
	}
	for i := range n {
		fmt.Fprintf(&b, "| %d | %s |", i, dbiMiB(dataAfter(r0, i)))
		for _, c := range cfgs {
			fmt.Fprintf(&b, " %s | %s |", thousands(c.BatchMean(i, false)), thousands(c.BatchMean(i, true)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Totals\n\n| configuration | runs | total rate (insertions/s) | sd | bytes on disk | CPU µs per insertion | host disk writes per insertion (bytes) | host disk flushes per 10^6 insertions |\n|---|---|---|---|---|---|---|---|\n")
	for _, c := range cfgs {
		rates := c.Values(func(r *load.DBIRun) float64 { return r.Rate })
		s := analyse.Describe(rates)
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s |\n", load.LibName(c.Label), len(c.Runs), thousands(s.Mean), thousands(s.SD),
			dbiMiB(load.MeanOf(c.Values(func(r *load.DBIRun) float64 { return r.Bytes }))),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.CPUS * 1e6 }))), 2),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.DiskWriteMB * 1e6 }))), 1),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.Flushes * 1e6 }))), 1))
	}
	if plot != "" {
		fmt.Fprintf(&b, "\n## Random insertions per batch\n\n![random insertions per batch](%s)\n", plot)
	}
	b.WriteString("\n## Why\n\n")
	for _, l := range DBIWhy(cfgs) {
		b.WriteString("- " + l + "\n")
	}
	if len(failed) > 0 {
		b.WriteString("\n## Runs left out\n\n")
		for _, r := range failed {
			fmt.Fprintf(&b, "- %s repetition %d (%s): %s; its output is in %s/benchmark/run.txt\n", r.Label, r.Rep, r.State,
				map[bool]string{true: "complete", false: "incomplete output"}[r.Complete], r.Dir)
		}
	}
	return answer, b.String()
}

// dbiAnswer compares every library with the first (the fractal tree).
func dbiAnswer(cfgs []*load.DBIConfig) string {
	if len(cfgs) < 2 {
		return fmt.Sprintf("only %s ran ok: nothing to compare", load.LibName(cfgs[0].Label))
	}
	base, other := cfgs[0], cfgs[1]
	a := other.Values(func(r *load.DBIRun) float64 { return r.Rate })
	bb := base.Values(func(r *load.DBIRun) float64 { return r.Rate })
	ratio := load.MeanOf(a) / load.MeanOf(bb)
	ci := "no interval (fewer than 2 runs each)"
	if iv, err := analyse.FiellerCI(a, bb); err == nil {
		ci = fmt.Sprintf("ratio's 95%% CI [%.2f, %.2f] over %d and %d runs", iv.Low, iv.High, len(a), len(bb))
		if iv.Low <= 1 && 1 <= iv.High {
			ci += ", which holds 1: not a significant difference"
		}
	} else if !errors.Is(err, analyse.ErrTooFew) {
		ci = "interval " + err.Error()
	}
	out := fmt.Sprintf("%s inserted %.2fx as fast as the %s in all (%s vs %s insertions/s; %s)",
		load.LibName(other.Label), ratio, load.LibName(base.Label), thousands(load.MeanOf(a)), thousands(load.MeanOf(bb)), ci)
	sa := load.MeanOf(other.Values(func(r *load.DBIRun) float64 { return r.Bytes }))
	sb := load.MeanOf(base.Values(func(r *load.DBIRun) float64 { return r.Bytes }))
	if !math.IsNaN(sa) && !math.IsNaN(sb) && sb > 0 {
		out += fmt.Sprintf("; its files took %.2fx the bytes on disk (%s vs %s)", sa/sb, dbiMiB(sa), dbiMiB(sb))
	}
	return out + "."
}

// DBIWhy explains with the collapse (or its absence) and the costs per
// insertion.
func DBIWhy(cfgs []*load.DBIConfig) []string {
	var out []string
	for _, c := range cfgs {
		r0 := c.Runs[0]
		if i := load.Collapse(c); i > 0 {
			cache := "the library's default cache"
			if !math.IsNaN(r0.CacheSize) {
				cache = "the " + dbiMiB(r0.CacheSize) + " cache"
			}
			out = append(out, fmt.Sprintf("%s: random insertions collapsed at batch %d, to %s/s from %s/s in batch 0, "+
				"once %s of records had been inserted against %s (records only; the files hold more, see bytes on disk).",
				load.LibName(c.Label), i, thousands(c.BatchMean(i, true)), thousands(c.BatchMean(0, true)), dbiMiB(dataAfter(r0, i-1)), cache))
		} else {
			out = append(out, fmt.Sprintf("%s: no collapse of random insertions (no batch under a tenth of batch 0's %s/s; last batch %s/s).",
				load.LibName(c.Label), thousands(c.BatchMean(0, true)), thousands(c.BatchMean(c.Batches()-1, true))))
		}
	}
	for _, c := range cfgs {
		out = append(out, fmt.Sprintf("%s: %s µs of CPU per insertion (user+sys of the program), %s bytes written to the host's disk "+
			"and %s disk flushes per 10^6 insertions.", load.LibName(c.Label),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.CPUS * 1e6 }))), 2),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.DiskWriteMB * 1e6 }))), 1),
			fixed(load.MeanOf(c.Values(perInsertion(func(r *load.DBIRun) float64 { return r.Flushes * 1e6 }))), 1)))
	}
	out = append(out, "Disk writes and flushes are the host's disk over the monitored seconds (/proc/diskstats; flushes are what fsyncs "+
		"reach a disk with a volatile cache as): on a host shared with other work, as the lab's kernel is, they count that work too; "+
		"the program's own fsync calls are not counted.")
	return out
}

func perInsertion(f func(*load.DBIRun) float64) func(*load.DBIRun) float64 {
	return func(r *load.DBIRun) float64 {
		if r.Insertions <= 0 {
			return math.NaN()
		}
		return f(r) / float64(r.Insertions)
	}
}

// dataAfter is the records' bytes inserted by the end of batch i (both
// halves).
func dataAfter(r *load.DBIRun, i int) float64 {
	halves := 2.0
	if len(r.Serial) > 0 && math.IsNaN(r.Serial[0]) || len(r.Random) > 0 && math.IsNaN(r.Random[0]) {
		halves = 1
	}
	return float64(i+1) * halves * float64(r.BatchSize) * r.RecordBytes
}

func runCounts(cfgs []*load.DBIConfig) string {
	var s []string
	for _, c := range cfgs {
		s = append(s, fmt.Sprintf("%s %d", c.Label, len(c.Runs)))
	}
	return strings.Join(s, ", ")
}

func dbiMiB(b float64) string {
	if math.IsNaN(b) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
}

func fixed(v float64, prec int) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%.*f", prec, v)
}

// thousands prints a rate rounded, with thousands separators.
func thousands(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dbiPlot draws each library's mean random rate per batch, log scale.
func dbiPlot(cfgs []*load.DBIConfig) ([]byte, error) {
	ch := newChart()
	ch.p.Title.Text = "db-insert: random insertions per batch"
	ch.p.X.Label.Text = "batch"
	ch.p.Y.Label.Text = "random insertions/s"
	colors := []color.Color{color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff}}
	for k, c := range cfgs {
		var pts plotter.XYs
		for i := range c.Batches() {
			if v := c.BatchMean(i, true); !math.IsNaN(v) && v > 0 {
				pts = append(pts, plotter.XY{X: float64(i), Y: v})
			}
		}
		if len(pts) == 0 {
			continue
		}
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		l.Color, s.Color = colors[k%len(colors)], colors[k%len(colors)]
		l.Width = vg.Points(1.5)
		ch.p.Add(l, s)
		ch.legend.Add(load.LibName(c.Label), l, s)
	}
	ch.p.Y.Min = 0
	return renderSVG(ch)
}

// WriteDBInsert reads the runs and writes dir/dbinsert.md and its plot. It
// returns the answer line and the paths written.
func WriteDBInsert(dir string, runs []load.DBInsertRun) (string, []string, error) {
	var read []*load.DBIRun
	var errs []error
	for _, r := range runs {
		if r.State != "ok" && r.State != "failed" {
			continue
		}
		d, err := load.ReadDBInsertRun(r)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		read = append(read, d)
	}
	cfgs, failed := load.DBIConfigs(read)
	if len(cfgs) == 0 {
		return "", nil, errors.Join(append(errs, errors.New("db-insert report: no run ended ok"))...)
	}
	var paths []string
	plotRel := filepath.Join(load.PlotsDir, "dbinsert-random.svg")
	svg, err := dbiPlot(cfgs)
	if err == nil {
		p := filepath.Join(dir, plotRel)
		if err = os.MkdirAll(filepath.Dir(p), 0o755); err == nil {
			err = os.WriteFile(p, svg, 0o644)
		}
		paths = append(paths, p)
	}
	if err != nil {
		errs = append(errs, fmt.Errorf("db-insert plot: %w", err))
		plotRel = ""
	}
	answer, md := dbiMarkdown(cfgs, failed, plotRel)
	p := filepath.Join(dir, load.FileDBInsert)
	if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
		return answer, paths, err
	}
	return answer, append(paths, p), errors.Join(errs...)
}

// RegenerateDBInsert writes dbinsert.md again when the one input is a
// db-insert matrix, returning its answer line and paths ("" and none for
// any other input).
func RegenerateDBInsert(inputs []string) (string, []string, error) {
	if len(inputs) != 1 {
		return "", nil, nil
	}
	m, err := schema.ReadMatrix(filepath.Join(inputs[0], schema.FileMatrix), false)
	if err != nil {
		return "", nil, nil // not a matrix: Generate has judged the input
	}
	runs, err := load.DBInsertRuns(inputs[0], m)
	if err != nil || runs == nil {
		return "", nil, err
	}
	return WriteDBInsert(inputs[0], runs)
}
