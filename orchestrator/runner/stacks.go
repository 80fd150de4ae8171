package runner

import (
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// stackAt is when, after the load starts, the servers' stacks are
// sampled: the run's midpoint, as Percona-Lab's harness does, which lies
// in the steady state whenever the warm-up is under half the run. A
// workload without a duration (mysqlslap's query count) is sampled 5 s in.
func stackAt(w *bench.Workload) time.Duration {
	if w.Options.TimeS != nil && *w.Options.TimeS > 0 {
		return time.Duration(*w.Options.TimeS) * time.Second / 2
	}
	return 5 * time.Second
}

// loadFor is how long the load runs (0: unknown), so that no stack
// snapshot starts that would outlast it.
func loadFor(w *bench.Workload) time.Duration {
	if w.Options.TimeS != nil && *w.Options.TimeS > 0 {
		return time.Duration(*w.Options.TimeS) * time.Second
	}
	return 0
}
