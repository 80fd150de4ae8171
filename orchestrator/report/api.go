package report

import (
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// The names `orch report`'s command line uses, handed on from the rooms, so
// that cmd/orch reaches the report through this façade alone.
type InputError = load.InputError
type Options = analyse.Options

const DefaultWarmupS = judge.DefaultWarmupS
const HeadlineBoth = analyse.HeadlineBoth
