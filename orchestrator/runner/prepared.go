package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/dataset"
)

// checkPrepared proves, after prepare, that the benchmark's tables are
// what the run measures: of the configuration's engine (a server without
// the engine's plugin may substitute another when its sql_mode lets it,
// and a run would then measure the wrong engine), and, for a workload
// whose inserts bring their own random ids (sysbench oltp_insert with
// auto_inc off: prepare leaves the tables empty), empty. sysbench's ids
// never repeat within one process, so a duplicate key can only come from
// rows another writer left or still writes (an earlier run not
// re-prepared, or a second benchmark, which checkAlone refuses); a row
// here would end the run on one, minutes in. The check is one catalogue
// query, and one COUNT(*) per empty table.
func (r *run) checkPrepared(ctx context.Context) error {
	if !r.cfg.Workload.Prepare {
		return nil
	}
	spec, ok := r.spec()
	if !ok {
		return nil
	}
	empty := spec.ExactRows && spec.TableSize == 0
	if !empty {
		if spec.Engine == "" {
			return nil
		}
		// The tables and their engine only: a row count may differ
		// from the spec's where the tool prepares its own way.
		spec.TableSize, spec.ExactRows = 0, false
	}
	master := r.db.Master
	match, why, err := dataset.Matches(ctx, master.DB, spec)
	if err != nil {
		return fmt.Errorf("%s: %w", master.Host, err)
	}
	switch {
	case match:
		return nil
	case empty && strings.Contains(why, " rows, want "):
		return fmt.Errorf("%s: after prepare, %s: another client writes into the benchmark's tables, and its rows would collide with the run's random ids", master.Host, why)
	}
	return fmt.Errorf("%s: after prepare, %s: the run would not measure the configuration's tables", master.Host, why)
}
