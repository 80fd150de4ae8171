package judge

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// NoiseFloor is what an A/A matrix measured for one workload.
type NoiseFloor struct {
	// Source is the A/A matrix directory; Date the day its first cell ran
	// (zero when unknown).
	Source string
	Date   time.Time
	// Workload, Tool and Metric identify the table it was measured in;
	// Labels are the arms, (a) first.
	Workload, Tool, Metric string
	Labels                 [2]string
	// Ratio is b against a and CI its 95% interval (nil: CIErr), from
	// the table's analysis, Method (stats.AnalysisBlocked: by round;
	// else Fieller's).
	Ratio  float64
	CI     *analyse.RatioCI
	CIErr  error
	Method string
	NA, NB int
	// Test is Welch's t-test between the arms: a significant difference
	// between identical configurations means the runs drift or are not
	// independent, and the floor understates the noise.
	Test *analyse.TTest
	// aspects are the workload parameters, client and topology of its
	// runs, which a compared table must share for the floor to apply.
	Aspects map[string]string
}

// FloorUse is how a table used a noise floor.
type FloorUse struct {
	Floor *NoiseFloor
	// NotApplicable says why the floor does not apply to this table
	// ("" when it does).
	NotApplicable string
}

// Line is the A/A report's statement: "A/A: 1.01x [0.97, 1.05] (n=3 each,
// p=0.612): the noise floor of this cluster for pure-random-writes
// (writes/s)".
func (f *NoiseFloor) Line() string {
	n := fmt.Sprintf("n=%d each", f.NA)
	if f.NA != f.NB {
		n = fmt.Sprintf("n=%d and %d", f.NA, f.NB)
	}
	if f.Test != nil {
		n += ", " + PValue(f.Test.P)
	}
	s := fmt.Sprintf("A/A: %s%s (%s): the noise floor of this cluster for %s (%s)", analyse.Ratio(f.Ratio), f.ciText(), n, f.Workload, f.Metric)
	switch {
	case f.CI == nil && !errors.Is(f.CIErr, analyse.ErrUnbounded):
		s += "; caveat: no interval with fewer than 2 runs per arm, --repeat 3 or more gives one"
	case f.Test != nil && f.Test.Significant():
		s += "; WARNING: the two identical arms differ significantly: the runs drift or are not independent, and this floor understates the noise"
	}
	return s
}

func (f *NoiseFloor) ciText() string {
	if f.CI == nil && f.CIErr == nil {
		return " [no CI]"
	}
	return CIPhrase(f.CI, f.CIErr)
}

// Inside reports whether a ratio lies within the floor's interval. A floor
// without a finite interval holds nothing.
func (f *NoiseFloor) Inside(ratio float64) bool {
	if f.CI == nil || math.IsNaN(ratio) {
		return false
	}
	return ratio >= f.CI.Low && ratio <= f.CI.High
}

// phrase is what a verdict gains when its ratio is inside the floor:
// "inside the noise floor measured by A/A (runs/X, 2026-12-01): 1.01x
// [0.97, 1.05]".
func (f *NoiseFloor) phrase() string {
	when := ""
	if !f.Date.IsZero() {
		when = ", " + f.Date.UTC().Format("2006-01-02")
	}
	return fmt.Sprintf("inside the noise floor measured by A/A (%s%s): %s%s", f.Source, when, analyse.Ratio(f.Ratio), f.ciText())
}

// MeasureFloor makes t's statement of an A/A matrix: the (b) arm's verdict
// becomes the floor's line.
func (t *Table) MeasureFloor(source string, date time.Time) *NoiseFloor {
	a := t.Baseline
	if a == nil || len(t.Groups) != 2 {
		return nil
	}
	b := t.Groups[0]
	if b == a {
		b = t.Groups[1]
	}
	f := &NoiseFloor{Source: source, Date: date, Workload: t.Workload, Tool: t.Tool, Metric: t.Metric,
		Labels: [2]string{a.Label, b.Label}, Ratio: b.Ratio, CI: b.RatioCI, CIErr: b.RatioCIErr, Method: t.Analysis.CiMethod(),
		NA: a.Rate.N, NB: b.Rate.N, Test: b.Test, Aspects: t.aspects()}
	b.Verdict = f.Line()
	if w := b.OutcomeWords(a, t.Until); w != "" {
		// An A/A under a stopping rule ends equivalent or not resolved.
		b.Verdict += "; " + w
	}
	return f
}

