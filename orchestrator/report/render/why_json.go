package render

import (
	"encoding/json"
	"io"
	"math"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// Schema versions of the JSON files the report writes (schema_version):
// raised when a key is renamed or changes meaning. why.json 2: the host
// figures' keys carry their units (host_tx_per_s, *_frac).
const (
	WhySchemaVersion        = schema.WhyVersion
	NoiseFloorSchemaVersion = 1
)

// whyCostJSON is a Cost in JSON: the hosts.csv names, null when not
// measured.
type whyCostJSON = schema.WhyHost

// jsonNum is a figure for JSON: null when not measured or unbounded.
func jsonNum(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

func costJSON(c *analyse.Cost) whyCostJSON {
	if c == nil {
		return nil
	}
	v := jsonNum
	out := whyCostJSON{"host": c.Host, "host_role": c.Role, "host_tx": v(c.Tx), "host_tx_per_s": v(c.TPS),
		"server_cpu_frac": v(c.ServerCPU), "host_cpu_busy_frac": v(c.HostCPU), "run_queue": v(c.RunQueue), "run_queue_p90": v(c.RunQueueP90),
		"server_threads_runnable": v(c.ServerRunnable), "disk_busy_frac": v(c.DiskBusy), "threads_running": v(c.ThreadsRunning),
		"ncpu": v(c.NCPU), "sampler_cpu_frac": v(c.SamplerCPU)}
	if c.Kernel != "" {
		out["kernel_id"] = c.Kernel // the shared-machine key: kernel_id, or boot_id before it
	}
	for _, m := range analyse.Metrics {
		out[m.Col] = v(m.Get(c))
	}
	if len(c.FsyncParts) > 0 {
		out["fsync_per_tx_by_counter"] = c.FsyncParts
	}
	if len(c.Engine) > 0 {
		out["engine_counters_per_tx"] = c.Engine
	}
	if c.Role == "loadbox" {
		bound, why := judge.ClientBound(c)
		out["client_cpu_frac"], out["box_cpu_frac"], out["box_run_queue"] = v(c.ClientCPU), v(c.BoxCPU), v(c.BoxRunQueue)
		out["box_run_queue_p90"] = v(c.BoxRunQueueP90)
		out["client_bound"], out["client_bound_why"] = bound, why
	}
	return out
}

type whyStacksJSON = schema.WhyStacks

func stacksJSON(p *stacks.Profile) whyStacksJSON {
	out := whyStacksJSON{Host: p.Host, Mode: string(p.Mode), Snapshots: p.Snapshots, Samples: p.Samples, MaxPauseMs: p.MaxPauseMs}
	for _, s := range judge.Shown(p) {
		var names []string
		for _, f := range s.Frames {
			names = append(names, f.Func)
		}
		out.Top = append(out.Top, schema.WhyStack{Share: float64(s.Count) / float64(p.Samples), Frames: names})
	}
	return out
}

// WriteWhyJSON writes why.json: per table, each configuration's means,
// sentence, USE figures and top stacks, and each run's own host figures.
func WriteWhyJSON(rep *judge.Report, w io.Writer) error {
	out := schema.Why{SchemaVersion: WhySchemaVersion, WarmupS: rep.WarmupS, Tables: []schema.WhyTable{}}
	for _, t := range rep.Tables {
		if t.Why == nil {
			continue
		}
		tb := schema.WhyTable{Workload: t.Workload, Baseline: t.Why.Base.Label}
		for _, f := range rep.Floors {
			if f.Workload == t.Workload {
				tb.NoiseFloor = floorJSON(f)
			}
		}
		if t.Floor != nil && t.Floor.NotApplicable == "" {
			tb.NoiseFloor = floorJSON(t.Floor.Floor)
		}
		for _, g := range t.Why.Groups {
			gj := schema.WhyGroup{Label: g.Label, Sentence: g.Sentence, ClientBound: g.ClientBound, LoadBox: costJSON(g.LoadBox), Stacks: map[string]whyStacksJSON{}}
			if !math.IsNaN(g.Ratio) {
				gj.Ratio = g.Ratio
			}
			for _, c := range g.Hosts {
				gj.Hosts = append(gj.Hosts, costJSON(c))
			}
			for _, c := range g.LoadBoxes {
				gj.LoadBoxes = append(gj.LoadBoxes, costJSON(c))
			}
			for role, p := range g.Profiles {
				gj.Stacks[role] = stacksJSON(p)
			}
			tb.Groups = append(tb.Groups, gj)
		}
		for _, r := range t.Runs {
			rw := t.Why.Runs[r]
			if rw == nil {
				continue
			}
			rj := schema.WhyRun{Run: r.ID, Label: r.Label, Flags: r.Flags, Window: map[string]any{"from_s": jsonNum(r.Win.FromS), "to_s": jsonNum(r.Win.ToS),
				"how": r.Win.How, "excluded_s": jsonNum(analyse.ExcludedS(r.Win)), "client_offset_s": jsonNum(r.Win.ClientOffsetS),
				"client_offset_how": map[bool]string{true: "load start", false: "fit"}[r.Win.LoadQuiet]}}
			for _, c := range rw.Hosts {
				rj.Hosts = append(rj.Hosts, costJSON(c))
			}
			for _, lb := range rw.LoadBoxes {
				rj.Hosts = append(rj.Hosts, costJSON(lb))
			}
			tb.Runs = append(tb.Runs, rj)
		}
		out.Tables = append(out.Tables, tb)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
