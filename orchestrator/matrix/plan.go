package matrix

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// State is where a cell stands (see the package doc); Cell is one label
// in one repetition. Both are matrix.json's own (orchestrator/schema).
type (
	State = schema.CellState
	Cell  = schema.MatrixCell
)

const (
	Pending     = schema.CellPending
	Running     = schema.CellRunning
	OK          = schema.CellOK
	Failed      = schema.CellFailed
	Interrupted = schema.CellInterrupted
	// Skipped: the matrix's stopping rule ended it before this cell's
	// round (rounds.go); the cell never ran.
	Skipped = schema.CellSkipped
)

// serverKnobs is the cell's knobs as the server package takes them.
func serverKnobs(c *Cell) []server.KV {
	out := make([]server.KV, len(c.Knobs))
	for i, k := range c.Knobs {
		out[i] = server.KV{Name: k.Name, Value: k.Value}
	}
	return out
}

// CellsDir is the matrix subdirectory holding the cells' run directories.
const CellsDir = "cells"

// maxIDDesc bounds the descriptive part of an id, keeping it far below
// NAME_MAX however many knobs there are. The position prefix keeps ids
// unique when the rest is cut.
const maxIDDesc = 150

// Plan lays out the cells of engines × axes, each label repeat times, in
// execution order (see the package doc for the exact rule). It expects
// parsed input; without engines or with repeat < 1 there is no cell.
func Plan(engines []string, axes []Axis, repeat int) []Cell {
	if len(engines) == 0 || repeat < 1 {
		return nil
	}
	combos := knobCombos(axes)
	cells := make([]Cell, 0, len(engines)*len(combos)*repeat)
	for r := 1; r <= repeat; r++ {
		order := slices.Clone(engines)
		if r%2 == 0 {
			// Start this round with the engine the last one ended on.
			slices.Reverse(order)
		}
		for _, e := range order {
			for _, kv := range combos {
				cells = append(cells, Cell{Label: label(e, varying(kv, axes)), Engine: e, Knobs: kv, Rep: r, State: Pending})
			}
		}
	}
	return numbered(cells)
}

// numbered gives cells in execution order their ids and directories.
func numbered(cells []Cell) []Cell {
	width := max(2, len(strconv.Itoa(len(cells))))
	for i := range cells {
		c := &cells[i]
		c.ID = cellID(i+1, width, c)
		c.Dir = CellsDir + "/" + c.ID
	}
	return cells
}

// knobCombos is the Cartesian product of the axes' values, the last axis
// varying fastest. No axis gives one empty combination.
func knobCombos(axes []Axis) [][]KV {
	out := [][]KV{{}}
	for _, ax := range axes {
		next := make([][]KV, 0, len(out)*len(ax.Values))
		for _, c := range out {
			for _, v := range ax.Values {
				// Clip so that each append copies: combos share no backing array.
				next = append(next, append(slices.Clip(c), KV{Name: ax.Name, Value: v}))
			}
		}
		out = next
	}
	return out
}

// varying is knobs without those whose axis has one value: a knob set the
// same on every configuration tells configurations apart no more than the
// inventory does, and repeated in every label it made answer lines of 171
// characters; the cells keep it (Cell.Knobs), the report states it once.
func varying(knobs []KV, axes []Axis) []KV {
	var out []KV
	for _, k := range knobs {
		i := slices.IndexFunc(axes, func(a Axis) bool { return a.Name == k.Name })
		if i < 0 || len(axes[i].Values) > 1 {
			out = append(out, k)
		}
	}
	return out
}

// label names a configuration: "innodb sync_binlog=0 binlog_order_commits=ON".
func label(engine string, knobs []KV) string {
	parts := []string{engine}
	for _, k := range knobs {
		parts = append(parts, k.Name+"="+k.Value)
	}
	return strings.Join(parts, " ")
}

