package replication

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"
)

// Step names.
const (
	StepAccount         = "replication account"
	StepMasterSemiSync  = "master semi-sync"
	StepReplica         = "replica"
	StepReplicaSemiSync = "replica semi-sync"
	StepStopReplica     = "stop replica"
	StepDisableSemiSync = "disable semi-sync"
	StepDropAccount     = "drop replication account"
)

// Result is what Setup or Teardown did, step by step, hosts in cluster
// order (master first).
type Result struct {
	Steps    []step.Record `json:"steps"`
	Duration time.Duration `json:"duration_ns"`
	// Undone: Setup failed and took back what it had changed.
	Undone bool `json:"undone,omitempty"`
}

// Changed reports whether any server's state was (or may have been) changed.
func (r *Result) Changed() bool {
	for _, s := range r.Steps {
		if s.Action == step.Applied || s.Action == step.Failed {
			return true
		}
	}
	return false
}

// Executed lists every statement that ran, "host: statement".
func (r *Result) Executed() []string {
	var out []string
	for _, s := range r.Steps {
		for _, st := range s.Statements {
			out = append(out, s.Host+": "+st)
		}
	}
	return out
}

// WriteTo prints one line per step: host, step, action, time, reason.
func (r *Result) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	for _, s := range r.Steps {
		line := fmt.Sprintf("%-22s %-26s %-8s %6.2fs", s.Host, s.Name, s.Action, s.Took.Seconds())
		if s.Reason != "" {
			line += "  " + s.Reason
		}
		if s.Error != "" {
			line += "  error: " + s.Error
		}
		b.WriteString(line + "\n")
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
