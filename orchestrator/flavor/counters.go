package flavor

import "slices"

// StatusCounter is a SHOW GLOBAL STATUS counter of what a server's
// engines and binary log write and sync, which the monitor writes as a
// per-second rate column of timeseries/<host>-mysql.csv.
type StatusCounter struct {
	Column string // the CSV column: <name>_ps, or _bps for bytes
	Status string // the status variable
	Prec   int    // decimals of the rate
	// Engine is the engine the counter belongs to ("" the server's, as
	// the binary log's).
	Engine string
	// Fsyncs: the counter counts fsyncs; their sum over the engines is
	// the report's fsync_per_tx, split by FsyncLabel.
	Fsyncs     bool
	FsyncLabel string
	// PerTx names the counter in the report's table of the engine's own
	// counters per transaction ("" when it has no row there); PerTxScale
	// turns the rate into PerTx's unit (bytes to KiB, us to ms).
	PerTx      string
	PerTxScale float64
}

// BinlogBytesStatus is MariaDB's status variable for the bytes written to
// the binary log; on a server without it the monitor reads the same
// quantity with Server.BinlogBytesQuery and files it under this name.
const BinlogBytesStatus = "Binlog_bytes_written"

// Counters of the engines (EngineSpec.Counters) and of MariaDB's binary
// log; a server that lacks one leaves its column empty.
var (
	innodbCounters = []StatusCounter{
		{Column: "innodb_rows_inserted_ps", Status: "Innodb_rows_inserted", Prec: 1, Engine: "innodb"},
		{Column: "innodb_data_written_bps", Status: "Innodb_data_written", Prec: 0, Engine: "innodb"},
		{Column: "innodb_log_written_bps", Status: "Innodb_os_log_written", Prec: 0, Engine: "innodb"},
		{Column: "innodb_data_fsyncs_ps", Status: "Innodb_data_fsyncs", Prec: 1, Engine: "innodb", Fsyncs: true, FsyncLabel: "InnoDB"},
		{Column: "innodb_pages_flushed_ps", Status: "Innodb_buffer_pool_pages_flushed", Prec: 1, Engine: "innodb"},
	}
	rocksdbCounters = []StatusCounter{
		{Column: "rocksdb_rows_inserted_ps", Status: "Rocksdb_rows_inserted", Prec: 1, Engine: "rocksdb"},
		{Column: "rocksdb_bytes_written_bps", Status: "Rocksdb_bytes_written", Prec: 0, Engine: "rocksdb"},
		{Column: "rocksdb_wal_bytes_bps", Status: "Rocksdb_wal_bytes", Prec: 0, Engine: "rocksdb"},
		{Column: "rocksdb_wal_synced_ps", Status: "Rocksdb_wal_synced", Prec: 1, Engine: "rocksdb", Fsyncs: true, FsyncLabel: "RocksDB WAL"},
	}
	binlogCounters = []StatusCounter{
		{Column: "binlog_commits_ps", Status: "Binlog_commits", Prec: 1},
		{Column: "binlog_bytes_written_bps", Status: BinlogBytesStatus, Prec: 0},
		{Column: "binlog_group_commits_ps", Status: "Binlog_group_commits", Prec: 1},
	}
	// TokuDB exports its engine status (SHOW ENGINE TOKUDB STATUS) as
	// status variables, in upper case on Percona Server 5.7
	// (Tokudb_FILESYSTEM_FSYNC_NUM) and lower case on MariaDB 10.5 (read
	// from the TokuDB lab's server): the monitor matches either. Fsync
	// time is in microseconds.
	tokudbCounters = []StatusCounter{
		{Column: "tokudb_fsyncs_ps", Status: "Tokudb_FILESYSTEM_FSYNC_NUM", Prec: 1, Engine: "tokudb", Fsyncs: true, FsyncLabel: "TokuDB",
			PerTx: "tokudb_fsyncs", PerTxScale: 1},
		{Column: "tokudb_fsync_us_ps", Status: "Tokudb_FILESYSTEM_FSYNC_TIME", Prec: 0, Engine: "tokudb",
			PerTx: "tokudb_fsync_ms", PerTxScale: 1e-3},
		{Column: "tokudb_log_written_bps", Status: "Tokudb_LOGGER_WRITES_BYTES", Prec: 0, Engine: "tokudb",
			PerTx: "tokudb_log_kib", PerTxScale: 1.0 / 1024},
		{Column: "tokudb_checkpoints_ps", Status: "Tokudb_CHECKPOINT_TAKEN", Prec: 2, Engine: "tokudb",
			PerTx: "tokudb_checkpoints", PerTxScale: 1},
		{Column: "tokudb_cache_misses_ps", Status: "Tokudb_CACHETABLE_MISS", Prec: 1, Engine: "tokudb",
			PerTx: "tokudb_cache_misses", PerTxScale: 1},
		{Column: "tokudb_leaf_flushed_bps", Status: "Tokudb_LEAF_NODES_FLUSHED_CHECKPOINT_BYTES", Prec: 0, Engine: "tokudb",
			PerTx: "tokudb_checkpoint_leaf_kib", PerTxScale: 1.0 / 1024},
		{Column: "tokudb_leaf_evicted_bps", Status: "Tokudb_LEAF_NODES_FLUSHED_NOT_CHECKPOINT_BYTES", Prec: 0, Engine: "tokudb",
			PerTx: "tokudb_evicted_leaf_kib", PerTxScale: 1.0 / 1024},
	}
)

// ioCounters are the columns in the order of the CSV; a new engine's
// counters go at the end, so that older files keep their order.
var ioCounters = slices.Concat(innodbCounters, rocksdbCounters, binlogCounters, tokudbCounters)

// IOCounters lists the engines' and the binary log's counters in the
// monitor's column order.
func IOCounters() []StatusCounter { return slices.Clone(ioCounters) }

// FsyncCounters lists the counters whose sum is fsyncs, in column order.
func FsyncCounters() []StatusCounter {
	var out []StatusCounter
	for _, c := range ioCounters {
		if c.Fsyncs {
			out = append(out, c)
		}
	}
	return out
}
