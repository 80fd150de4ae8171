package matrix

import (
	"fmt"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// writeDBInsert adds the db-insert report (report.WriteDBInsert: the
// seed's per-batch table, the total ratio and size ratio, the random-rate
// plot, why) to a matrix over the libraries db-insert is built against,
// and ends the console with its answer.
func (u *useCase) writeDBInsert(m *Matrix) error {
	runs, err := load.DBInsertRuns(m.Dir(), &m.Matrix)
	if err != nil || runs == nil {
		return err
	}
	answer, paths, err := render.WriteDBInsert(m.Dir(), runs)
	for _, p := range paths {
		fmt.Fprintln(u.Out, "db-insert report: "+p)
	}
	if answer != "" {
		fmt.Fprintln(u.Out, "db-insert answer: "+answer)
	}
	return err
}
