package matrix

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Spec is a matrix as the command line asks for it, before it is planned.
type Spec struct {
	Engines  string   // comma-separated engine profiles (--engines)
	Knobs    []string // knob axes, each flag one or more separated by ';'
	Workload string   // an embedded workload name or a YAML file
	Repeat   int      // runs of each configuration
	WarmupS  *int     // seconds of each run left out of steady-state figures (nil: detected)
	Baseline string   // configuration label to compare against; "" is the default
	// Overrides are workload option overrides (KEY=VALUE).
	Overrides map[string]string
	// AA plans an A/A: the one configuration of Engines and Knobs twice,
	// as arms, interleaved (see NewAA).
	AA bool
	// Until, when set, runs rounds until the answer is precise enough
	// (rounds.go) instead of a fixed Repeat; RepeatSet says --repeat was
	// given too, which contradicts it.
	Until     *Until
	RepeatSet bool
	// Analysis pre-registers the report's analysis (--analysis blocked or
	// unpaired), recorded in matrix.json before any run; "": the design's
	// (blocked by round).
	Analysis string
}

// planUntil checks a stopping rule and returns the repetitions to plan
// for: its MaxRounds. An A/A without an equivalence band takes the
// precision as its band, so that it ends "equivalent" or "not resolved".
func (s *Spec) planUntil() error {
	if s.Until == nil {
		return nil
	}
	u := *s.Until // the caller's stays as given
	s.Until = &u
	if s.RepeatSet {
		return errors.New("matrix: a stopping rule (--precision or --until) and --repeat: the rule decides the repetitions; bound them with --max-repeat and --min-repeat")
	}
	if s.AA && u.Equivalence == 0 {
		if u.Goal == stats.GoalSignificant {
			// An A/A has no difference to find: only a band can decide it.
			return errors.New("matrix: --aa --until significant needs --equivalence E%: an A/A is decided only as equivalent within a band")
		}
		u.Equivalence = u.Precision
	}
	if err := stats.RuleOf(&u).Validate(); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	s.Repeat = u.MaxRounds
	return nil
}

