package matrix

import (
	"fmt"
	"slices"
)

// Fail takes a cluster out of the schedule (its hosts are unreachable, say)
// and moves its unfinished work to the other clusters without breaking the
// design: only whole rounds move. A round the cluster had not finished is
// run again in full, in a fresh random order, as a new round of the
// surviving cluster with the least work left (the first such in cluster
// order on a tie), so every configuration still has the same number of
// repetitions within every cluster. The failed cluster's finished cells
// of that round are kept on disk but Excluded from the analysis; its
// complete rounds stay part of the design. Its unfinished cells leave the
// matrix (MovedRound.Dropped lists them), including a cell found running
// when the cluster went away: the caller does not Finish it afterwards.
//
// With --fail-fast the caller does not call Fail: it stops the matrix,
// and a resume continues the same design.
func (d *Design) Fail(m *Matrix, cluster, reason string) error {
	b := d.block(cluster)
	switch {
	case b == nil:
		return fmt.Errorf("matrix: fail: no cluster %s", cluster)
	case b.Failed != "":
		return fmt.Errorf("matrix: fail: cluster %s was already taken out (%s)", cluster, b.Failed)
	case reason == "":
		return fmt.Errorf("matrix: fail %s: no reason", cluster)
	}
	alive := 0
	for _, o := range d.Blocks {
		if o.Failed == "" && o.Cluster != cluster {
			alive++
		}
	}
	if alive == 0 && len(d.Remaining(m, cluster)) > 0 {
		return fmt.Errorf("matrix: cluster %s failed (%s) and no other cluster is left to run its %d remaining cell(s)",
			cluster, reason, len(d.Remaining(m, cluster)))
	}

	var rounds []int // in block order
	byRound := map[int][]string{}
	for _, id := range b.Cells {
		c := m.cell(id)
		if c == nil {
			return fmt.Errorf("matrix: fail %s: cell %s of the design is not in the matrix", cluster, id)
		}
		if _, ok := byRound[c.Rep]; !ok {
			rounds = append(rounds, c.Rep)
		}
		byRound[c.Rep] = append(byRound[c.Rep], id)
	}
	configs := m.configs()
	b.Failed = reason
	for _, r := range rounds {
		var done, todo []string
		for _, id := range byRound[r] {
			if m.cell(id).State.Finished() {
				done = append(done, id)
			} else {
				todo = append(todo, id)
			}
		}
		if len(todo) == 0 {
			continue
		}
		b.Excluded = append(b.Excluded, done...)
		d.drop(m, b, todo)
		to := d.leastLoaded(m)
		toRound := 0
		for _, id := range to.Cells {
			toRound = max(toRound, m.cell(id).Rep)
		}
		toRound++
		m.Cells = append(m.Cells, d.round(to, configs, toRound)...)
		d.Moved = append(d.Moved, MovedRound{From: cluster, Round: r, To: to.Cluster, ToRound: toRound, Dropped: todo, Reason: reason})
	}
	return m.validate()
}

// drop removes cells from the matrix and from block b.
func (d *Design) drop(m *Matrix, b *Block, ids []string) {
	gone := func(id string) bool { return slices.Contains(ids, id) }
	b.Cells = slices.DeleteFunc(b.Cells, gone)
	m.Cells = slices.DeleteFunc(m.Cells, func(c Cell) bool { return gone(c.ID) })
}

// leastLoaded is the live block with the fewest cells left to run.
func (d *Design) leastLoaded(m *Matrix) *Block {
	var best *Block
	left := 0
	for i := range d.Blocks {
		b := &d.Blocks[i]
		if b.Failed != "" {
			continue
		}
		if n := len(d.Remaining(m, b.Cluster)); best == nil || n < left {
			best, left = b, n
		}
	}
	return best
}

// Analysed reports whether a finished cell counts in the analysis: it ran
// in a round its cluster completed (see Fail).
func (d *Design) Analysed(id string) bool {
	for _, b := range d.Blocks {
		if slices.Contains(b.Excluded, id) {
			return false
		}
	}
	return true
}
