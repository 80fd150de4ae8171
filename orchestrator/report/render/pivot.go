package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
)

// PivotSection is the 2x2 table of a design with two factors of two
// levels each (engine x knob, or two knobs): one row per level of the
// first, one column per level of the second, each cell the configuration's
// mean rate and n, and each row's ratio of its second column to its first;
// the interaction is the ratio of the two rows' ratios (1 when the knob
// does the same to both engines). nil for any other design.
func PivotSection(t *judge.Table) *SectionTable {
	f := factors(t)
	if f == nil {
		return nil
	}
	cell := func(a, b string) *judge.Group {
		for _, g := range t.Groups {
			if lv := tableLevels(t, g); lv[f.names[0]] == a && lv[f.names[1]] == b {
				return g
			}
		}
		return nil
	}
	s := &SectionTable{Baseline: -1, Header: []string{
		f.names[0] + " (rows) x " + f.names[1] + " (columns)",
		f.names[1] + "=" + f.levels[1][0] + " " + t.Metric + " mean (n)",
		f.names[1] + "=" + f.levels[1][1] + " " + t.Metric + " mean (n)",
		f.levels[1][1] + " vs " + f.levels[1][0],
	}}
	var ratios []float64
	for _, a := range f.levels[0] {
		g0, g1 := cell(a, f.levels[1][0]), cell(a, f.levels[1][1])
		r := g1.Rate.Mean / g0.Rate.Mean
		ratios = append(ratios, r)
		s.Rows = append(s.Rows, []string{f.names[0] + "=" + a,
			fmt.Sprintf("%s (%d)", analyse.Num(g0.Rate.Mean, 2), g0.Rate.N), fmt.Sprintf("%s (%d)", analyse.Num(g1.Rate.Mean, 2), g1.Rate.N), analyse.Ratio(r)})
	}
	inter := ratios[1] / ratios[0]
	s.Notes = []string{fmt.Sprintf("Two factors of two levels: the effect of %s on each %s, and their interaction, the ratio of the two rows' ratios: %s "+
		"(1 when %s does the same to both; means of the runs that ended ok, no interval).", f.names[1], f.names[0], analyse.Ratio(inter), f.names[1])}
	if math.IsNaN(inter) {
		s.Notes[0] = fmt.Sprintf("Two factors of two levels: the effect of %s on each %s (a configuration without a run that ended ok: no interaction).", f.names[1], f.names[0])
	}
	return s
}

// factors2 are a 2x2 design's two factors and their levels, in the order
// the configurations first show them.
type factors2 struct {
	names  [2]string
	levels [2][]string
}

// tableLevels is a configuration's level of each factor: its engine and knobs.
func tableLevels(t *judge.Table, g *judge.Group) map[string]string {
	out := map[string]string{}
	if len(g.Runs) == 0 {
		return out
	}
	r := g.Runs[0]
	if r.Engine != "" {
		out["engine"] = r.Engine
	}
	for _, k := range r.Knobs {
		out[k.Name] = k.Value
	}
	return out
}

// factors is the table's 2x2 design, nil when it is not one: four
// configurations, exactly two factors with two levels each, every
// combination present once.
func factors(t *judge.Table) *factors2 {
	if len(t.Groups) != 4 {
		return nil
	}
	var names []string
	levels := map[string][]string{}
	for _, g := range t.Groups {
		for name, v := range tableLevels(t, g) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
			if !slices.Contains(levels[name], v) {
				levels[name] = append(levels[name], v)
			}
		}
	}
	var two []string
	for _, n := range names {
		switch len(levels[n]) {
		case 1:
		case 2:
			two = append(two, n)
		default:
			return nil
		}
	}
	if len(two) != 2 {
		return nil
	}
	slices.SortStableFunc(two, func(a, b string) int { // the engine first, else by name
		switch {
		case a == "engine":
			return -1
		case b == "engine":
			return 1
		}
		return strings.Compare(a, b)
	})
	f := &factors2{names: [2]string{two[0], two[1]}}
	seen := map[[2]string]bool{}
	for _, g := range t.Groups {
		lv := tableLevels(t, g)
		seen[[2]string{lv[two[0]], lv[two[1]]}] = true
	}
	if len(seen) != 4 {
		return nil
	}
	for i, n := range two {
		f.levels[i] = levels[n]
	}
	return f
}
