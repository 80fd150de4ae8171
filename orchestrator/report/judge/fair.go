package judge

import (
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// LintFairness compares the configurations' effective variables (each
// label's first run in the statistics that recorded them) for asymmetries
// the comparison did not ask for.
func (t *Table) lintFairness() {
	var configs []fairness.Config
	var axes []string
	for _, g := range t.Groups {
		r := firstWithVariables(g)
		if r == nil {
			continue
		}
		c := fairness.Config{Label: g.Label, Engine: strings.ToLower(r.Engine)}
		ev := r.Evidence
		for _, h := range ev.Hosts {
			role := ev.Roles[h]
			if role == "" && h == "master" {
				role = "master"
			} else if role == "" {
				role = "slave"
			}
			c.Hosts = append(c.Hosts, fairness.Host{Name: h, Role: role, Vars: ev.Variables[h], MemoryBytes: memoryOf(ev, h)})
		}
		configs = append(configs, c)
		for _, k := range r.Knobs {
			axes = append(axes, k.Name)
		}
	}
	t.Fairness = fairness.Lint(configs, axes)
}

func firstWithVariables(g *Group) *load.Run {
	for _, r := range g.Runs {
		if r.Usable() && r.Evidence != nil && len(r.Evidence.Variables) > 0 {
			return r
		}
	}
	return nil
}

// memoryOf is a host's RAM from its facts (memory_mb), 0 when unknown.
func memoryOf(ev *load.Evidence, host string) float64 {
	for _, hf := range ev.Facts {
		if hf.Host != host {
			continue
		}
		for _, f := range hf.Facts {
			if f[0] == "memory_mb" {
				if mb, err := strconv.ParseFloat(f[1], 64); err == nil {
					return mb * (1 << 20)
				}
			}
		}
	}
	return 0
}

// FairnessLines are the warnings as the report lists them under the
// verdicts.
func (t *Table) FairnessLines() []string {
	out := make([]string, len(t.Fairness))
	for i, w := range t.Fairness {
		out[i] = "UNFAIR: " + w.String()
	}
	return out
}

// HasVariables reports whether the lint had variables to read.
func (t *Table) HasVariables() bool {
	for _, g := range t.Groups {
		if firstWithVariables(g) != nil {
			return true
		}
	}
	return false
}

// SidePosition is what the fairness lint found of a configuration's
// replica side tables (where its slaves keep their applied position, and
// at which flush policy) when they differ between the configurations; ""
// when they do not, or the lint did not look.
func (t *Table) sidePosition(label string) string {
	for _, w := range t.Fairness {
		if w.What != fairness.SideTables {
			continue
		}
		for _, v := range w.Values {
			if rest, ok := strings.CutPrefix(v, label+": "); ok {
				return rest
			}
		}
	}
	return ""
}
