package judge

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// DefaultWarmupS is the warm-up excluded from steady-state figures when
// neither the options nor a matrix say otherwise.
const DefaultWarmupS = 10

// Report is the comparison of the inputs' runs, ready to be written.
type Report struct {
	Sources []string
	WarmupS float64
	// WarmupFrom says where the warm-up came from: "--warmup",
	// "matrix.json" or "default".
	WarmupFrom string
	Tables     []*Table
	// NoEffect lists the knobs the server ignores (from matrix.json).
	NoEffect [][2]string
	// Floors are the noise floors an A/A input measured (noise.go).
	Floors []*NoiseFloor
}

// Table compares the configurations of one workload.
type Table struct {
	Workload string
	Tool     string
	Metric   string // writes/s, tps, queries/s, rows/s
	Baseline *Group
	// BaselineNote explains a baseline that is not the one asked for.
	BaselineNote string
	Groups       []*Group    // in order of first appearance
	Runs         []*load.Run // in input order
	// Plots are drawn by the writers (drawPlots), not by Build: the judge
	// (JudgeMatrix) needs no pictures.
	Plots      []Plot
	PlotsDrawn bool
	// LowerIsBetter: the metric is a time (mysqlslap's seconds).
	LowerIsBetter bool
	Headline      string
	// Mixed names what differs between the compared runs when the report
	// was asked to compare them anyway (--allow-mixed).
	Mixed []string
	// Fairness lists the asymmetries between configurations that are not
	// on the comparison's axes (fair.go).
	Fairness []fairness.Warning
	// Why explains each configuration against the baseline (nil without
	// time series).
	Why *Why
	// Blocks compares within and across clusters (nil: one cluster).
	Blocks *ClusterSection
	// Floor is the A/A noise floor the verdicts were held against (nil:
	// none named).
	Floor *FloorUse
	// Until is the matrix's stopping rule (nil: a fixed --repeat) and
	// Skipped the cells it did not need.
	Until   *load.UntilDoc
	Skipped int
	// Analysis is how the comparisons were analysed and why (analysis.go).
	Analysis analyse.Analysis
}

// Group is one configuration (label) of a table and its runs.
type Group struct {
	Label string
	Runs  []*load.Run
	// Steady holds the steady-state rate of each run that enters the
	// statistics (state ok), Rate their description; Blocks where each
	// ran (its cluster and round), nil when a run's round is not known.
	Steady []float64
	Blocks []stats.Block
	Rate   analyse.Sample
	// Whole-run latency (ms: the client's summary) over the runs in the
	// statistics: the mean of their avg and pNN, the largest of their max;
	// and health.
	LatAvg, LatPct, LatMax float64
	Pctl                   int
	// WinLatPct and WinLatAvg are the means over the runs of their pNN
	// (Bench.windowLat) and mean latency (Bench.windowLatAvg) in the
	// window: the latency figures of the steady state.
	WinLatPct, WinLatAvg float64
	Errors               float64 // total
	TableBytes           float64 // mean
	DatadirBytes         float64 // mean
	FallbackS, NoTx      float64 // total
	MaxLagS, MaxLagTx    float64 // worst
	Consistency          string  // ok, MISMATCH, ""
	// Ratio is the comparison's estimate under the table's analysis:
	// Rate.Mean over the baseline's (unpaired), or the geometric mean of
	// the rounds' ratios (blocked).
	Ratio float64
	// Test is the analysis's test against the baseline (Welch's, or
	// Student's t on the rounds' log ratios); TestErr says why there is
	// none.
	Test    *analyse.TTest
	TestErr error
	// NoEffect lists the knobs that set this label apart from the
	// baseline but that the server ignores.
	NoEffect []string
	// Verdict is the comparison in words; "" for the baseline itself.
	Verdict string
	// InsideFloor: Ratio lies inside the table's A/A noise floor.
	InsideFloor bool

	analyse.Stats // noise, ratio interval, rank test, replicas (stats_group.go)
}

