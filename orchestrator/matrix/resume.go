package matrix

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
)

// settleAttempt runs before a cell that an earlier orch left unfinished is
// redone: the benchmark that attempt may still be running detached on the
// load box (orch was killed, not the benchmark) is stopped, or waited for
// with cfg.WaitRunning, and the attempt's directory collected, so that two
// benchmarks never load the cluster at once and the attempt CellDir keeps
// as <id>.attempt-N is complete. A cell never started has no directory.
func settleAttempt(ctx context.Context, m *Matrix, c *Cell, cfg ExecConfig) error {
	if m.dir == nil || cfg.Cluster == nil {
		return nil
	}
	p, err := m.dir.Abs(c.Dir)
	if err != nil {
		return fmt.Errorf("matrix: cell %s: %w", c.ID, err)
	}
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	d, err := rundir.Open(p)
	if err != nil {
		return fmt.Errorf("matrix: cell %s: %w", c.ID, err)
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	done, err := runner.Settle(ctx, d, cfg.Cluster, cfg.WaitRunning, logf)
	if err != nil {
		return fmt.Errorf("matrix: cell %s: the last attempt's benchmark: %w", c.ID, err)
	}
	switch done {
	case runner.SettledStopped:
		logf("matrix: cell %s: the last attempt's benchmark was stopped and its run collected; the cell runs again from a clean state", c.ID)
	case runner.SettledWaited:
		logf("matrix: cell %s: the last attempt's benchmark ended and its run was collected; the cell runs again from a clean state", c.ID)
	}
	return nil
}
