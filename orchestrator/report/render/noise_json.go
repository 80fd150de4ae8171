package render

import (
	"encoding/json"
	"io"
	"math"

	"github.com/orch-bench/orch/orchestrator/report/judge"
)

// floorJSON is a NoiseFloor in JSON, null where not measured.
func floorJSON(f *judge.NoiseFloor) map[string]any {
	v := func(x float64) any {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	}
	out := map[string]any{"aa_run": f.Source, "workload": f.Workload, "tool": f.Tool, "metric": f.Metric,
		"labels": f.Labels, "ratio": v(f.Ratio), "ci95_low": nil, "ci95_high": nil, "ci_method": f.Method,
		"n_a": f.NA, "n_b": f.NB, "p_value": nil, "line": f.Line(), "date": nil}
	if f.CI != nil {
		out["ci95_low"], out["ci95_high"] = v(math.Max(0, f.CI.Low)), v(f.CI.High)
	}
	if f.CIErr != nil {
		out["ci_error"] = f.CIErr.Error()
	}
	if f.Test != nil {
		out["p_value"] = v(f.Test.P)
	}
	if !f.Date.IsZero() {
		out["date"] = f.Date.UTC().Format("2006-01-02")
	}
	return out
}

// hasFloors reports whether the report measured or used a noise floor.
func hasFloors(rep *judge.Report) bool {
	if len(rep.Floors) > 0 {
		return true
	}
	for _, t := range rep.Tables {
		if t.Floor != nil {
			return true
		}
	}
	return false
}

// WriteNoiseFloorJSON writes noise-floor.json: "measured" lists an A/A
// report's floors, "used" each table's floor, whether it applies and which
// configurations' ratios lie inside it.
func WriteNoiseFloorJSON(rep *judge.Report, w io.Writer) error {
	type config struct {
		Label  string `json:"label"`
		Ratio  any    `json:"ratio_vs_baseline"`
		Inside bool   `json:"inside_noise_floor"`
	}
	type used struct {
		Workload      string         `json:"workload"`
		Baseline      string         `json:"baseline"`
		NoiseFloor    map[string]any `json:"noise_floor"`
		NotApplicable string         `json:"not_applicable,omitempty"`
		Configs       []config       `json:"configurations"`
	}
	out := struct {
		Schema   int              `json:"schema_version"`
		Measured []map[string]any `json:"measured"`
		Used     []used           `json:"used"`
	}{Schema: NoiseFloorSchemaVersion, Measured: []map[string]any{}, Used: []used{}}
	for _, f := range rep.Floors {
		out.Measured = append(out.Measured, floorJSON(f))
	}
	for _, t := range rep.Tables {
		if t.Floor == nil {
			continue
		}
		u := used{Workload: t.Workload, Baseline: t.Baseline.Label, NoiseFloor: floorJSON(t.Floor.Floor), NotApplicable: t.Floor.NotApplicable, Configs: []config{}}
		for _, g := range t.Groups {
			if g == t.Baseline {
				continue
			}
			c := config{Label: g.Label, Inside: g.InsideFloor}
			if !math.IsNaN(g.Ratio) && !math.IsInf(g.Ratio, 0) {
				c.Ratio = g.Ratio
			}
			u.Configs = append(u.Configs, c)
		}
		out.Used = append(out.Used, u)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
