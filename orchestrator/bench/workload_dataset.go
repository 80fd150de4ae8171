package bench

import "strings"

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
}

// CreateDatabaseSQL creates the schema if it is missing (prepare does not).
func (d DatasetSpec) CreateDatabaseSQL() string {
	return "CREATE DATABASE IF NOT EXISTS " + quoteIdent(d.Database)
}

// quoteIdent makes s one MySQL identifier.
func quoteIdent(s string) string {
	return "`" + strings.ReplaceAll(s, "`", "``") + "`"
}
