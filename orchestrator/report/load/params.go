package load

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// workloadParams reads the effective workload parameters from the
// manifest's workload (as the runner marshalled it, overrides applied):
// the tool, the test and every option that is set, named as in the
// workload files (table_size, time_s). The engine option is left out: it
// is an axis of the comparison, not a parameter to hold equal.
func workloadParams(raw json.RawMessage) []Param {
	var w struct {
		Tool, Binary, Test string
		Options            map[string]any
		ExtraArgs          []string
	}
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return nil
	}
	var out []Param
	if w.Tool != "" {
		out = append(out, Param{"tool", w.Tool})
	}
	if w.Test != "" {
		out = append(out, Param{"test", w.Test})
	}
	keys := make([]string, 0, len(w.Options))
	for k := range w.Options {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := w.Options[k]
		if v == nil || v == "" || strings.EqualFold(k, "engine") {
			continue
		}
		out = append(out, Param{snake(k), schema.OptionText(v)})
	}
	if len(w.ExtraArgs) > 0 {
		out = append(out, Param{"extra_args", strings.Join(w.ExtraArgs, " ")})
	}
	return out
}

// startingData is what the workload's tables held when the client
// started, from the manifest's workload and what its driver prepares.
func startingData(raw json.RawMessage) string {
	var w bench.Workload
	if len(raw) == 0 || json.Unmarshal(raw, &w) != nil {
		return ""
	}
	return bench.StartingData(&w)
}

// snake turns a Go field name into the workload file's key: TableSize ->
// table_size, TimeS -> time_s.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// topologyText describes the cluster a run ran on: "master + 2 slaves,
// semi-sync on". Without an inventory it is "".
func topologyText(hosts []schema.InventoryHost, monitored, semiSync bool) string {
	masters, slaves := 0, 0
	for _, h := range hosts {
		switch h.Role {
		case "master":
			masters++
		case "slave":
			slaves++
		}
	}
	if masters == 0 {
		return ""
	}
	s := fmt.Sprintf("%d master + %d slaves", masters, slaves)
	if ss := semiSyncText(monitored, semiSync); ss != "" {
		s += ", " + ss
	}
	return s
}

// semiSyncText is "semi-sync on" or "semi-sync off" as the monitor saw it,
// "" when the run was not monitored.
func semiSyncText(monitored, semiSync bool) string {
	switch {
	case !monitored:
		return ""
	case semiSync:
		return "semi-sync on"
	}
	return "semi-sync off"
}
