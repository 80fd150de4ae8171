package runner

import (
	"context"
	"fmt"

	"github.com/orch-bench/orch/orchestrator/dataset"
)

// checkPrepared proves, after prepare, that a workload whose inserts bring
// their own random ids (sysbench oltp_insert with auto_inc off: prepare
// leaves the tables empty) starts from empty tables. sysbench's ids never
// repeat within one process, so a duplicate key can only come from rows
// another writer left or still writes (an earlier run not re-prepared, or
// a second benchmark, which checkAlone refuses); a row here would end the
// run on one, minutes in. The check is one COUNT(*) per empty table.
func (r *run) checkPrepared(ctx context.Context) error {
	if !r.cfg.Workload.Prepare {
		return nil
	}
	spec, ok := r.spec()
	if !ok || !spec.ExactRows || spec.TableSize != 0 {
		return nil
	}
	master := r.db.Master
	match, why, err := dataset.Matches(ctx, master.DB, spec)
	if err != nil {
		return fmt.Errorf("%s: %w", master.Host, err)
	}
	if !match {
		return fmt.Errorf("%s: after prepare, %s: another client writes into the benchmark's tables, and its rows would collide with the run's random ids", master.Host, why)
	}
	return nil
}
