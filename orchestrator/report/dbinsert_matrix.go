package report

import (
	"fmt"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// DBInsertRuns are the cells of a matrix over the libraries db-insert is
// built against (a workload that uses no server) that ended, for
// WriteDBInsert; nil for any other matrix. The matrix writes dbinsert.md at
// its end and `orch report MATRIXDIR` writes it again from the same cells.
func DBInsertRuns(dir string, m *schema.Matrix) ([]DBInsertRun, error) {
	if w, err := bench.LoadWorkload(m.Workload); err != nil || w.UsesServer() {
		return nil, nil
	}
	var runs []DBInsertRun
	for _, c := range m.Cells {
		if c.State != schema.CellOK && c.State != schema.CellFailed {
			continue
		}
		if !filepath.IsLocal(c.Dir) {
			return nil, fmt.Errorf("matrix: cell %s: %q is not a path inside the matrix", c.ID, c.Dir)
		}
		runs = append(runs, DBInsertRun{Label: c.Engine, Rep: c.Rep, Dir: filepath.Join(dir, c.Dir), State: string(c.State)})
	}
	return runs, nil
}

// regenerateDBInsert writes dbinsert.md again when the one input is a
// db-insert matrix, returning its answer line and paths ("" and none for
// any other input).
func regenerateDBInsert(inputs []string) (string, []string, error) {
	if len(inputs) != 1 {
		return "", nil, nil
	}
	m, err := schema.ReadMatrix(filepath.Join(inputs[0], schema.FileMatrix), false)
	if err != nil {
		return "", nil, nil // not a matrix: Generate has judged the input
	}
	runs, err := DBInsertRuns(inputs[0], m)
	if err != nil || runs == nil {
		return "", nil, err
	}
	return WriteDBInsert(inputs[0], runs)
}
