package matrix

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// fullMatrix is a matrix over two clusters with every field of matrix.json
// set but an A/A matrix's (aaFile): a round moved from a failed cluster, a
// stopping rule that stopped, knobs the server ignores, a failed cell.
func fullMatrix(t *testing.T) *Matrix {
	t.Helper()
	m, d, err := NewBlocked("pure-random-writes", []string{"innodb", "rocksdb"}, []Axis{{Name: "sync_binlog", Values: []string{"0", "1"}}}, 2, []string{"east", "west"}, 42, true)
	if err != nil {
		t.Fatal(err)
	}
	m.Design = d
	warm := 5.0
	m.Overrides = map[string]string{"threads": "8"}
	m.AllowMixed, m.NoiseFloor, m.WarmupS = true, "20261201T000000Z-matrix-aa", &warm
	m.NoEffect = map[string]string{"sync_binlog": "no binary log"}
	m.Analysis = "unpaired"
	m.Until = &Until{Precision: 0.1, MinRounds: 2, MaxRounds: 2, Equivalence: 0.05, Goal: "significant", Judged: 2,
		Lines: []string{"round 2: ..."}, Stopped: true, Why: "stopped after 2 rounds"}
	d.Blocks[0].Failed, d.Blocks[0].Excluded = "no answer", []string{d.Blocks[0].Cells[0]}
	d.Moved = []MovedRound{{From: "east", Round: 2, To: "west", ToRound: 3, Dropped: []string{d.Blocks[0].Cells[1]}, Reason: "no answer"}}
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	c := &m.Cells[0]
	c.State, c.Error, c.Started, c.Ended = Failed, "server gone", at, at.Add(time.Minute)
	return m
}

// TestMatrixFileIsTheSchema: a matrix.json the planner writes reads through
// schema.Matrix with unknown keys refused (so every key it writes is one
// the readers know), every field of the schema comes back set (so the
// check covers them all), with the values written; and the report's loader
// takes the same file's plan, rule and design.
func TestMatrixFileIsTheSchema(t *testing.T) {
	m := fullMatrix(t)
	dir, err := Create(t.TempDir(), m, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := schema.ReadMatrix(filepath.Join(dir, FileMatrix), true)
	if err != nil {
		t.Fatalf("the planner's matrix.json has a key schema.Matrix does not know: %v", err)
	}
	for _, v := range []any{*got, got.Cells[0], got.Cells[0].Knobs[0], got.Knobs[0], *got.Design, got.Design.Blocks[0], got.Design.Moved[0], *got.Until} {
		rv := reflect.ValueOf(v)
		for i := 0; i < rv.NumField(); i++ {
			if name := rv.Type().Field(i).Name; name == "AA" || name == "Arm" {
				continue // an A/A matrix's: aaFile
			}
			if rv.Field(i).IsZero() {
				t.Errorf("%s.%s read back empty: the test no longer sets it, or the planner no longer writes it", rv.Type().Name(), rv.Type().Field(i).Name)
			}
		}
	}
	// One type: the file reads back as the plan written, the design in
	// the key the planner's own Design shadows.
	want := m.Matrix
	want.Design = &m.Design.Design
	if !reflect.DeepEqual(*got, want) {
		t.Errorf("plan read back differs:\n got %+v\nwrote %+v", *got, want)
	}

	// The report's loader reads the same file through the same types.
	in, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Baseline != m.Baseline || in.WarmupS == nil || *in.WarmupS != 5 || in.AA || !in.AllowMixed || in.NoEffect["sync_binlog"] != "no binary log" ||
		in.NoiseFloor != filepath.Join(filepath.Dir(dir), m.NoiseFloor) {
		t.Errorf("the report read the plan as baseline %q warmup %v aa %v mixed %v no-effect %v floor %q", in.Baseline, in.WarmupS, in.AA, in.AllowMixed, in.NoEffect, in.NoiseFloor)
	}
	if in.Design == nil || in.Design.Seed != 42 || !reflect.DeepEqual(in.Design.Clusters, []string{"east", "west"}) || len(in.Design.Notes) != 3 {
		t.Errorf("the report read the design as %+v", in.Design)
	}
	if in.Until == nil || in.Until.Why != m.Until.Why || stats.RuleOf(&in.Until.Until) != stats.RuleOf(m.Until) {
		t.Errorf("the report read the rule as %+v", in.Until)
	}
}

// TestMatrixFileIsTheSchemaAA: an A/A matrix's keys (aa, each cell's arm)
// read through schema.Matrix too.
func TestMatrixFileIsTheSchemaAA(t *testing.T) {
	m, err := NewAA("pure-random-writes", "innodb", nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Create(t.TempDir(), m, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got, err := schema.ReadMatrix(filepath.Join(dir, FileMatrix), true)
	if err != nil {
		t.Fatal(err)
	}
	if !got.AA || len(got.Cells) != 4 {
		t.Fatalf("aa %v, %d cells", got.AA, len(got.Cells))
	}
	for i, c := range got.Cells {
		if c.Arm == "" || c.Arm != m.Cells[i].Arm {
			t.Errorf("cell %s: arm %q, wrote %q", c.ID, c.Arm, m.Cells[i].Arm)
		}
	}
	if in, err := load.Load([]string{dir}); err != nil || !in.AA {
		t.Errorf("the report read an A/A matrix as aa=%v (%v)", in != nil && in.AA, err)
	}
}
