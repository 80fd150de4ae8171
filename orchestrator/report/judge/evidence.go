package judge

import (
	"fmt"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// BaselineRun is the run whose configuration the others are compared
// with: the baseline label's first run in the statistics, else its first
// run with evidence.
func (t *Table) BaselineRun() *load.Run {
	var first *load.Run
	for _, r := range t.Baseline.Runs {
		if r.Evidence == nil {
			continue
		}
		if r.Usable() {
			return r
		}
		if first == nil {
			first = r
		}
	}
	return first
}

// EvidenceDiffs words how a run's versions and host facts differ from the
// baseline run's.
func (t *Table) EvidenceDiffs(base, r *load.Run) []string {
	a, b := base.Evidence, r.Evidence
	var out []string
	if a.OrchVersion != b.OrchVersion {
		out = append(out, fmt.Sprintf("orch version: %s → %s", Dash(a.OrchVersion), Dash(b.OrchVersion)))
	}
	mapDiff := func(what string, x, y map[string]string) {
		for _, k := range load.SortedKeys(mergeKeys(x, y)) {
			if x[k] != y[k] {
				out = append(out, fmt.Sprintf("%s %s: %s → %s", what, k, Dash(x[k]), Dash(y[k])))
			}
		}
	}
	mapDiff("server", a.Servers, b.Servers)
	mapDiff("client", a.Clients, b.Clients)
	factMap := func(ev *load.Evidence) map[string]string {
		m := map[string]string{}
		for _, hf := range ev.Facts {
			for _, f := range hf.Facts {
				if !load.VolatileFacts[f[0]] {
					m[hf.Host+" "+f[0]] = f[1]
				}
			}
		}
		return m
	}
	mapDiff("host", factMap(a), factMap(b))
	if len(out) == 0 {
		out = append(out, "versions and host facts as the baseline's")
	}
	return out
}
