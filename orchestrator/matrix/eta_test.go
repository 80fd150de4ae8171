package matrix

import (
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// seqCells makes cells on the given engines; durations[i] > 0 marks cell
// i ok after that many seconds, ending where the next one starts.
func seqCells(prefix string, engines []string, secs []int, t0 time.Time) []Cell {
	var out []Cell
	at := t0
	for i, e := range engines {
		c := Cell{ID: prefix + string(rune('1'+i)), Label: e, Engine: e, Rep: 1, State: Pending, Dir: "cells/x" + prefix + string(rune('1'+i))}
		if i < len(secs) && secs[i] > 0 {
			c.State, c.Started = OK, at
			at = at.Add(time.Duration(secs[i]) * time.Second)
			c.Ended = at
		}
		out = append(out, c)
	}
	return out
}

func TestEstimateLeftFromMeasuredCells(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	engines := []string{"innodb", "innodb", "rocksdb", "rocksdb", "innodb", "innodb"}
	static := Costs{PerCell: 40 * time.Second, Switch: 5 * time.Second}

	// Nothing run: the static estimate. 6 cells x 40 s + 2 switches x 5 s
	// (the first cell's bring-up is not counted, as in Estimate).
	m := &Matrix{Matrix: schema.Matrix{Cells: seqCells("c", engines, nil, t0)}}
	e := EstimateLeft(m, static, t0)
	if e.Left != 250*time.Second || e.SwitchesLeft != 2 || e.Measured != 0 || e.Done != 0 || e.Total != 6 {
		t.Errorf("static: %+v", e)
	}
	if got, want := e.String(), "matrix: 0/6 done, ETA 4m10s (estimated 40s/cell, nothing measured yet; 2 engine switches left)"; got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}

	// Cells 1-3 ran 50 s (first: bring-up, not used once others are
	// measured), 30 s (plain), 45 s (switch to rocksdb): a plain cell is
	// 30 s, a switch 45-30 = 15 s. Left: cell 4
	// plain 30 + cell 5 switch 45 + cell 6 plain 30 = 105 s, one switch.
	m = &Matrix{Matrix: schema.Matrix{Cells: seqCells("c", engines, []int{50, 30, 45}, t0)}}
	now := t0.Add(125 * time.Second)
	e = EstimateLeft(m, static, now)
	if e.Left != 105*time.Second || e.PerCell != 30*time.Second || e.Switch != 15*time.Second || !e.SwitchMeasured || e.SwitchesLeft != 1 || e.Done != 3 {
		t.Errorf("measured: %+v", e)
	}
	if got, want := e.String(), "matrix: 3/6 done, ETA 1m45s (measured 30s/cell over 1 cell(s), a switch +15s; 1 engine switch left)"; got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}

	// Cell 4 running for 10 s: 20 s of it left.
	m.Cells[3].State, m.Cells[3].Started = Running, now
	e = EstimateLeft(m, static, now.Add(10*time.Second))
	if e.Left != 95*time.Second {
		t.Errorf("running: left %v, want 95s", e.Left)
	}

	// Cell 4 running past its 30 s (the review saw "ETA 0s" while a cell
	// still ran): the line says the end is unknown, never 0s.
	m.Cells = m.Cells[:4]
	e = EstimateLeft(m, static, now.Add(50*time.Second))
	if e.Overdue != 20*time.Second || strings.Contains(e.String(), "ETA 0s") || !strings.Contains(e.String(), "ETA unknown: a running cell is 20s past its estimate") {
		t.Errorf("overdue: %+v %q", e, e.String())
	}
	m = &Matrix{Matrix: schema.Matrix{Cells: seqCells("c", engines, []int{50, 30, 45}, t0)}}
	m.Cells[3].State, m.Cells[3].Started = Running, now
	if s := EstimateLeft(m, static, now.Add(40*time.Second)).String(); !strings.Contains(s, "ETA over 1m15s (a running cell is 10s past its estimate)") {
		t.Errorf("overdue with cells after it: %q", s)
	}

	// Failed cells do not count: a 2 s failure is no cell time.
	m = &Matrix{Matrix: schema.Matrix{Cells: seqCells("c", engines, []int{50, 30, 45}, t0)}}
	m.Cells[1].State = Failed
	e = EstimateLeft(m, static, now)
	// Only a switch cell measured (45 s; the first is not used): a cell
	// is 45 s, switch included. Left: 3 cells x 45 s.
	if e.PerCell != 45*time.Second || e.SwitchMeasured || e.Left != 135*time.Second || e.Measured != 1 {
		t.Errorf("failed cell: %+v", e)
	}
}

func TestEstimateLeftBlocked(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := seqCells("a", []string{"innodb", "innodb", "innodb"}, []int{40, 30}, t0)
	b := seqCells("b", []string{"innodb", "innodb", "innodb"}, nil, t0)
	now := t0.Add(70 * time.Second)
	b[0].State, b[0].Started = Running, now.Add(-10*time.Second)
	m := &Matrix{Matrix: schema.Matrix{Cells: append(append([]Cell{}, a...), b...)}, Design: &Design{schema.Design{Blocks: []Block{
		{Cluster: "a", Cells: []string{"a1", "a2", "a3"}},
		{Cluster: "b", Cells: []string{"b1", "b2", "b3"}},
	}}}}
	// Cluster a: plain 30 s (the first cell's 40 s is bring-up), one cell
	// left: 30 s. Cluster b has measured
	// nothing and borrows a's 30 s: its running cell has 20 s left, then
	// 2 x 30 s: 80 s, the wall time.
	e := EstimateLeft(m, Costs{PerCell: time.Minute}, now)
	if e.Left != 80*time.Second || e.Done != 2 || e.Total != 6 || e.SwitchesLeft != 0 {
		t.Errorf("blocked: %+v", e)
	}
}
