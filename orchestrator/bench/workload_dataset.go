package bench

import (
	"fmt"
	"strings"
)

// DatasetSpec is the data a workload's prepare phase creates, as the driver
// knows it. The runner turns it into a dataset.Spec and skips prepare when
// the server already holds exactly this; on a mismatch it runs cleanup,
// then prepare (sysbench's prepare fails on a table that already exists).
type DatasetSpec struct {
	Database string
	// Tables are the table names prepare creates, in order.
	Tables []string
	// TableSize is the exact row count of each table right after prepare
	// (0 for oltp_insert with auto_inc off, which prepares empty tables). A
	// run that inserts rows makes the dataset stale, on purpose: the next
	// run starts again from the prepared state.
	TableSize int
	// Engine is the storage engine as sysbench names it (innodb, rocksdb);
	// compared without regard to case, since the server says InnoDB/ROCKSDB.
	Engine string
	// EmptyWhy says why prepare leaves the tables empty although the
	// workload sets a table size ("" when it fills them).
	EmptyWhy string
}

// StartingData says what the benchmark's tables hold when a run of w
// starts, for the report's "what was run": "" when w does not prepare or
// its driver cannot tell. It holds for every run because the runner
// checks the dataset against exactly this (row counts included) and
// prepares again when it differs.
func StartingData(w *Workload) string {
	if !w.Prepare {
		return ""
	}
	d, err := NewDriver(w)
	if err != nil {
		return ""
	}
	ds, ok := d.Dataset()
	if !ok || len(ds.Tables) == 0 {
		return ""
	}
	tables, each := ds.Tables[0], ""
	if n := len(ds.Tables); n > 1 {
		tables, each = fmt.Sprintf("%d tables (%s..%s)", n, ds.Tables[0], ds.Tables[n-1]), " each"
	}
	if ds.TableSize == 0 {
		if ds.EmptyWhy != "" {
			return tables + " start empty: " + ds.EmptyWhy
		}
		return tables + " start empty"
	}
	return fmt.Sprintf("%s of %d rows%s at the start", tables, ds.TableSize, each)
}

// CreateDatabaseSQL creates the schema if it is missing (prepare does not).
func (d DatasetSpec) CreateDatabaseSQL() string {
	return "CREATE DATABASE IF NOT EXISTS " + quoteIdent(d.Database)
}

// quoteIdent makes s one MySQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
