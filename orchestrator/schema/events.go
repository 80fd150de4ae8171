package schema

import "github.com/orch-bench/orch/orchestrator/monitor"

// Event is one line of a run directory's events.jsonl: the monitors
// write it, the runner writes the command's steps as it, the report reads
// it.
type Event = monitor.Event

// The kinds of the command's steps in events.jsonl (package step's
// stream): a step began or ended on a host (host "" for the command's own
// phases: up, connect, snapshot, prepare, run, checks, profile), with
// took_s on its end, or a message about a host.
const (
	KindStepBegin = "step_begin"
	KindStepEnd   = "step_end"
	KindNote      = "note"
)