// Build plans the matrix s asks for on one cluster. Everything is checked
// offline: engine names, knob axes, the workload, the cell count and the
// baseline.
func Build(s Spec) (*Matrix, error) {
	if s.Engines == "" {
		return nil, errors.New("matrix: --engines is required, e.g. --engines=innodb,rocksdb")
	}
	es, err := ParseEngines(s.Engines)
	if err != nil {
		return nil, err
	}
	axes, err := ParseKnobAxes(s.Knobs)
	if err != nil {
		return nil, err
	}
	if _, err := bench.LoadWorkload(s.Workload); err != nil {
		return nil, err
	}
	if err := s.planUntil(); err != nil {
		return nil, err
	}
	if err := stats.ValidAnalysis(s.Analysis); err != nil {
		return nil, fmt.Errorf("matrix: %w", err)
	}
	var m *Matrix
	if s.AA {
		if s.Baseline != "" {
			return nil, errors.New("matrix: --aa and --baseline: an A/A's baseline is its arm (a)")
		}
		if err := CheckAA(es, axes); err != nil {
			return nil, err
		}
		m, err = NewAA(s.Workload, es[0], axes, s.Repeat)
	} else {
		m, err = New(s.Workload, es, axes, s.Repeat)
	}
	if err != nil {
		return nil, err
	}
	m.Overrides, m.WarmupS = s.Overrides, warmupS(s.WarmupS)
	// Recorded before any run, the design's default too: a report cannot
	// choose another after the data.
	m.Until, m.Analysis = s.Until, s.Analysis
	if m.Analysis == "" {
		m.Analysis = stats.AnalysisBlocked
	}
	if s.Baseline != "" {
		if err := m.SetBaseline(s.Baseline); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// BuildBlocked plans s as a randomised block design over clusters, every
// cluster's order drawn from seed (see NewBlocked).
func BuildBlocked(s Spec, clusters []string, seed int64) (*Matrix, error) {
	// Build validates every part as for one cluster; the design then
	// replaces its cells.
	one, err := Build(s)
	if err != nil {
		return nil, err
	}
	var m *Matrix
	if one.AA {
		m, _, err = NewBlockedAA(one.Workload, one.Engines[0], one.Knobs, one.Repeat, clusters, seed)
	} else {
		m, _, err = NewBlocked(one.Workload, one.Engines, one.Knobs, one.Repeat, clusters, seed, true)
	}
	if err != nil {
		return nil, err
	}
	m.Overrides, m.WarmupS, m.Until, m.Analysis = one.Overrides, one.WarmupS, one.Until, one.Analysis
	if err := m.SetBaseline(one.Baseline); err != nil {
		return nil, err
	}
	return m, nil
}

// NewSeed draws a seed for a block design nobody chose one for (it is
// printed and recorded, so the order can be drawn again).
func NewSeed() (int64, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return 0, fmt.Errorf("matrix: seed: %w", err)
	}
	return int64(binary.LittleEndian.Uint64(b[:]) >> 1), nil
}

// LoadResume loads the matrix --resume continues: dir, or the latest under
// root when dir is "". clusters are the names of the clusters it runs on
// when there are several, nil for one: a matrix planned for one cluster is
// not resumed over several, nor the other way round, and a block design
// must name the same clusters.
func LoadResume(root, dir string, clusters []string) (*Matrix, error) {
	if dir == "" {
		var err error
		if dir, err = FindLatest(root); err != nil {
			return nil, err
		}
	}
	m, err := Load(dir)
	if err != nil {
		return nil, err
	}
	switch {
	case clusters == nil && m.Design != nil:
		return nil, fmt.Errorf("matrix %s ran over clusters %v: resume it with the same inventory, without --cluster", m.Dir(), m.Design.Names())
	case clusters != nil && m.Design == nil:
		return nil, fmt.Errorf("matrix %s ran on one cluster: resume it on that cluster (--cluster NAME)", m.Dir())
	case clusters != nil:
		if err := m.Design.Check(m, clusters); err != nil {
			return nil, fmt.Errorf("matrix %s: %w", m.Dir(), err)
		}
	}
	return m, nil
}

// CellWorkload returns a fresh workload for a cell of engine: the
// matrix's workload with its overrides applied, and the table engine set
// to the cell's unless an override names one (a custom workload has no
// table engine). Fresh each time: the runner changes a workload.
func (m *Matrix) CellWorkload(engine string) (*bench.Workload, error) {
	w, err := bench.LoadWorkload(m.Workload)
	if err != nil {
		return nil, err
	}
	over := maps.Clone(m.Overrides)
	if over == nil {
		over = map[string]string{}
	}
	if _, set := over["engine"]; !set && w.Spec().EngineOption {
		over["engine"] = engine
	}
	return w, w.Override(over)
}

// CellOverhead is orch's own time per cell beyond the benchmark (up,
// snapshots, prepare, checks, collect), and SwitchCost one restart round
// for an engine switch: the plan's estimate, not a measurement.
const (
	CellOverhead = 15 * time.Second
	SwitchCost   = 5 * time.Second
)

// CostsOf estimates a cell of workload w for the plan's duration; a
// workload without a time limit has no estimate.
func CostsOf(w *bench.Workload) Costs {
	if w.Options.TimeS == nil {
		return Costs{}
	}
	return Costs{PerCell: time.Duration(*w.Options.TimeS)*time.Second + CellOverhead, Switch: SwitchCost}
}

// ServerFree reports a matrix whose workload benchmarks a storage library
// directly (PerconaFT's db-insert): its engines are the libraries the
// program is built against (tokudb, bdb), not server engine profiles, so
// the servers keep the inventory's profile in every cell.
func (m *Matrix) ServerFree() bool {
	w, err := bench.LoadWorkload(m.Workload)
	return err == nil && !w.UsesServer()
}

// Desired is what the servers are asked for in cell c.
func (m *Matrix) Desired(c *Cell) server.Desired {
	if m.ServerFree() {
		return server.Desired{Knobs: serverKnobs(c)}
	}
	return server.Desired{Engine: c.Engine, Knobs: serverKnobs(c)}
}

// Configurations returns each configuration of the plan once, in plan
// order, as the servers are asked for it: what the plan is validated
// against before the first cell.
func (m *Matrix) Configurations() []server.Desired {
	var out []server.Desired
	for _, c := range m.configCells() {
		out = append(out, m.Desired(c))
	}
	return out
}

// configCells returns the first cell of each configuration, in plan order.
func (m *Matrix) configCells() []*Cell {
	var out []*Cell
	seen := map[string]bool{}
	for i := range m.Cells {
		if c := &m.Cells[i]; !seen[c.Label] {
			seen[c.Label] = true
			out = append(out, c)
		}
	}
	return out
}

// warmupS is --warmup (whole seconds) as matrix.json holds it.
func warmupS(s *int) *float64 {
	if s == nil {
		return nil
	}
	f := float64(*s)
	return &f
}
