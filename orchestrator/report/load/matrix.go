package load

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/orch-bench/orch/orchestrator/runs"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// loadMatrix reads a matrix directory: every cell, executed or not, in
// execution order. A cell without a run directory yet (pending, or failed
// before its run began) is listed with its state and no figures.
func (in *Input) loadMatrix(dir string) ([]*Run, error) {
	path := filepath.Join(dir, FileMatrix)
	m, err := schema.ReadMatrix(path, false)
	if err != nil {
		return nil, err
	}
	if len(m.Cells) == 0 {
		return nil, fmt.Errorf("%s: no cells", path)
	}
	if m.Baseline != "" && in.Baseline == "" {
		in.Baseline = m.Baseline
	}
	if m.WarmupS != nil && in.WarmupS == nil {
		in.WarmupS = m.WarmupS
	}
	for k, v := range m.NoEffect {
		in.NoEffect[k] = v
	}
	in.AA = in.AA || m.AA
	in.AllowMixed = in.AllowMixed || m.AllowMixed
	if m.NoiseFloor != "" && in.NoiseFloor == "" {
		// A name without a directory is a sibling under the runs root.
		in.NoiseFloor = runs.Resolve(m.NoiseFloor, dir)
	}
	if m.Until != nil {
		in.Until = &UntilDoc{Until: *m.Until}
	}
	if m.Analysis != "" {
		if in.Analysis != "" && in.Analysis != m.Analysis {
			return nil, fmt.Errorf("%s: pre-registered --analysis %s, another input %s: one report, one analysis", path, m.Analysis, in.Analysis)
		}
		in.Analysis = m.Analysis
	}
	var runs []*Run
	for i, c := range m.Cells {
		if c.ID == "" || c.Label == "" {
			return nil, fmt.Errorf("%s: cell %d has no id or label", path, i+1)
		}
		if c.State == stateSkipped {
			in.Skipped++ // never ran: the stopping rule did not need it
			continue
		}
		var r *Run
		cellDir := c.Dir
		if cellDir == "" {
			cellDir = filepath.Join("cells", c.ID)
		}
		if filepath.IsAbs(cellDir) || strings.HasPrefix(filepath.Clean(cellDir), "..") {
			return nil, fmt.Errorf("%s: cell %s: dir %q is outside the matrix directory", path, c.ID, c.Dir)
		}
		cellDir = filepath.Join(dir, cellDir)
		if exists(cellDir) {
			var err error
			if r, err = ReadRunDir(cellDir); err != nil {
				return nil, fmt.Errorf("cell %s: %w", c.ID, err)
			}
		} else {
			r = &Run{Dir: "", Source: cellDir, Health: emptyHealth()}
		}
		// The matrix knows the configuration and the cell's fate better
		// than the run directory: a run can end ok and its cell still fail
		// (the matrix's own checks), or be cut off before it writes.
		r.ID, r.Label, r.Rep, r.Knobs, r.inMatrix = c.ID, c.Label, c.Rep, c.Knobs, true
		if c.Engine != "" {
			r.Engine = c.Engine
		}
		if c.State != "" {
			r.State = string(c.State)
		}
		if c.Error != "" {
			r.Error = c.Error
		}
		if r.Workload == "" {
			r.Workload = m.Workload
		}
		if !c.Started.IsZero() && (in.Started.IsZero() || c.Started.Before(in.Started)) {
			in.Started = c.Started
		}
		runs = append(runs, r)
	}
	if d := applyDesign(m.Design, runs); d != nil {
		in.Design = d
	}
	return runs, nil
}

// UntilDoc is matrix.json's stopping rule, as the report reads it.
type UntilDoc struct {
	schema.Until
	// round is the round being judged (JudgeMatrix), 0 for the report of
	// the rounds judged so far.
	Round int
}