// cellID is "<pos>-<engine>-<name=value>...-r<rep>", filesystem-safe.
func cellID(pos, width int, c *Cell) string {
	l := c.Label
	if c.Arm != "" {
		l = strings.TrimSuffix(l, " ("+c.Arm+")") + " " + c.Arm // "innodb-a", not "innodb-_a_"
	}
	desc := idSafe(strings.ReplaceAll(l, " ", "-"))
	if len(desc) > maxIDDesc {
		desc = strings.TrimRight(desc[:maxIDDesc], "-")
	}
	return fmt.Sprintf("%0*d-%s-r%d", width, pos, desc, c.Rep)
}

// idSafe keeps letters, digits and . _ = - (safe in a path element on any
// filesystem and in a shell word) and turns anything else into '_'.
func idSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '.' || r == '_' || r == '=' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// Labels lists the distinct configurations of cells in first-seen order.
func Labels(cells []Cell) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range cells {
		if !seen[c.Label] {
			seen[c.Label] = true
			out = append(out, c.Label)
		}
	}
	return out
}

// DefaultBaseline is the label compared against unless the user picks
// another: the first engine with the first value of every knob.
func DefaultBaseline(engines []string, axes []Axis) string {
	if len(engines) == 0 {
		return ""
	}
	var kv []KV
	for _, ax := range axes {
		if len(ax.Values) > 0 {
			kv = append(kv, KV{Name: ax.Name, Value: ax.Values[0]})
		}
	}
	return label(engines[0], varying(kv, axes))
}

// EngineSwitches counts consecutive cells on different engines: each is a
// profile change with a server restart.
func EngineSwitches(cells []Cell) int {
	n := 0
	for i := 1; i < len(cells); i++ {
		if cells[i].Engine != cells[i-1].Engine {
			n++
		}
	}
	return n
}

// Estimate is how long cells take: perCell each, plus switchCost for each
// engine switch between them. Bringing the cluster to the first cell's
// engine is not counted: it is the same for any order.
// It saturates at the largest Duration rather than wrap around.
func Estimate(cells []Cell, perCell, switchCost time.Duration) time.Duration {
	total := time.Duration(0)
	for _, part := range [][2]time.Duration{{time.Duration(len(cells)), perCell}, {time.Duration(EngineSwitches(cells)), switchCost}} {
		n, each := part[0], part[1]
		if each > 0 && n > (math.MaxInt64-total)/each {
			return math.MaxInt64
		}
		total += n * each
	}
	return total
}

// Fairness lints the plan before any host is touched: each configuration's
// profile and knobs rendered for every database host (offline, the
// server's flavour from hint or the inventory) over the server's defaults,
// compared for asymmetries off the matrix's axes (orchestrator/fairness).
func Fairness(inv *topology.Inventory, m *Matrix, hint string) ([]fairness.Warning, error) {
	if m.ServerFree() {
		return nil, nil // every cell runs the same servers, which the load does not use
	}
	var configs []fairness.Config
	for _, c := range m.configCells() {
		fc := fairness.Config{Label: c.Label, Engine: strings.ToLower(c.Engine)}
		for _, h := range inv.DBHosts() {
			t, err := server.OfflineTarget(h, inv, hint)
			if err != nil {
				return nil, err
			}
			cfg, err := server.Render(t, server.Desired{Engine: c.Engine, Knobs: serverKnobs(c)})
			if err != nil {
				return nil, err
			}
			rendered := map[string]string{}
			for _, v := range cfg.Vars {
				rendered[v.Name] = v.Value
			}
			fc.Hosts = append(fc.Hosts, fairness.Host{Name: h.Name, Role: string(h.Role),
				Vars: fairness.Effective(t.Server, fc.Engine, rendered)})
		}
		configs = append(configs, fc)
	}
	axes := make([]string, len(m.Knobs))
	for i, a := range m.Knobs {
		axes[i] = a.Name
	}
	return fairness.Lint(configs, axes), nil
}
