package report

import (
	"fmt"
	"slices"
	"strings"
)

// checkComparable refuses to compare runs of one table whose workload
// parameters, client (tool and version) or topology differ: a ratio
// between an 8-thread and a 128-thread run measures the workloads, not the
// configurations. With allow, the report goes on and each table lists what
// differs (Table.Mixed) in its head.
func (rep *Report) checkComparable(allow bool) error {
	var all []string
	for _, t := range rep.Tables {
		t.Mixed = t.differences()
		for _, d := range t.Mixed {
			all = append(all, t.Workload+": "+d)
		}
	}
	if len(all) == 0 || allow {
		return nil
	}
	return &InputError{Path: "inputs", Err: fmt.Errorf("runs that are not comparable (--allow-mixed compares them anyway, labelled): %s",
		strings.Join(all, "; "))}
}

// runAspects are what must match between the compared runs: each
// effective workload parameter, the client and the topology. A run that
// does not know an aspect (a parsed log has no topology) is not compared
// on it.
func runAspects(r *Run) map[string]string {
	m := map[string]string{}
	for _, p := range r.Params {
		m[p.Name] = p.Value
	}
	if r.Bench != nil && r.Bench.Version != "" {
		m["client"] = r.Bench.Tool + " " + r.Bench.Version
	}
	if r.Topology != "" {
		m["topology"] = r.Topology
	}
	return m
}

// differences names each aspect on which the table's runs disagree, with
// the runs holding each value: `threads: 8 (a, b) vs 128 (c)`.
func (t *Table) differences() []string {
	values := map[string][]string{} // aspect -> distinct values in order
	holders := map[string][]string{}
	var aspects []string
	for _, r := range t.Runs {
		if r.Bench == nil {
			continue
		}
		for k, v := range runAspects(r) {
			if !slices.Contains(aspects, k) {
				aspects = append(aspects, k)
			}
			if !slices.Contains(values[k], v) {
				values[k] = append(values[k], v)
			}
			holders[k+"\x00"+v] = append(holders[k+"\x00"+v], r.ID)
		}
	}
	slices.Sort(aspects)
	var out []string
	for _, k := range aspects {
		if len(values[k]) < 2 {
			continue
		}
		parts := make([]string, len(values[k]))
		for i, v := range values[k] {
			parts[i] = fmt.Sprintf("%s (%s)", v, strings.Join(holders[k+"\x00"+v], ", "))
		}
		out = append(out, k+": "+strings.Join(parts, " vs "))
	}
	return out
}