// SteadyOf is a run's steady-state rate in its table and how it was got.
func (t *Table) SteadyOf(r *load.Run) (float64, string) {
	if r.Bench == nil {
		return math.NaN(), ""
	}
	return r.Bench.Steady(t.Metric, r.Win)
}

// Build compares the input's runs.
func Build(in *load.Input, opts analyse.Options) (*Report, error) {
	rep := &Report{Sources: in.Sources, WarmupS: DefaultWarmupS, WarmupFrom: "default"}
	switch {
	case opts.WarmupS != nil:
		rep.WarmupS, rep.WarmupFrom = *opts.WarmupS, "--warmup"
	case in.WarmupS != nil:
		rep.WarmupS, rep.WarmupFrom = *in.WarmupS, load.FileMatrix
	}
	if rep.WarmupS < 0 || math.IsNaN(rep.WarmupS) {
		return nil, &load.InputError{Path: "warm-up", Err: fmt.Errorf("%v s: want 0 or more seconds", rep.WarmupS)}
	}
	for _, k := range load.SortedKeys(in.NoEffect) {
		rep.NoEffect = append(rep.NoEffect, [2]string{k, in.NoEffect[k]})
	}
	rep.Tables = Tables(in.Runs)
	baseline := opts.Baseline
	if baseline == "" {
		baseline = in.Baseline
	}
	if opts.Baseline != "" && !slices.ContainsFunc(rep.Tables, func(t *Table) bool { return t.Group(opts.Baseline) != nil }) {
		return nil, &load.InputError{Path: "--baseline " + opts.Baseline, Err: fmt.Errorf("no such label; the labels are %s", strings.Join(rep.labels(), ", "))}
	}
	if err := rep.checkComparable(opts.AllowMixed || in.AllowMixed); err != nil {
		return nil, err
	}
	if err := analyse.CheckAnalysis(in, opts); err != nil {
		return nil, err
	}
	for _, t := range rep.Tables {
		t.Until, t.Skipped = in.Until, in.Skipped
		t.Analysis = analyse.AnalysisOf(in, opts)
		t.SetWindows(opts.WarmupS != nil || in.WarmupS != nil, rep.WarmupS, rep.WarmupFrom)
		t.testSteady()
		t.Headline = opts.Headline
		t.Compare(baseline, in.NoEffect)
		t.lintFairness()
		t.Why = t.buildWhy()
		t.compareBlocked(in.Design)
	}
	if err := rep.noiseFloors(in, opts); err != nil {
		return nil, err
	}
	return rep, nil
}

// noiseFloors states an A/A input's floors, or holds the verdicts against
// the floor of the A/A matrix named by the options or the matrix.
func (rep *Report) noiseFloors(in *load.Input, opts analyse.Options) error {
	if in.AA {
		src := in.Home
		if src == "" {
			src = strings.Join(in.Sources, ", ")
		}
		for _, t := range rep.Tables {
			if f := t.MeasureFloor(floorSource(src, src), in.Started); f != nil {
				rep.Floors = append(rep.Floors, f)
			}
		}
		return nil
	}
	dir := opts.NoiseFloor
	if dir == "" {
		dir = in.NoiseFloor
	}
	if dir == "" {
		return nil
	}
	floors, err := LoadNoiseFloors(dir)
	if err != nil {
		return &load.InputError{Path: "noise floor", Err: err}
	}
	for _, f := range floors {
		f.Source = floorSource(dir, in.Home)
	}
	for _, t := range rep.Tables {
		t.Floor = t.UseFloor(floors)
	}
	return nil
}

