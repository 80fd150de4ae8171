package matrix

import (
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// cell returns the cell with id, or nil.
func (m *Matrix) cell(id string) *Cell {
	for i := range m.Cells {
		if m.Cells[i].ID == id {
			return &m.Cells[i]
		}
	}
	return nil
}

// Cell returns the cell with id.
func (m *Matrix) Cell(id string) (*Cell, bool) {
	c := m.cell(id)
	return c, c != nil
}

// Next returns the first cell in execution order still to run: pending,
// interrupted, or running (found running when orch starts, it means the
// control machine died mid-cell, so the cell runs again).
func (m *Matrix) Next() (*Cell, bool) {
	for i := range m.Cells {
		if !m.Cells[i].State.Finished() {
			return &m.Cells[i], true
		}
	}
	return nil, false
}

// Done reports whether every cell has finished, ok or failed.
func (m *Matrix) Done() bool {
	_, more := m.Next()
	return !more
}

// Count returns how many cells are in state s.
func (m *Matrix) Count(s State) int {
	n := 0
	for _, c := range m.Cells {
		if c.State == s {
			n++
		}
	}
	return n
}

// Remaining returns the cells still to run, in order.
func (m *Matrix) Remaining() []Cell {
	var out []Cell
	for _, c := range m.Cells {
		if !c.State.Finished() {
			out = append(out, c)
		}
	}
	return out
}

// Start marks cell id running from now. A finished cell does not start
// again: that would overwrite its result.
func (m *Matrix) Start(id string, now time.Time) error {
	c := m.cell(id)
	if c == nil {
		return fmt.Errorf("matrix: start: no cell %s", id)
	}
	if c.State.Finished() {
		return fmt.Errorf("matrix: start %s: already finished (%s)", id, c.State)
	}
	c.State = Running
	c.Started = stamp(now)
	c.Ended = time.Time{}
	c.Error = ""
	return nil
}

// Finish records how running cell id ended: ok, failed (err says why,
// the evidence is in the cell's directory) or interrupted (resumed later).
// The error text goes through rundir.RedactLine: matrix.json is shared like
// a run directory and must hold no password.
func (m *Matrix) Finish(id string, state State, err error, now time.Time) error {
	c := m.cell(id)
	if c == nil {
		return fmt.Errorf("matrix: finish: no cell %s", id)
	}
	if c.State != Running {
		return fmt.Errorf("matrix: finish %s: not running (%s)", id, c.State)
	}
	switch state {
	case OK:
		if err != nil {
			return fmt.Errorf("matrix: finish %s: ok with an error (%v)", id, err)
		}
	case Failed:
		if err == nil {
			return errors.New("matrix: finish " + id + ": failed without a reason")
		}
	case Interrupted:
	default:
		return fmt.Errorf("matrix: finish %s: state %q: want ok, failed or interrupted", id, state)
	}
	c.State = state
	c.Ended = stamp(now)
	c.Error = ""
	if err != nil {
		c.Error = rundir.RedactLine(err.Error())
	}
	return nil
}

// stamp is a time as matrix.json keeps it: UTC, whole seconds (plain
// RFC 3339, which any reader parses).
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }
