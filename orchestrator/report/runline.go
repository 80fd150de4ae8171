package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// RunSummary is what `orch run` prints of the run in dir once it ended:
// the run's figures as its report computes them, over its one window, so
// the console and report.md never show two rates for one run. The tool's
// own whole-run summary (warm-up included) is left to results.json and
// results.csv's whole_run_* columns.
//
//	pure-random-writes (sysbench): 4640.65 writes/s steady in the window 1-10 s (detected)
//	  latency in the window: avg 1.72 ms, p95 2.30 ms (the mean of the client's per-second p95)
//	  replicas applied 4.6k tx/s (master 4.7k tx/s; lag at end 0 tx, catch-up 27 ms)
func RunSummary(dir string) (string, error) {
	in, err := load.Load([]string{dir})
	if err != nil {
		return "", err
	}
	rep, err := judge.Build(in, analyse.Options{})
	if err != nil {
		return "", err
	}
	if len(rep.Tables) != 1 || len(rep.Tables[0].Runs) != 1 {
		return "", fmt.Errorf("%s: not one run", dir)
	}
	t := rep.Tables[0]
	r := t.Runs[0]
	var b strings.Builder
	steady, how := t.SteadyOf(r)
	switch {
	case r.Bench == nil || math.IsNaN(steady):
		fmt.Fprintf(&b, "%s (%s): no figure (%s)\n", t.Workload, t.Tool, orText(r.State, "no benchmark output"))
		return b.String(), nil
	case how == "intervals":
		fmt.Fprintf(&b, "%s (%s): %s %s steady in the window %s\n", t.Workload, t.Tool, analyse.Num(steady, 2), t.MetricWords(), analyse.WindowText(r.Win))
	default:
		fmt.Fprintf(&b, "%s (%s): %s %s (the tool's figure: no per-second intervals)\n", t.Workload, t.Tool, analyse.Num(steady, 2), t.MetricWords())
	}
	if lat := latencyInWindow(r); lat != "" {
		b.WriteString("  latency in the window: " + lat + "\n")
	}
	if g := t.Groups; len(g) == 1 && analyse.Known(g[0].Replica) {
		b.WriteString("  " + judge.ReplicaText(g[0]) + "\n")
	}
	for _, f := range r.Flags {
		b.WriteString("  flagged: " + f + "\n")
	}
	return b.String(), nil
}

// latencyInWindow is "avg 1.72 ms, p95 2.30 ms (...)" from the window's
// intervals, "" when the client printed none.
func latencyInWindow(r *load.Run) string {
	var parts []string
	if v := r.Bench.WindowLatAvg(r.Win); !math.IsNaN(v) {
		parts = append(parts, "avg "+analyse.Num(v, 2)+" ms")
	}
	if v := r.Bench.WindowLat(r.Win); !math.IsNaN(v) {
		p := render.PctlName(r.Bench.Pctl)
		parts = append(parts, fmt.Sprintf("%s %s ms (the mean of the client's per-second %s)", p, analyse.Num(v, 2), p))
	}
	return strings.Join(parts, ", ")
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
