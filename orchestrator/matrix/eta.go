package matrix

import (
	"fmt"
	"time"
)

// ETA is how long the rest of a matrix will take, judged from the cells
// already run rather than from the plan's guess: a cell's real time holds
// the load, the checks, the catch-up and the restarts, which the static
// estimate (Costs) can only assume.
//
// Cells are of three kinds: a switch cell starts on another engine than
// the cell before it in its cluster's order and pays for the profile
// change and restarts; a plain cell does not; the first cell of a cluster
// brings the cluster to its engine, which may be either. The time per cell
// is the mean of the plain cells that ended ok (of the switch cells, else
// the first, while no plain one has), the cost of a switch the mean of the
// switch cells less that, each falling back to Costs until measured. Failed cells are left
// out: they end early and would make the rest look short. Over several
// clusters, each cluster is judged on its own cells (its hardware may
// differ), on all clusters' cells until it has some, and the matrix ends
// when the slowest cluster does.
type ETA struct {
	Done, Total int
	// Left is the estimated wall time to the end.
	Left time.Duration
	// PerCell and Switch are the costs used (the first cluster's with
	// several); Measured counts the cells PerCell was measured on (0: the
	// static estimate), SwitchMeasured whether Switch was.
	PerCell, Switch time.Duration
	Measured        int
	SwitchMeasured  bool
	// SwitchesLeft counts the engine switches still to come.
	SwitchesLeft int
	// Overdue is how long the longest-running cell has run past its
	// estimate (0: none has): its end is unknown, so Left is a lower
	// bound and the line says so rather than read 0 while it runs.
	Overdue time.Duration
}

// String is the console line: "matrix: 3/8 done, ETA 2m10s (measured
// 42s/cell, 1 engine switch left)".
func (e ETA) String() string {
	how := "estimated " + FormatDuration(e.PerCell) + "/cell, nothing measured yet"
	if e.Measured > 0 {
		how = fmt.Sprintf("measured %s/cell over %d cell(s)", FormatDuration(e.PerCell), e.Measured)
	}
	if e.SwitchMeasured {
		how += fmt.Sprintf(", a switch +%s", FormatDuration(e.Switch))
	}
	unit := "switches"
	if e.SwitchesLeft == 1 {
		unit = "switch"
	}
	left := "unknown"
	switch {
	case e.Overdue > 0 && e.Left < time.Second:
		left = "unknown: a running cell is " + FormatDuration(e.Overdue) + " past its estimate"
	case e.Overdue > 0:
		left = "over " + FormatDuration(e.Left) + " (a running cell is " + FormatDuration(e.Overdue) + " past its estimate)"
	case e.PerCell > 0 || e.Measured > 0:
		left = FormatDuration(e.Left)
	}
	return fmt.Sprintf("matrix: %d/%d done, ETA %s (%s; %d engine %s left)", e.Done, e.Total, left, how, e.SwitchesLeft, unit)
}

// EstimateLeft is the matrix's ETA at now.
func EstimateLeft(m *Matrix, costs Costs, now time.Time) ETA {
	var seqs [][]Cell
	if m.Design == nil {
		seqs = [][]Cell{m.Cells}
	} else {
		for _, b := range m.Design.Blocks {
			if b.Failed != "" {
				continue
			}
			var seq []Cell
			for _, id := range b.Cells {
				if c := m.cell(id); c != nil {
					seq = append(seq, *c)
				}
			}
			seqs = append(seqs, seq)
		}
	}
	var all cellTimes
	for _, s := range seqs {
		all.add(measure(s))
	}
	e := ETA{Total: len(m.Cells), Done: len(m.Cells) - len(m.Remaining())}
	for i, s := range seqs {
		own := measure(s)
		if own.n() == 0 {
			own = all
		}
		per, sw, measured, swOK := own.costs(costs)
		left, switches, overdue := sequenceLeft(s, per, sw, now)
		e.Left = max(e.Left, left)
		e.Overdue = max(e.Overdue, overdue)
		e.SwitchesLeft += switches
		if i == 0 {
			e.PerCell, e.Switch, e.Measured, e.SwitchMeasured = per, sw, measured, swOK
		}
	}
	return e
}

// cellTimes are the measured durations of a sequence's ok cells by kind.
type cellTimes struct{ first, plain, switched []time.Duration }

func (t *cellTimes) n() int { return len(t.first) + len(t.plain) + len(t.switched) }

func (t *cellTimes) add(o cellTimes) {
	t.first = append(t.first, o.first...)
	t.plain = append(t.plain, o.plain...)
	t.switched = append(t.switched, o.switched...)
}

// costs are the per-cell and per-switch times to assume, how many cells
// the first was measured on (0: static) and whether the second was.
func (t cellTimes) costs(static Costs) (perCell, switchCost time.Duration, measured int, switchMeasured bool) {
	perCell, switchCost = static.PerCell, static.Switch
	switch {
	case len(t.plain) > 0:
		perCell, measured = mean(t.plain), len(t.plain)
		if len(t.switched) > 0 {
			switchCost, switchMeasured = max(0, mean(t.switched)-perCell), true
		}
	case len(t.switched) > 0:
		// Only switch cells so far: they are the best guess of a cell,
		// switch included, so nothing comes on top.
		perCell, measured, switchCost = mean(t.switched), len(t.switched), 0
	case len(t.first) > 0:
		perCell, measured = mean(t.first), len(t.first)
	}
	return perCell, switchCost, measured, switchMeasured
}

// measure collects the durations of seq's ok cells, by kind.
func measure(seq []Cell) cellTimes {
	var t cellTimes
	for i, c := range seq {
		if c.State != OK || c.Started.IsZero() || c.Ended.Before(c.Started) {
			continue
		}
		d := c.Ended.Sub(c.Started)
		switch {
		case i == 0:
			t.first = append(t.first, d)
		case isSwitch(seq, i):
			t.switched = append(t.switched, d)
		default:
			t.plain = append(t.plain, d)
		}
	}
	return t
}

func isSwitch(seq []Cell, i int) bool { return i == 0 || seq[i].Engine != seq[i-1].Engine }

// sequenceLeft is the time the unfinished cells of one cluster's sequence
// take, a running cell counted for what it has still to do, the engine
// switches among them, and how far a running cell is past its estimate.
func sequenceLeft(seq []Cell, perCell, switchCost time.Duration, now time.Time) (left time.Duration, switches int, overdue time.Duration) {
	for i, c := range seq {
		if c.State.Finished() {
			continue
		}
		need := perCell
		if isSwitch(seq, i) && i > 0 {
			need += switchCost
			switches++
		}
		if c.State == Running && !c.Started.IsZero() {
			ran := now.Sub(c.Started)
			if ran >= need && perCell > 0 {
				overdue = max(overdue, ran-need)
			}
			need = max(0, need-ran)
		}
		left += need
	}
	return left, switches, overdue
}

func mean(ds []time.Duration) time.Duration {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return sum / time.Duration(len(ds))
}
