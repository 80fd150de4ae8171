package report

import (
	"reflect"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestPivot2x2: an engine x knob design of four configurations gets the
// 2x2 table: rows the engines, columns the knob's values, each row's ratio
// and the interaction (the rows' ratios' ratio: 0.5/0.9 = 0.556x when
// sync_binlog=1 costs rocksdb half its rate and innodb a tenth). Three
// configurations, or a factor with three levels, get none.
func TestPivot2x2(t *testing.T) {
	grp := func(label, engine, sb string, mean float64) *judge.Group {
		return &judge.Group{Label: label, Runs: []*load.Run{{Engine: engine, Knobs: []load.Knob{{Name: "sync_binlog", Value: sb}}}}, Rate: analyse.Sample{N: 3, Mean: mean}}
	}
	tb := &judge.Table{Metric: "writes/s", Groups: []*judge.Group{
		grp("innodb sync_binlog=0", "innodb", "0", 1000), grp("innodb sync_binlog=1", "innodb", "1", 900),
		grp("rocksdb sync_binlog=0", "rocksdb", "0", 2000), grp("rocksdb sync_binlog=1", "rocksdb", "1", 1000),
	}}
	s := render.PivotSection(tb)
	if s == nil {
		t.Fatal("no 2x2 table")
	}
	want := [][]string{
		{"engine=innodb", "1000.00 (3)", "900.00 (3)", "0.900x"},
		{"engine=rocksdb", "2000.00 (3)", "1000.00 (3)", "0.500x"},
	}
	if !reflect.DeepEqual(s.Rows, want) {
		t.Errorf("rows %q, want %q", s.Rows, want)
	}
	if h := s.Header; h[0] != "engine (rows) x sync_binlog (columns)" || h[1] != "sync_binlog=0 writes/s mean (n)" || h[3] != "1 vs 0" {
		t.Errorf("header %q", h)
	}
	if n := s.Notes[0]; !strings.Contains(n, "interaction, the ratio of the two rows' ratios: 0.556x") {
		t.Errorf("note %q", n)
	}
	tb.Groups = tb.Groups[:3]
	if render.PivotSection(tb) != nil {
		t.Error("a 2x2 table for three configurations")
	}
}
