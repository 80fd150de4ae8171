package schema

import (
	"fmt"
	"strings"
	"time"
)

// What the dataset checks of a run report (results.json catch_up,
// consistency, sizes); orchestrator/dataset measures them.

// CatchUp is what WaitCaughtUp saw.
type CatchUp struct {
	// MasterGTID is the master's position the slaves were waited for.
	MasterGTID string `json:"master_gtid"`
	// LoadEnd is when the benchmark ended: each slave's CatchUpNs counts
	// from there, not from when the wait began.
	LoadEnd *time.Time     `json:"load_end,omitempty"`
	Slaves  []SlaveCatchUp `json:"slaves"`
}

// SlaveCatchUp is one slave's wait.
type SlaveCatchUp struct {
	Host string `json:"host"`
	// Waited is how long the wait itself lasted (from its start, which is
	// after the load's end).
	Waited time.Duration `json:"waited_ns"`
	// CatchUpNs is the time from the load's end until the slave's executed
	// position was read equal to the master's final one (polled every
	// pollEvery); BehindAtWaitTx is how many transactions it lacked at
	// the first read. Both are unset when the slave did not catch up.
	CatchUpNs      *time.Duration `json:"catch_up_ns,omitempty"`
	BehindAtWaitTx *int64         `json:"behind_at_wait_tx,omitempty"`
	// CaughtUp is set when the slave applied MasterGTID.
	CaughtUp bool `json:"caught_up"`
	// Applied is the slave's own position when it did not catch up, and
	// Behind how many transactions the master has that it lacks.
	Applied string `json:"applied,omitempty"`
	Behind  *int64 `json:"behind_transactions,omitempty"`
	Error   string `json:"error,omitempty"`
}

// ConsistencyReport compares the benchmark tables across the servers.
type ConsistencyReport struct {
	// OK is set when every table has the same checksum and row count on
	// every server.
	OK       bool   `json:"ok"`
	Database string `json:"database"`
	// Hosts are the servers compared, master first ("master 10.0.0.1").
	Hosts  []string     `json:"hosts"`
	Tables []TableCheck `json:"tables"`
}

// TableCheck is one table on every server.
type TableCheck struct {
	Table string `json:"table"`
	OK    bool   `json:"ok"`
	// Values are per host, in the report's Hosts order.
	Values []TableValues `json:"values"`
	// Mismatches say, per differing server, how it differs from the
	// master ("slave2 10.0.0.3: 999 rows, checksum 17 (master: 1000 rows,
	// checksum 42)").
	Mismatches []string `json:"mismatches,omitempty"`
}

// TableValues is what one server says about one table.
type TableValues struct {
	Host string `json:"host"`
	// Exists is false when the server has no such table.
	Exists   bool   `json:"exists"`
	Rows     int64  `json:"rows"`
	Checksum string `json:"checksum,omitempty"`
	// Error is set when the server could not be asked.
	Error string `json:"error,omitempty"`
}

func (v TableValues) String() string {
	switch {
	case v.Error != "":
		return "error: " + v.Error
	case !v.Exists:
		return "no such table"
	}
	return fmt.Sprintf("%d rows, checksum %s", v.Rows, v.Checksum)
}

// Mismatched returns the checks that failed.
func (r *ConsistencyReport) Mismatched() []TableCheck {
	var out []TableCheck
	for _, t := range r.Tables {
		if !t.OK {
			out = append(out, t)
		}
	}
	return out
}

// Summary is one line per failed check, or "" when the report is OK.
func (r *ConsistencyReport) Summary() string {
	var b strings.Builder
	for _, t := range r.Mismatched() {
		for _, m := range t.Mismatches {
			b.WriteString(r.Database + "." + t.Table + ": " + m + "\n")
		}
	}
	return b.String()
}

// Where SizeReport.DatadirBytes came from.
const (
	SourceDu      = "du"
	SourceCatalog = "information_schema"
)

// SizeReport is what a database takes on one server.
type SizeReport struct {
	Database string       `json:"database"`
	Tables   []TableSize  `json:"tables"`
	Engines  []EngineSize `json:"engines"`
	// DataBytes and IndexBytes are the database's totals.
	DataBytes  int64 `json:"data_bytes"`
	IndexBytes int64 `json:"index_bytes"`

	Datadir       string `json:"datadir"`
	DatadirBytes  int64  `json:"datadir_bytes"`
	DatadirSource string `json:"datadir_source"`
	// Paths are du -sb sizes of the directories inside the datadir that
	// exist: the database's own (InnoDB's .ibd files) and each engine's
	// (flavor.EngineSpec.DataDir: #rocksdb).
	Paths map[string]int64 `json:"paths,omitempty"`
	// EngineDiskBytes are the database's tables on disk per engine, from
	// the files themselves: innodb the database directory's .ibd files,
	// rocksdb the #rocksdb directory (all of MyRocks' data on the server),
	// tokudb the database's .tokudb files in the datadir.
	EngineDiskBytes map[string]int64 `json:"engine_disk_bytes,omitempty"`
	// BinlogBytes and RelayLogBytes are the binary and relay logs on disk,
	// kept apart from the tables: they grow with every run a server has
	// seen, not with the dataset.
	BinlogBytes   int64 `json:"binlog_bytes"`
	RelayLogBytes int64 `json:"relay_log_bytes"`
	// Note says why du was not used, or why the catalogue is not current.
	Note string `json:"note,omitempty"`
}

// TableSize is one table's footprint as the catalogue reports it.
type TableSize struct {
	Table  string `json:"table"`
	Engine string `json:"engine"`
	// Rows is TABLE_ROWS: an estimate on InnoDB and RocksDB.
	Rows       int64 `json:"rows"`
	DataBytes  int64 `json:"data_bytes"`
	IndexBytes int64 `json:"index_bytes"`
	FreeBytes  int64 `json:"free_bytes"`
}

// EngineSize totals the tables of one engine.
type EngineSize struct {
	Engine     string `json:"engine"`
	Tables     int    `json:"tables"`
	DataBytes  int64  `json:"data_bytes"`
	IndexBytes int64  `json:"index_bytes"`
}