// aspects are those of the table's first run with a benchmark result (the
// comparability check has made them the same for all).
func (t *Table) aspects() map[string]string {
	for _, r := range t.Runs {
		if r.Bench != nil {
			return runAspects(r)
		}
	}
	return map[string]string{}
}

// UseFloor marks the verdicts of t whose ratio lies inside the floor
// measured for t's workload among floors, or says why none applies.
func (t *Table) UseFloor(floors []*NoiseFloor) *FloorUse {
	var f *NoiseFloor
	for _, c := range floors {
		if c.Workload == t.Workload && c.Metric == t.Metric {
			f = c
		}
	}
	if f == nil {
		if len(floors) == 0 {
			return nil
		}
		return &FloorUse{Floor: floors[0], NotApplicable: fmt.Sprintf("it measured %s (%s), not %s (%s)", floors[0].Workload, floors[0].Metric, t.Workload, t.Metric)}
	}
	if diff := aspectDiff(f.Aspects, t.aspects()); diff != "" {
		return &FloorUse{Floor: f, NotApplicable: diff}
	}
	for _, g := range t.Groups {
		if g == t.Baseline || g.Verdict == "" || g.Rate.N == 0 || len(g.NoEffect) > 0 {
			continue
		}
		if f.Inside(g.Ratio) {
			g.InsideFloor = true
			g.Verdict += "; " + f.phrase()
		}
	}
	return &FloorUse{Floor: f}
}

// aspectDiff names the aspects on which the floor's runs and the table's
// differ ("threads: 2 (A/A) vs 8"), "" when none: a floor measured with
// other parameters or on another cluster says nothing about this one.
func aspectDiff(floor, table map[string]string) string {
	var keys []string
	for k := range floor {
		if _, ok := table[k]; ok && floor[k] != table[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %s (A/A) vs %s", k, floor[k], table[k]))
	}
	return strings.Join(parts, "; ")
}

// floorNote is the line a table shows about its floor: where it came from,
// or why it does not apply.
func (u *FloorUse) Note() string {
	f := u.Floor
	if u.NotApplicable != "" {
		return fmt.Sprintf("Noise floor of %s not applicable: %s", f.Source, u.NotApplicable)
	}
	return fmt.Sprintf("Noise floor (A/A %s, %d+%d runs): %s%s; a verdict whose ratio lies inside it says so", f.Source, f.NA, f.NB, analyse.Ratio(f.Ratio), f.ciText())
}

// LoadNoiseFloors builds the report of the A/A matrix in dir and returns
// its floors, one per workload. A directory that is not an A/A matrix is
// an input error.
func LoadNoiseFloors(dir string) ([]*NoiseFloor, error) {
	in, err := load.Load([]string{dir})
	if err != nil {
		return nil, err
	}
	if !in.AA {
		return nil, &load.InputError{Path: dir, Err: errors.New("not an A/A matrix (orch matrix --aa makes one)")}
	}
	rep, err := Build(in, analyse.Options{})
	if err != nil {
		return nil, err
	}
	if len(rep.Floors) == 0 {
		return nil, &load.InputError{Path: dir, Err: errors.New("the A/A matrix has no noise floor (no two arms with runs that ended ok)")}
	}
	return rep.Floors, nil
}

// floorSource names an A/A matrix directory the way reports cite it: its
// base name when it sits next to the compared matrix (the runs root), else
// the path as given.
func floorSource(dir, home string) string {
	if home != "" && filepath.Dir(filepath.Clean(dir)) == filepath.Dir(filepath.Clean(home)) {
		return filepath.Base(dir)
	}
	return dir
}