// Tables groups runs by workload. Parse output has no workload name: it
// joins the only workload run with the same tool, or a table of its own.
func Tables(runs []*load.Run) []*Table {
	var out []*Table
	byKey := map[string]*Table{}
	add := func(key, tool string, r *load.Run) {
		t, ok := byKey[key]
		if !ok {
			t = &Table{Workload: key, Tool: tool}
			byKey[key] = t
			out = append(out, t)
		}
		t.Runs = append(t.Runs, r)
		if t.Tool == "" {
			t.Tool = tool
		}
	}
	for _, r := range runs {
		if r.Workload != "" {
			add(r.Workload, r.Tool, r)
		}
	}
	toolTables := map[string][]string{}
	for _, t := range out {
		toolTables[t.Tool] = append(toolTables[t.Tool], t.Workload)
	}
	for _, r := range runs {
		if r.Workload != "" {
			continue
		}
		if ws := toolTables[r.Tool]; len(ws) == 1 {
			add(ws[0], r.Tool, r)
		} else {
			add(r.Tool, r.Tool, r)
		}
	}
	// Runs joined out of input order; put each table back in it.
	pos := map[*load.Run]int{}
	for i, r := range runs {
		pos[r] = i
	}
	for _, t := range out {
		sort.SliceStable(t.Runs, func(i, j int) bool { return pos[t.Runs[i]] < pos[t.Runs[j]] })
		t.Metric = load.ChooseMetric(t.Runs)
		t.LowerIsBetter = bench.LowerIsBetter(t.Metric)
		for _, r := range t.Runs {
			g := t.Group(r.Label)
			if g == nil {
				g = &Group{Label: r.Label}
				t.Groups = append(t.Groups, g)
			}
			g.Runs = append(g.Runs, r)
		}
	}
	return out
}

func (t *Table) Group(label string) *Group {
	for _, g := range t.Groups {
		if g.Label == label {
			return g
		}
	}
	return nil
}

func (rep *Report) labels() []string {
	var out []string
	for _, t := range rep.Tables {
		for _, g := range t.Groups {
			if q := fmt.Sprintf("%q", g.Label); !slices.Contains(out, q) {
				out = append(out, q)
			}
		}
	}
	return out
}

// Compare computes each group's figures and compares them with the
// baseline group's.
func (t *Table) Compare(baseline string, noEffect map[string]string) {
	for _, g := range t.Groups {
		t.describe(g)
	}
	t.Baseline = t.Group(baseline)
	if t.Baseline == nil {
		t.Baseline = t.Groups[0]
		if baseline != "" {
			t.BaselineNote = fmt.Sprintf("%q is not in this table; the first configuration is the baseline", baseline)
		}
	}
	b := t.Baseline
	// One analysis per table: blocks only when every compared
	// configuration's runs name their rounds.
	blocked := t.blocked()
	var judged []*Group
	var cs []stats.Comparison
	for _, g := range t.Groups {
		if g == b {
			continue
		}
		g.Ratio = g.Rate.Mean / b.Rate.Mean
		switch {
		case g.Rate.N == 0 || b.Rate.N == 0:
			g.TestErr = analyse.ErrNoRuns
		case b.Rate.Mean == 0:
			g.Ratio, g.TestErr = math.NaN(), stats.ErrZeroBaseline
		default:
			judged = append(judged, g)
			c := stats.Comparison{Label: g.Label + "/" + b.Label, Other: g.Steady, Base: b.Steady}
			if blocked {
				c.OtherBlocks, c.BaseBlocks = g.Blocks, b.Blocks
			}
			cs = append(cs, c)
		}
		g.NoEffect = ignoredKnobs(b, g, noEffect)
	}
	t.Analysis.Used = t.rule().AnalysisOf(blocked)
	// The one judge (stats.Rule.Evaluate): the analysis's test, Holm's step-down
	// over the table's comparisons against its baseline (so that several
	// configurations compared with one baseline keep a 5% chance in all
	// of one false "significant"; seven at 5% each had about 30%), and
	// Fieller's interval at each one's Holm level.
	for i, s := range t.rule().Evaluate(t.round(), cs) {
		judged[i].Take(s)
		judged[i].Needed = t.rule().RunsNeeded(cs[i], analyse.Alpha)
	}
	for _, g := range t.Groups {
		if g == b {
			continue
		}
		g.CompareWith(b)
		if blocked {
			t.sustainedByRounds(g, b)
		}
		g.Verdict = Verdict(t, b, g, noEffect)
	}
}

