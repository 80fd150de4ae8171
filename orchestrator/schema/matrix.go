package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// matrix.json is the plan and state of a matrix, declared once here:
// orchestrator/matrix embeds Matrix in its planner (which adds the
// scheduling methods, and the design's) and writes the file; the report
// reads it through Matrix.

// MatrixVersion is the matrix.json format ("version").
const MatrixVersion = 1

// Matrix is matrix.json: the plan and the state of every cell.
type Matrix struct {
	Version  int    `json:"version"`
	Workload string `json:"workload"`
	// Overrides are the workload options given on the command line.
	Overrides map[string]string `json:"overrides,omitempty"`
	Engines   []string          `json:"engines"`
	Knobs     []Axis            `json:"knobs"`
	Repeat    int               `json:"repeat"`
	// Baseline is the label the report compares against.
	Baseline string `json:"baseline"`
	// AA marks an A/A matrix: one configuration as two arms.
	AA bool `json:"aa,omitempty"`
	// NoiseFloor is the A/A matrix whose noise floor the report states
	// (a directory next to this one under the runs root, or a path), so
	// that the report says the same whenever it is made.
	NoiseFloor string `json:"noise_floor,omitempty"`
	// WarmupS is the start of each run, in seconds, excluded from
	// steady-state figures, when the user gave one (orch matrix --warmup):
	// then it is every run's warm-up; nil: the report detects it per run.
	WarmupS *float64 `json:"warmup_s,omitempty"`
	// AllowMixed records --allow-mixed: the matrix compares servers that
	// differ in flavour or major.minor version by the user's choice, so a
	// report made later from this file compares them too (labelled).
	AllowMixed bool `json:"allow_mixed,omitempty"`
	// NoEffect maps a knob the server accepts but ignores to why: the
	// report says so instead of reporting no change.
	NoEffect map[string]string `json:"no_effect,omitempty"`
	// Analysis is the analysis orch matrix --analysis pre-registered
	// ("blocked" or "unpaired"); "": the design's (blocked by round).
	Analysis string       `json:"analysis,omitempty"`
	Cells    []MatrixCell `json:"cells"`
	// Until is the stopping rule of a matrix that runs rounds until its
	// answer is precise enough (--precision); nil: every cell runs.
	Until *Until `json:"until,omitempty"`
	// Design assigns the cells to clusters when the matrix runs over
	// several; nil for one cluster. (matrix.Matrix puts its own Design,
	// this one with the scheduling methods, in its place;
	// it is last, where the planner's own comes in the file.)
	Design *Design `json:"design,omitempty"`
}

// MatrixCell is one label in one repetition.
type MatrixCell struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Engine string `json:"engine"`
	Knobs  []KV   `json:"knobs"`
	Rep    int    `json:"rep"`
	// Arm is "a" or "b" in an A/A matrix (the same configuration twice).
	Arm   string    `json:"arm,omitempty"`
	State CellState `json:"state"`
	Error string    `json:"error,omitempty"`
	// Dir is the cell's run directory relative to the matrix directory
	// (cells/<id>); it exists once the cell has started.
	Dir     string    `json:"dir"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

// CellState is where a cell stands.
type CellState string

const (
	CellPending     CellState = "pending"
	CellRunning     CellState = "running"
	CellOK          CellState = "ok"
	CellFailed      CellState = "failed"
	CellInterrupted CellState = "interrupted"
	// CellSkipped: the matrix's stopping rule ended it before this cell's
	// round; the cell never ran.
	CellSkipped CellState = "skipped"
)

// Valid reports whether s is one of the states.
func (s CellState) Valid() bool {
	switch s {
	case CellPending, CellRunning, CellOK, CellFailed, CellInterrupted, CellSkipped:
		return true
	}
	return false
}

// Finished reports whether a cell in state s is behind us: resuming skips it.
func (s CellState) Finished() bool { return s == CellOK || s == CellFailed || s == CellSkipped }

// Axis is one knob of the matrix and the values it takes, in order.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// KV is one knob setting of a cell.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Design is a matrix over several clusters: which cluster runs which
// cells (matrix.Design adds the scheduling).
type Design struct {
	// Seed reproduces every order: the same seed, clusters and plan give
	// the same cells in the same order on every cluster.
	Seed int64 `json:"seed"`
	// GroupEngines keeps each round's cells of one engine together (engine
	// groups and, inside them, knob values in random order): one profile
	// change per engine per round instead of one per cell.
	GroupEngines bool `json:"group_engines"`
	// IDWidth is the width of the position in cell ids, kept for the cells
	// of moved rounds.
	IDWidth int     `json:"id_width"`
	Blocks  []Block `json:"blocks"`
	// Moved records rounds taken from a failed cluster to another one.
	Moved []MovedRound `json:"moved,omitempty"`
}

// Block is one cluster's share: every configuration, the same rounds.
type Block struct {
	Cluster string `json:"cluster"`
	// Cells are the ids of this cluster's cells, in run order.
	Cells []string `json:"cells"`
	// Failed says why the cluster was taken out of the schedule.
	Failed string `json:"failed,omitempty"`
	// Excluded are finished cells of a round the cluster did not complete:
	// the round was run again, whole, elsewhere, and these cells are left
	// out of the analysis so every configuration keeps the same number of
	// repetitions within each cluster.
	Excluded []string `json:"excluded,omitempty"`
}

// MovedRound is a round of a failed cluster run, whole and in a fresh
// random order, on another cluster as that cluster's round ToRound.
type MovedRound struct {
	From    string `json:"from"`
	Round   int    `json:"round"`
	To      string `json:"to"`
	ToRound int    `json:"to_round"`
	// Dropped are the cells of the round that had not run on From; they
	// are no longer part of the matrix.
	Dropped []string `json:"dropped,omitempty"`
	Reason  string   `json:"reason"`
}

// Until is a matrix's stopping rule (--precision, --until significant)
// and where it stands, saved with the plan so that --resume goes on with
// the same rule and the report says why it stopped.
type Until struct {
	Precision   float64 `json:"precision"`
	MinRounds   int     `json:"min_rounds"`
	MaxRounds   int     `json:"max_rounds"`
	Equivalence float64 `json:"equivalence,omitempty"`
	// Goal is stats.GoalSignificant for a matrix that stops once every
	// comparison is decided (Precision is then 0); empty: on precision.
	Goal string `json:"goal,omitempty"`
	// Judged is the last round judged; Lines the console line of each.
	Judged int      `json:"rounds_judged"`
	Lines  []string `json:"lines,omitempty"`
	// Stopped is set once the rule ended the matrix, Why says why (the
	// report's head repeats it).
	Stopped bool   `json:"stopped"`
	Why     string `json:"why,omitempty"`
}

// ReadMatrix reads a matrix.json. strict refuses keys Matrix does not
// know (the round-trip test's check that the writer and this type agree);
// readers are lenient, so that a later orch's file still reads.
func ReadMatrix(path string, strict bool) (*Matrix, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Matrix
	dec := json.NewDecoder(bytes.NewReader(b))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Version > MatrixVersion {
		return nil, fmt.Errorf("%s: matrix.json version %d is newer than this orch reads (%d)", path, m.Version, MatrixVersion)
	}
	return &m, nil
}
