package judge

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// A matrix knob set alike on both engines that is InnoDB's flush policy
// is reported as an asymmetry the knob made, from the servers' variables.
func TestReportKnobOfOneEngine(t *testing.T) {
	run := func(label, engine string) *load.Run {
		vars := map[string]string{"innodb_flush_log_at_trx_commit": "1", "rocksdb_flush_log_at_trx_commit": "2",
			"sync_binlog": "0", "gtid_pos_auto_engines": "ROCKSDB"}
		return &load.Run{ID: label, Label: label, Engine: engine, State: load.StateOK, Bench: &load.Bench{Complete: true},
			Knobs: []load.Knob{{Name: "innodb_flush_log_at_trx_commit", Value: "1"}},
			Evidence: &load.Evidence{Hosts: []string{"master"}, Roles: map[string]string{"master": "master"},
				Variables: map[string]map[string]string{"master": vars}}}
	}
	tb := &Table{Groups: []*Group{{Label: "innodb k=1", Runs: []*load.Run{run("innodb k=1", "innodb")}},
		{Label: "rocksdb k=1", Runs: []*load.Run{run("rocksdb k=1", "rocksdb")}}}}
	tb.lintFairness()
	lines := tb.FairnessLines()
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "UNFAIR: master: flush policy of the engine under test differs (durability): ") ||
		!strings.HasSuffix(lines[0], "[--knobs innodb_flush_log_at_trx_commit=1 reaches innodb, not rocksdb]") {
		t.Errorf("fairness lines: %q", lines)
	}
}

// The slaves' applied position, as the lint words it for a configuration,
// is what the "why" names beside their fsyncs; other aspects are not.
func TestSidePositionFromTheLint(t *testing.T) {
	tb := &Table{Fairness: []fairness.Warning{
		{What: "flush policy of the engine under test", Values: []string{"innodb: x", "tokudb: y"}},
		{What: fairness.SideTables, Values: []string{"innodb: mysql.gtid_slave_pos in innodb", "tokudb sync_binlog=1: mysql.gtid_slave_pos in innodb, innodb_flush_log_at_trx_commit=1"}},
	}}
	if got := tb.sidePosition("tokudb sync_binlog=1"); got != "mysql.gtid_slave_pos in innodb, innodb_flush_log_at_trx_commit=1" {
		t.Errorf("tokudb: %q", got)
	}
	if got := tb.sidePosition("tokudb"); got != "" {
		t.Errorf("a label that is only a prefix of another's: %q", got)
	}
	if got := (&Table{}).sidePosition("innodb"); got != "" {
		t.Errorf("no lint: %q", got)
	}
}
