package report

import (
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestAxesStateAOneValuedKnobOnce: a knob set to one value on every run is
// no axis: the head says it once ("set on every configuration"), as the
// matrix's labels no longer repeat it; a knob with two values stays an axis.
func TestAxesStateAOneValuedKnobOnce(t *testing.T) {
	run := func(engine, sb string) *load.Run {
		return &load.Run{Engine: engine, Knobs: []load.Knob{{Name: "innodb_flush_log_at_trx_commit", Value: "1"}, {Name: "sync_binlog", Value: sb}}}
	}
	tb := &judge.Table{Runs: []*load.Run{run("innodb", "0"), run("innodb", "1"), run("rocksdb", "0"), run("rocksdb", "1")}}
	if got, want := render.Axes(tb), "engine (innodb, rocksdb), sync_binlog; set on every configuration: innodb_flush_log_at_trx_commit=1"; got != want {
		t.Errorf("axes %q, want %q", got, want)
	}
}
