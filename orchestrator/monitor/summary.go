package monitor

import (
	"github.com/orch-bench/orch/orchestrator/schema"
)

// What the monitors saw is run-directory data (results.json monitor),
// declared in orchestrator/schema.
type (
	Summary        = schema.Summary
	SemiSyncHealth = schema.SemiSyncHealth
	SlaveLag       = schema.SlaveLag
	Stall          = schema.Stall
	HostSummary    = schema.HostSummary
)
