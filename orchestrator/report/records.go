package report

import (
	"math"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// RunRecord is one run as the report computes it, for the results history
// (orchestrator/history): its figures are results.csv's run columns, the
// very numbers `orch report` prints for it, so that a value in the history
// and in a report is one number.
type RunRecord struct {
	// Run is the run as loaded (its evidence, parameters, topology, knobs).
	Run *load.Run
	// Workload, Tool and Metric are its table's; LowerIsBetter when the
	// metric is a time (mysqlslap).
	Workload, Tool, Metric string
	LowerIsBetter          bool
	// Steady is the run's steady-state figure over its window (NaN when
	// it has none); InStatistics whether the report counts it.
	Steady       float64
	InStatistics bool
	// Figures maps each results.csv run column to its value.
	Figures map[string]string
}

// RunRecords loads the inputs (run or matrix directories) and computes
// each run's figures without comparing configurations or drawing plots.
func RunRecords(paths []string) ([]RunRecord, error) {
	in, err := load.Load(paths)
	if err != nil {
		return nil, err
	}
	warm, from := float64(judge.DefaultWarmupS), "default"
	if in.WarmupS != nil {
		warm, from = *in.WarmupS, load.FileMatrix
	}
	var out []RunRecord
	for _, t := range judge.Tables(in.Runs) {
		t.SetWindows(in.WarmupS != nil, warm, from)
		t.Compare(in.Baseline, in.NoEffect)
		for _, r := range t.Runs {
			b := r.Bench
			if b == nil {
				b = render.NanBench
			}
			row := render.RunRow{ConfRow: render.ConfRow{Rep: nil, T: t, G: t.Group(r.Label)}, R: r, B: b}
			cols := render.Values(row, render.RunColumns)
			figs := make(map[string]string, len(cols))
			for i, c := range render.RunColumns {
				if cols[i] != "" {
					figs[c.Name] = cols[i]
				}
			}
			v, _ := t.SteadyOf(r)
			if !r.Usable() {
				v = math.NaN()
			}
			out = append(out, RunRecord{Run: r, Workload: t.Workload, Tool: t.Tool, Metric: t.Metric,
				LowerIsBetter: t.LowerIsBetter, Steady: v, InStatistics: r.Usable(), Figures: figs})
		}
	}
	return out, nil
}
