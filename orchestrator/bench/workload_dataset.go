package bench

import (
	"errors"
	"fmt"
	"strings"
)

// ErrDatasetMismatch matches (errors.Is) DatasetSpec.Check's verdict that
// the server's tables are not what prepare would make.
var ErrDatasetMismatch = errors.New("dataset does not match")

// DatasetSpec is the data a workload's prepare phase creates. The runner
// uses it to skip prepare when the dataset is already in place:
//
//  1. Exec CreateDatabaseSQL (prepare does not create the schema).
//  2. Query TablesQuery; Check the rows with Rows -1 (existence and engine).
//  3. If that passed, count each table with CountQuery and Check again with
//     the counts (COUNT(*) reads a whole table, so only when worth it).
//  4. On a mismatch run the cleanup step, then prepare: sysbench's prepare
//     fails on a table that already exists.
//
// Tables beyond the spec (sbtest9 when it has 8) are ignored: the benchmark
// never touches them.
type DatasetSpec struct {
	Database string
	// Tables are the table names prepare creates, in order.
	Tables []string
	// TableSize is the row count of each table right after prepare. A run
	// that inserts rows makes the dataset stale, on purpose: the next run
	// starts again from the prepared state.
	TableSize int
	// Engine is the storage engine as sysbench names it (innodb, rocksdb);
	// compared without regard to case, since the server says InnoDB/ROCKSDB.
	Engine string
}

// TableState is one table as the server has it.
type TableState struct {
	Name   string
	Engine string
	// Rows is the exact row count, or -1 when not counted.
	Rows int64
}

// CreateDatabaseSQL creates the schema if it is missing.
func (d DatasetSpec) CreateDatabaseSQL() string {
	return "CREATE DATABASE IF NOT EXISTS " + quoteIdent(d.Database)
}

// TablesQuery lists the schema's tables and their engines; it returns
// (TABLE_NAME, ENGINE) rows for the placeholder arguments args.
func (d DatasetSpec) TablesQuery() (query string, args []any) {
	return "SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES" +
		" WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME", []any{d.Database}
}

// CountQuery counts one table's rows exactly.
func (d DatasetSpec) CountQuery(table string) string {
	return "SELECT COUNT(*) FROM " + quoteIdent(d.Database) + "." + quoteIdent(table)
}

// Check compares what the server has with the spec: nil when every table
// exists with the engine and (where counted) the row count prepare leaves;
// otherwise an error matching ErrDatasetMismatch that names the first
// difference.
func (d DatasetSpec) Check(found []TableState) error {
	if len(d.Tables) == 0 {
		return errors.New("dataset spec lists no tables")
	}
	have := make(map[string]TableState, len(found))
	for _, t := range found {
		have[t.Name] = t
	}
	for _, name := range d.Tables {
		t, ok := have[name]
		full := d.Database + "." + name
		switch {
		case !ok:
			return fmt.Errorf("%w: %s is missing", ErrDatasetMismatch, full)
		case d.Engine != "" && !strings.EqualFold(t.Engine, d.Engine):
			return fmt.Errorf("%w: %s uses engine %s, not %s", ErrDatasetMismatch, full, t.Engine, d.Engine)
		case t.Rows >= 0 && t.Rows != int64(d.TableSize):
			return fmt.Errorf("%w: %s has %d rows, prepare leaves %d", ErrDatasetMismatch, full, t.Rows, d.TableSize)
		}
	}
	return nil
}

// quoteIdent makes s one MySQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
