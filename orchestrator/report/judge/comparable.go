package judge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// checkComparable refuses to compare runs of one table whose servers
// (flavour and major.minor version), workload parameters, client (tool and
// version) or topology differ: a ratio between an 8-thread and a
// 128-thread run measures the workloads, not the configurations, and one
// between MariaDB and MySQL the servers. With allow, the report goes on and each table lists what
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
	return &load.InputError{Path: "inputs", Err: fmt.Errorf("runs that are not comparable (--allow-mixed compares them anyway, labelled): %s",
		strings.Join(all, "; "))}
}

// runAspects are what must match between the compared runs: each
// effective workload parameter, the servers' flavour and major.minor
// version, the client and the topology. A run that does not know an aspect
// (a parsed log has no topology and no servers) is not compared on it.
func runAspects(r *load.Run) map[string]string {
	m := map[string]string{}
	for _, p := range r.Params {
		m[p.Name] = p.Value
	}
	if s := ServerAspect(r.Evidence); s != "" {
		m["server"] = s
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

// ServerAspect is what a run's servers are for the comparison: each
// distinct flavour and major.minor ("MariaDB 10.11, MySQL 9.7" when its
// hosts differ), sorted; "" when the run did not record them. A patch
// release is not an aspect: the head names it (serversText).
func ServerAspect(ev *load.Evidence) string {
	if ev == nil {
		return ""
	}
	seen := map[string]bool{}
	for _, v := range ev.Servers {
		seen[ServerMinor(v)] = true
	}
	return strings.Join(load.SortedKeys(seen), ", ")
}

// ServerMinor is a recorded server ("MySQL 9.7.4", flavor.Server's
// String) without its patch release: "MySQL 9.7". A string it cannot read
// is compared whole.
func ServerMinor(s string) string {
	i := strings.LastIndexByte(s, ' ')
	if i < 0 {
		return s
	}
	v, err := flavor.ParseVersion(s[i+1:])
	if err != nil {
		return s
	}
	return fmt.Sprintf("%s %d.%d", s[:i], v.Major, v.Minor)
}
