package recheck

import (
	"math"
	"strconv"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// whyFile is why.json (schema.Why), read for each run's and each
// configuration's hosts.
type whyFile schema.Why

func hostsByName(hs []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, h := range hs {
		if name, ok := h["host"].(string); ok {
			out[name] = h
		}
	}
	return out
}

// run is why.json's entry of run id (nil when it has none).
func (w whyFile) run(id string) *schema.WhyRun {
	for _, t := range w.Tables {
		for i := range t.Runs {
			if t.Runs[i].Run == id {
				return &t.Runs[i]
			}
		}
	}
	return nil
}

func (w whyFile) runHosts(id string) map[string]map[string]any {
	if r := w.run(id); r != nil {
		return hostsByName(r.Hosts)
	}
	return nil
}

// clientShift is the client clock shift the report states for run id
// (why.json's window client_offset_s; NaN when it states none), and
// whether the report read it from the load's start (client_offset_how
// "load start"): then the servers' transaction counters are the load's
// alone, from the client's start to its end.
func (w whyFile) clientShift(id string) (float64, bool) {
	r := w.run(id)
	if r == nil {
		return math.NaN(), false
	}
	fromStart := r.Window["client_offset_how"] == "load start"
	if s, ok := r.Window["client_offset_s"].(string); ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			return v, fromStart
		}
	}
	if v, ok := r.Window["client_offset_s"].(float64); ok {
		return v, fromStart
	}
	return math.NaN(), false
}

func (w whyFile) groupHosts(label string) map[string]map[string]any {
	for _, t := range w.Tables {
		for _, g := range t.Groups {
			if g.Label == label {
				return hostsByName(g.Hosts)
			}
		}
	}
	return nil
}

// jsonNum is a why.json number as text ("" for null or absent).
func jsonNum(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return ""
}
