package playbooks

import "embed"

// Workloads holds the built-in benchmark workloads, workloads/NAME.yaml,
// loaded by name through orchestrator/bench.LoadWorkload (schema: see
// bench.Workload; each file documents its own choices).
//
//go:embed workloads/*.yaml
var Workloads embed.FS

// WorkloadDir is the directory of the workloads inside Workloads.
const WorkloadDir = "workloads"
