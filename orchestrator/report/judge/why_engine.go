package judge

import (
	"math"
	"slices"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

// EngineNote says where the engine counters come from.
const EngineNote = "The engine's own counters (SHOW GLOBAL STATUS, its engine status): per transaction as above; " +
	"tokudb_fsync_ms is Tokudb_filesystem_fsync_time, tokudb_log_kib Tokudb_logger_writes_bytes, tokudb_checkpoint_leaf_kib " +
	"and tokudb_evicted_leaf_kib the leaf nodes written at checkpoints and evicted between them."

// EngineHeader lists the engine counters any host of the section has, in
// the monitor's order; nil when none has any that is not zero everywhere.
func (w *Why) EngineHeader() []string {
	seen := map[string]bool{}
	for _, g := range w.Groups {
		for _, c := range g.Hosts {
			for k, v := range c.Engine {
				seen[k] = seen[k] || v != 0
			}
		}
	}
	var cols []string
	for _, c := range flavor.IOCounters() {
		if c.PerTx != "" && seen[c.PerTx] && !slices.Contains(cols, c.PerTx) {
			cols = append(cols, c.PerTx)
		}
	}
	if len(cols) == 0 {
		return nil
	}
	return append([]string{"configuration", "host", "role"}, cols...)
}

// EngineRows are the engine table's rows: a configuration's hosts whose
// engine read any of the columns.
func (w *Why) EngineRows(header []string) [][]string {
	var rows [][]string
	for _, g := range w.Groups {
		for _, c := range g.Hosts {
			if len(c.Engine) == 0 {
				continue
			}
			row := []string{g.Label, c.Host, c.Role}
			for _, col := range header[3:] {
				v, ok := c.Engine[col]
				if !ok {
					v = math.NaN()
				}
				row = append(row, Small(v, analyse.CostDigits))
			}
			rows = append(rows, row)
		}
	}
	return rows
}