// describe computes a group's statistics over its runs that ended ok.
func (t *Table) describe(g *Group) {
	var lavg, lpct, lmax, lwin, lwinAvg, tbl, ddir []float64
	g.Errors, g.FallbackS, g.NoTx, g.MaxLagS, g.MaxLagTx = load.NaN(), load.NaN(), load.NaN(), load.NaN(), load.NaN()
	for _, r := range g.Runs {
		if !r.Usable() {
			continue
		}
		v, _ := t.SteadyOf(r)
		g.Steady = append(g.Steady, v)
		g.Blocks = append(g.Blocks, stats.Block{Cluster: r.Cluster, Round: r.Rep})
		b, h := r.Bench, r.Health
		lavg, lpct, lmax = append(lavg, b.LatAvg), append(lpct, b.LatPct), append(lmax, b.LatMax)
		lwin, lwinAvg = append(lwin, b.WindowLat(r.Win)), append(lwinAvg, b.WindowLatAvg(r.Win))
		if b.Pctl > 0 {
			g.Pctl = b.Pctl
		}
		tbl, ddir = append(tbl, h.TableBytes), append(ddir, h.DatadirBytes)
		g.Errors = addNaN(g.Errors, b.Errors)
		g.FallbackS, g.NoTx = addNaN(g.FallbackS, h.FallbackS), addNaN(g.NoTx, h.NoTx)
		g.MaxLagS, g.MaxLagTx = load.MaxNaN(g.MaxLagS, h.MaxLagS), load.MaxNaN(g.MaxLagTx, h.MaxLagTx)
		switch {
		case h.Consistency == "MISMATCH" || g.Consistency == "MISMATCH":
			g.Consistency = "MISMATCH"
		case h.Consistency == "ok":
			g.Consistency = "ok"
		}
	}
	if slices.ContainsFunc(g.Blocks, func(b stats.Block) bool { return b.Round <= 0 }) {
		g.Blocks = nil // a run outside a matrix's rounds: no blocks
	}
	g.Rate = analyse.Describe(g.Steady)
	g.LatAvg, g.LatPct, g.LatMax, g.WinLatPct, g.WinLatAvg = load.MeanOf(lavg), load.MeanOf(lpct), maxOf(lmax), load.MeanOf(lwin), load.MeanOf(lwinAvg)
	g.TableBytes, g.DatadirBytes = load.MeanOf(tbl), load.MeanOf(ddir)
	t.describeMore(g)
}

// ignoredKnobs lists the knobs whose values set g apart from the baseline
// but which the server ignores. It is empty unless every difference
// between the two (engine included) is such a knob.
func ignoredKnobs(base, g *Group, noEffect map[string]string) []string {
	if len(noEffect) == 0 || len(base.Runs) == 0 || len(g.Runs) == 0 {
		return nil
	}
	a, b := base.Runs[0], g.Runs[0]
	if a.Engine != b.Engine {
		return nil
	}
	values := func(r *load.Run) map[string]string {
		m := map[string]string{}
		for _, k := range r.Knobs {
			m[k.Name] = k.Value
		}
		return m
	}
	va, vb := values(a), values(b)
	var diff []string
	for _, name := range load.SortedKeys(mergeKeys(va, vb)) {
		if va[name] == vb[name] {
			continue
		}
		if _, ignored := noEffect[name]; !ignored {
			return nil
		}
		diff = append(diff, name)
	}
	return diff
}

func mergeKeys(a, b map[string]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// maxOf is the largest finite value (NaN when none).
func maxOf(xs []float64) float64 {
	out := math.NaN()
	for _, x := range xs {
		out = load.MaxNaN(out, x)
	}
	return out
}

// addNaN adds b to a, treating NaN as "not measured".
func addNaN(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return a + b
}

// Plot is one rendered chart.
type Plot struct {
	// Name is the file stem under plots/ ("pure-random-writes-throughput").
	Name  string
	Title string
	SVG   []byte
}
