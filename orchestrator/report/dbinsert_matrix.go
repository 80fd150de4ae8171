package report

import (
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/schema"
)

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
	runs, err := load.DBInsertRuns(inputs[0], m)
	if err != nil || runs == nil {
		return "", nil, err
	}
	return WriteDBInsert(inputs[0], runs)
}
