package matrix

import (
	"errors"
	"fmt"
	"github.com/orch-bench/orch/orchestrator/schema"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// A matrix over several clusters is a randomised complete block design:
// each cluster is a block and runs every configuration the same number of
// times, so every comparison can be made within a cluster and differences
// between clusters' hardware cancel out instead of being mistaken for a
// configuration's effect (spreading cells over clusters first-come would
// confound the two). Inside a block the cells run in rounds, each round
// holding every configuration once (as in a one-cluster plan), in an
// order drawn at random per cluster and round from the recorded seed:
// randomised multiple interleaved trials, which Abedi & Brecht found
// repeatable where fixed back-to-back orders are not. The clusters run in
// parallel; each takes the next cell of its own block when it is free.
//
// The Design is the assignment; the cells themselves are the Matrix's, so
// Start, Finish, Save and resume work unchanged. Cell ids start with the
// cluster's name.

// Design assigns a matrix's cells to clusters: matrix.json's design
// (schema.Design, the fields) with the scheduling below.
type Design struct {
	schema.Design
}

// Block is one cluster's share: every configuration, Rounds times;
// MovedRound a round of a failed cluster run on another. Both are
// matrix.json's own types (orchestrator/schema).
type (
	Block      = schema.Block
	MovedRound = schema.MovedRound
)

// NewBlocked plans workload over engines × axes on every cluster, each
// configuration repeat times per cluster, in orders drawn from seed. One
// cluster is a plain New plan with its order randomised the same way.
func NewBlocked(workload string, engines []string, axes []Axis, repeat int, clusters []string, seed int64, groupEngines bool) (*Matrix, *Design, error) {
	if err := checkClusters(clusters); err != nil {
		return nil, nil, err
	}
	m, err := New(workload, engines, axes, repeat)
	if err != nil {
		return nil, nil, err
	}
	d, err := m.block(clusters, seed, groupEngines)
	return m, d, err
}

func checkClusters(clusters []string) error {
	if len(clusters) == 0 {
		return errors.New("matrix: no cluster")
	}
	seen := map[string]bool{}
	for _, c := range clusters {
		switch {
		case c == "" || idSafe(c) != c:
			return fmt.Errorf("matrix: cluster name %q: letters, digits, '.', '_', '=' and '-' only", c)
		case seen[c]:
			return fmt.Errorf("matrix: cluster %s listed twice", c)
		}
		seen[c] = true
	}
	return nil
}

// block replaces m's cells with a design of its configurations (m.configs)
// over clusters.
func (m *Matrix) block(clusters []string, seed int64, groupEngines bool) (*Design, error) {
	if err := checkClusters(clusters); err != nil {
		return nil, err
	}
	if len(m.Cells)*len(clusters) > MaxCells {
		return nil, fmt.Errorf("matrix: the plan has more than %d cells over %d clusters; fewer values or repetitions, please", MaxCells, len(clusters))
	}
	configs := m.configs()
	d := &Design{schema.Design{Seed: seed, GroupEngines: groupEngines, IDWidth: max(2, len(strconv.Itoa(len(configs)*m.Repeat)))}}
	m.Cells = nil
	for _, cl := range clusters {
		d.Blocks = append(d.Blocks, Block{Cluster: cl, Cells: []string{}})
		b := &d.Blocks[len(d.Blocks)-1]
		for r := 1; r <= m.Repeat; r++ {
			m.Cells = append(m.Cells, d.round(b, configs, r)...)
		}
	}
	m.Design = d
	return d, m.validate()
}

// roundCells is one round: every configuration once, in plan order.
func roundCells(engines []string, axes []Axis) []Cell {
	var out []Cell
	for _, e := range engines {
		for _, kv := range knobCombos(axes) {
			out = append(out, Cell{Label: label(e, varying(kv, axes)), Engine: e, Knobs: kv, State: Pending})
		}
	}
	return out
}

// round draws round r of block b and appends its ids to the block.
func (d *Design) round(b *Block, configs []Cell, r int) []Cell {
	cells := d.order(b.Cluster, r, configs)
	for i := range cells {
		c := &cells[i]
		c.Rep = r
		c.ID = b.Cluster + "-" + cellID(len(b.Cells)+1, d.IDWidth, c)
		c.Dir = CellsDir + "/" + c.ID
		b.Cells = append(b.Cells, c.ID)
	}
	return cells
}

// order is the random order of one round on one cluster. Each (seed,
// cluster, round) has its own PCG stream, so an order does not depend on
// how many rounds were drawn before it (moving a round leaves the others
// as they were), and the shuffle is written out here rather than taken
// from math/rand, whose algorithms may change between Go releases: a
// recorded seed must give the same order with any orch build.
func (d *Design) order(cluster string, round int, configs []Cell) []Cell {
	h := fnv.New64a()
	h.Write([]byte(cluster))
	rng := rand.NewPCG(uint64(d.Seed), h.Sum64()^uint64(round))
	shuffle := func(n int, swap func(i, j int)) {
		for i := n - 1; i > 0; i-- {
			swap(i, int(rng.Uint64()%uint64(i+1)))
		}
	}
	if !d.GroupEngines {
		out := slices.Clone(configs)
		shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
		return out
	}
	var groups [][]Cell
	for _, c := range configs {
		if n := len(groups); n > 0 && groups[n-1][0].Engine == c.Engine {
			groups[n-1] = append(groups[n-1], c)
		} else {
			groups = append(groups, []Cell{c})
		}
	}
	shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	var out []Cell
	for _, g := range groups {
		shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		out = append(out, g...)
	}
	return out
}

// block returns the named cluster's block, or nil.
func (d *Design) block(cluster string) *Block {
	for i := range d.Blocks {
		if d.Blocks[i].Cluster == cluster {
			return &d.Blocks[i]
		}
	}
	return nil
}

// ClusterOf returns the cluster that runs cell id ("" if none).
func (d *Design) ClusterOf(id string) string {
	for _, b := range d.Blocks {
		if slices.Contains(b.Cells, id) {
			return b.Cluster
		}
	}
	return ""
}

// Next returns the cluster's next cell to run: the first of its block not
// finished (pending, interrupted, or running when found at resume). A
// failed cluster has none.
func (d *Design) Next(m *Matrix, cluster string) (*Cell, bool) {
	b := d.block(cluster)
	if b == nil || b.Failed != "" {
		return nil, false
	}
	for _, id := range b.Cells {
		if c := m.cell(id); c != nil && !c.State.Finished() {
			return c, true
		}
	}
	return nil, false
}

// Remaining returns the cluster's cells still to run, in order.
func (d *Design) Remaining(m *Matrix, cluster string) []Cell {
	var out []Cell
	if b := d.block(cluster); b != nil && b.Failed == "" {
		for _, id := range b.Cells {
			if c := m.cell(id); c != nil && !c.State.Finished() {
				out = append(out, *c)
			}
		}
	}
	return out
}

// Estimate is the wall time of what is left: the clusters run in
// parallel, so it is the longest cluster's share (Estimate of its
// remaining cells in order); perCluster holds each block's.
func (d *Design) Estimate(m *Matrix, costs Costs) (wall time.Duration, perCluster []time.Duration) {
	for _, b := range d.Blocks {
		t := Estimate(d.Remaining(m, b.Cluster), costs.PerCell, costs.Switch)
		perCluster = append(perCluster, t)
		wall = max(wall, t)
	}
	return wall, perCluster
}

// Check verifies a design read back with its matrix (a resume): every cell
// of the matrix is in exactly one block, every block's cell exists, and
// the clusters are the ones given (the inventory's), in any order. A
// design whose clusters changed cannot be resumed: its blocks would no
// longer be the hardware they name.
func (d *Design) Check(m *Matrix, clusters []string) error {
	owner := map[string]string{}
	for _, b := range d.Blocks {
		if !slices.Contains(clusters, b.Cluster) {
			return fmt.Errorf("matrix: the design has cluster %s, which the inventory does not (clusters: %v)", b.Cluster, clusters)
		}
		for _, id := range b.Cells {
			if prev, dup := owner[id]; dup {
				return fmt.Errorf("matrix: cell %s is in the blocks of %s and %s", id, prev, b.Cluster)
			}
			if m.cell(id) == nil {
				return fmt.Errorf("matrix: cell %s of cluster %s is not in the matrix", id, b.Cluster)
			}
			owner[id] = b.Cluster
		}
	}
	for _, c := range clusters {
		if d.block(c) == nil {
			return fmt.Errorf("matrix: cluster %s of the inventory is not in the design (clusters: %v)", c, d.clusterNames())
		}
	}
	for _, c := range m.Cells {
		if owner[c.ID] == "" {
			return fmt.Errorf("matrix: cell %s belongs to no cluster of the design", c.ID)
		}
	}
	return nil
}

// Names lists the design's clusters in block order.
func (d *Design) Names() []string { return d.clusterNames() }

func (d *Design) clusterNames() []string {
	out := make([]string, len(d.Blocks))
	for i, b := range d.Blocks {
		out[i] = b.Cluster
	}
	return out
}
