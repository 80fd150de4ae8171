package matrix

import (
	"fmt"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report"
)

// writeDBInsert adds the db-insert report (report.WriteDBInsert: the
// seed's per-batch table, the total ratio and size ratio, the random-rate
// plot, why) to a matrix over the libraries db-insert is built against,
// and ends the console with its answer.
func (u *useCase) writeDBInsert(m *Matrix) error {
	if !m.ServerFree() {
		return nil
	}
	var runs []report.DBInsertRun
	for _, c := range m.Cells {
		if c.State != OK && c.State != Failed {
			continue
		}
		// Not CellDir, which prepares a fresh attempt (moving this one aside).
		if !filepath.IsLocal(c.Dir) {
			return fmt.Errorf("matrix: cell %s: %q is not a path inside the matrix", c.ID, c.Dir)
		}
		runs = append(runs, report.DBInsertRun{Label: c.Engine, Rep: c.Rep, Dir: filepath.Join(m.Dir(), c.Dir), State: string(c.State)})
	}
	answer, paths, err := report.WriteDBInsert(m.Dir(), runs)
	for _, p := range paths {
		fmt.Fprintln(u.Out, "db-insert report: "+p)
	}
	if answer != "" {
		fmt.Fprintln(u.Out, "db-insert answer: "+answer)
	}
	return err
}
