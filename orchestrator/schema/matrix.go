package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// matrix.json is the plan and state of a matrix. orchestrator/matrix owns
// the planner's type (matrix.Matrix, whose cells and design carry the
// scheduling methods) and writes the file; everything else reads it
// through Matrix here. The parts with no behaviour of the planner's own
// are declared only here and used by both: the stopping rule (Until), the
// clusters' design, blocks and moved rounds, the knob axes and settings.
// The plan and its cells are declared twice, Matrix and MatrixCell here
// for readers, matrix.Matrix and matrix.Cell for the planner (whose cell
// state has behaviour of its own).
// matrix.TestMatrixFileIsTheSchema writes a matrix with every field set
// and reads it back through Matrix with unknown keys refused, so the two
// cannot drift apart.

// MatrixVersion is the matrix.json format ("version").
const MatrixVersion = 1

// Matrix is matrix.json as a reader takes it.
type Matrix struct {
	Version   int               `json:"version"`
	Workload  string            `json:"workload"`
	Overrides map[string]string `json:"overrides,omitempty"`
	Engines   []string          `json:"engines"`
	Knobs     []Axis            `json:"knobs"`
	Repeat    int               `json:"repeat"`
	Baseline  string            `json:"baseline"`
	AA        bool              `json:"aa,omitempty"`
	// NoiseFloor names the A/A matrix whose floor the report states: a
	// sibling directory under the runs root, or a path.
	NoiseFloor string `json:"noise_floor,omitempty"`
	// WarmupS is --warmup, every run's warm-up; nil: detected per run.
	WarmupS    *float64          `json:"warmup_s,omitempty"`
	AllowMixed bool              `json:"allow_mixed,omitempty"`
	NoEffect   map[string]string `json:"no_effect,omitempty"`
	Cells      []MatrixCell      `json:"cells"`
	Design     *Design           `json:"design,omitempty"`
	Until      *Until            `json:"until,omitempty"`
}

// MatrixCell is one cell as a reader takes it (matrix.Cell writes it).
type MatrixCell struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	Engine string `json:"engine"`
	Knobs  []KV   `json:"knobs"`
	Rep    int    `json:"rep"`
	Arm    string `json:"arm,omitempty"`
	// State: pending, running, ok, failed, interrupted or skipped.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
	// Dir is the cell's run directory relative to the matrix directory.
	Dir     string    `json:"dir"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
}

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
