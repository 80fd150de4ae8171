package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// matrixDoc is the part of matrix.json the report reads (the planner owns
// the full type; reading only these fields keeps older files readable).
type matrixDoc struct {
	Workload string            `json:"workload"`
	Baseline string            `json:"baseline"`
	WarmupS  *float64          `json:"warmup_s"`
	NoEffect map[string]string `json:"no_effect"`
	// AA marks an A/A matrix; NoiseFloor names the A/A matrix whose floor
	// this one's report states (noise.go).
	AA         bool   `json:"aa"`
	AllowMixed bool   `json:"allow_mixed"` // orch matrix --allow-mixed
	NoiseFloor string `json:"noise_floor"`
	Cells      []struct {
		ID      string    `json:"id"`
		Label   string    `json:"label"`
		Engine  string    `json:"engine"`
		Knobs   []Knob    `json:"knobs"`
		Rep     int       `json:"rep"`
		State   string    `json:"state"`
		Error   string    `json:"error"`
		Dir     string    `json:"dir"`
		Started time.Time `json:"started"`
	} `json:"cells"`
	Design *designDoc `json:"design"`
	// Until is the matrix's stopping rule (judge.go); nil for a fixed
	// --repeat.
	Until *untilDoc `json:"until"`
}

// loadMatrix reads a matrix directory: every cell, executed or not, in
// execution order. A cell without a run directory yet (pending, or failed
// before its run began) is listed with its state and no figures.
func (in *Input) loadMatrix(dir string) ([]*Run, error) {
	var m matrixDoc
	path := filepath.Join(dir, FileMatrix)
	if _, err := readJSON(path, &m); err != nil {
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
		in.NoiseFloor = m.NoiseFloor
		if !filepath.IsAbs(m.NoiseFloor) {
			in.NoiseFloor = filepath.Join(filepath.Dir(dir), m.NoiseFloor)
		}
	}
	if m.Until != nil {
		in.Until = m.Until
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
			if r, err = readRunDir(cellDir); err != nil {
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
			r.State = c.State
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
