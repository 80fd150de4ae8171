package matrix

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/runs"
)

// An A/A matrix runs one configuration as two arms, "(a)" and "(b)",
// identical in everything but their label. Whatever difference the report
// finds between them is the noise of this cluster and this workload: the
// floor below which no A/B difference can be told from chance. The arms
// alternate a b b a a b ... (each round holds both, the order reversed
// every other round), so that a slow drift of the machines, or whatever
// the first cell after bringing the cluster up carries, falls on both arms
// alike instead of on the one that always goes first.

// Arms of an A/A matrix, in the order of the first round.
var Arms = []string{"a", "b"}

// NewAA plans an A/A matrix of workload: engine with the knobs' single
// values, as two arms, each repeat times. More than one value on a knob is
// an error: an A/A measures one configuration, not a sweep.
func NewAA(workload, engine string, axes []Axis, repeat int) (*Matrix, error) {
	if err := CheckAA([]string{engine}, axes); err != nil {
		return nil, err
	}
	m, err := New(workload, []string{engine}, axes, repeat)
	if err != nil {
		return nil, err
	}
	m.AA = true
	m.Cells = planAA(m.configs(), repeat)
	m.Baseline = m.Cells[0].Label
	return m, nil
}

// CheckAA refuses what an A/A matrix cannot be: more (or fewer) than one
// engine, or a knob with several values. The message names the flag.
func CheckAA(engines []string, axes []Axis) error {
	if len(engines) != 1 {
		return fmt.Errorf("matrix: --aa runs one configuration twice: --engines names %d (%s); give one engine", len(engines), strings.Join(engines, ","))
	}
	for _, ax := range axes {
		if len(ax.Values) != 1 {
			return fmt.Errorf("matrix: --aa runs one configuration twice: --knobs %s has %d values (%s); give one (NAME=VALUE)",
				ax.Name, len(ax.Values), strings.Join(ax.Values, ","))
		}
	}
	return nil
}

// aaLabel is an arm's label: "innodb sync_binlog=0 (a)".
func aaLabel(base, arm string) string { return base + " (" + arm + ")" }

// configs is one round: every configuration of the plan once, in plan
// order (for an A/A matrix, the two arms of its one configuration).
func (m *Matrix) configs() []Cell {
	base := roundCells(m.Engines, m.Knobs)
	// A configuration keeps the label its cells already have: a matrix
	// planned by an older orch named knobs with one value too, and a round
	// added to it (a failed cluster's) must join its configuration.
	for i := range base {
		for _, c := range m.Cells {
			if c.Arm == "" && c.Engine == base[i].Engine && slices.Equal(c.Knobs, base[i].Knobs) {
				base[i].Label = c.Label
				break
			}
		}
	}
	if !m.AA {
		return base
	}
	var out []Cell
	for _, c := range base {
		for _, arm := range Arms {
			a := c
			// The one configuration's label names all its knobs: the
			// floor is measured at them (an A/B matrix's labels leave out
			// a knob with one value: varying).
			a.Label, a.Arm = aaLabel(label(c.Engine, c.Knobs), arm), arm
			out = append(out, a)
		}
	}
	return out
}

// planAA lays out repeat rounds of the arms, reversed in even rounds.
func planAA(configs []Cell, repeat int) []Cell {
	var cells []Cell
	for r := 1; r <= repeat; r++ {
		for i := range configs {
			j := i
			if r%2 == 0 {
				j = len(configs) - 1 - i
			}
			c := configs[j]
			c.Rep = r
			cells = append(cells, c)
		}
	}
	return numbered(cells)
}

// NewBlockedAA is NewAA over several clusters: each cluster runs both arms
// repeat times, in rounds drawn at random per cluster (see NewBlocked).
func NewBlockedAA(workload, engine string, axes []Axis, repeat int, clusters []string, seed int64) (*Matrix, *Design, error) {
	m, err := NewAA(workload, engine, axes, repeat)
	if err != nil {
		return nil, nil, err
	}
	d, err := m.block(clusters, seed, true)
	return m, d, err
}

// validateAA checks what the report relies on in an A/A matrix: every
// cell is an arm of the one configuration.
func (m *Matrix) validateAA() error {
	if !m.AA {
		return nil
	}
	if len(m.Engines) != 1 {
		return errors.New("matrix: an A/A matrix has one engine")
	}
	for _, c := range m.Cells {
		if c.Arm == "" || !strings.HasSuffix(c.Label, " ("+c.Arm+")") {
			return fmt.Errorf("matrix: A/A cell %s: label %q is not an arm", c.ID, c.Label)
		}
	}
	return nil
}

// CheckNoiseFloor verifies that dir holds a finished A/A matrix (for
// --noise-floor, before any host is contacted) and returns it.
func CheckNoiseFloor(dir string) (*Matrix, error) {
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	if !m.AA {
		return nil, fmt.Errorf("matrix %s is not an A/A matrix (orch matrix --aa makes one)", dir)
	}
	if m.Count(OK) == 0 {
		return nil, fmt.Errorf("A/A matrix %s has no cell that ended ok", dir)
	}
	return m, nil
}

// FindNoiseFloor returns the newest A/A matrix under root for workload
// with every cell finished, or
// "" when there is none. The report checks that its parameters and
// topology match the compared runs; here only the workload is known.
func FindNoiseFloor(root, workload string) string {
	return newest(root, func(m *Matrix) bool { return m.AA && m.Workload == workload && m.Done() && m.Count(OK) > 0 })
}

// FindEarlier is the newest finished matrix of workload under root with at
// least two runs of a configuration ("" when none): its runs' spread
// predicts how many rounds a precision rule will take.
func FindEarlier(root, workload string) string {
	return newest(root, func(m *Matrix) bool {
		return m.Workload == workload && m.Done() && m.Count(OK) >= 2*len(m.Labels())
	})
}

// newest is the newest matrix under root that keep accepts ("" when none).
func newest(root string, keep func(m *Matrix) bool) string {
	dir, _ := runs.Newest(root, func(dir string) bool {
		if !runs.IsMatrix(dir) {
			return false
		}
		m, err := Load(dir)
		return err == nil && keep(m)
	})
	return dir
}

// SetNoiseFloor records the A/A matrix in dir as this matrix's noise floor:
// by its name when it sits under root (where this matrix will be), so that
// the runs directory can move as a whole, else by its absolute path.
func (m *Matrix) SetNoiseFloor(dir, root string) error {
	name, err := runs.Name(dir, root)
	if err != nil {
		return err
	}
	m.NoiseFloor = name
	return nil
}
