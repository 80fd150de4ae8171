package flavor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ReplicaStatus is one row of SHOW SLAVE STATUS / SHOW REPLICA STATUS,
// read by column name: column order differs between versions, and MySQL
// 8.0.22+ spells Slave/Master as Replica/Source. Both spellings fill the
// same fields.
type ReplicaStatus struct {
	IOState    string // Slave_IO_State: what the IO thread is doing
	IORunning  string // Yes, No or Connecting
	SQLRunning string // Yes or No
	SQLState   string // Slave_SQL_Running_State

	LastIOErrno  int
	LastIOError  string
	LastSQLErrno int
	LastSQLError string

	// SecondsBehind is nil when the server reports NULL (a thread is not
	// running). It can read 0 on a slave whose link is down: compare GTID
	// positions to know whether a slave has caught up.
	SecondsBehind *int64

	MasterHost         string
	MasterPort         int
	MasterUser         string
	MasterLogFile      string // binlog the IO thread reads
	ReadMasterLogPos   uint64
	RelayMasterLogFile string // binlog of the last event the SQL thread executed
	ExecMasterLogPos   uint64

	// MariaDB GTID columns.
	UsingGTID string // No, Slave_Pos or Current_Pos
	GTIDIOPos string

	// MySQL GTID columns. Sets are normalised: no whitespace.
	RetrievedGTIDSet string
	ExecutedGTIDSet  string
	AutoPosition     bool
}

// Running reports whether both replication threads run.
func (r ReplicaStatus) Running() bool { return r.IORunning == "Yes" && r.SQLRunning == "Yes" }

// Err describes the replication errors the row reports, or nil.
func (r ReplicaStatus) Err() error {
	var errs []error
	if r.LastIOErrno != 0 {
		errs = append(errs, fmt.Errorf("IO thread error %d: %s", r.LastIOErrno, r.LastIOError))
	}
	if r.LastSQLErrno != 0 {
		errs = append(errs, fmt.Errorf("SQL thread error %d: %s", r.LastSQLErrno, r.LastSQLError))
	}
	return errors.Join(errs...)
}

// ErrNotReplica is returned for an empty status row: the server has no
// replication configured.
var ErrNotReplica = errors.New("replica status: no row (replication is not configured)")

type columnSpec struct {
	names    []string // every spelling, MySQL 8.0.22+ first
	required bool
	parse    func(r *ReplicaStatus, v string) error
}

func strCol(f func(*ReplicaStatus) *string) func(*ReplicaStatus, string) error {
	return func(r *ReplicaStatus, v string) error { *f(r) = v; return nil }
}

func intCol(f func(*ReplicaStatus) *int) func(*ReplicaStatus, string) error {
	return func(r *ReplicaStatus, v string) error {
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		*f(r) = n
		return err
	}
}

func uintCol(f func(*ReplicaStatus) *uint64) func(*ReplicaStatus, string) error {
	return func(r *ReplicaStatus, v string) error {
		if v == "" {
			return nil
		}
		n, err := strconv.ParseUint(v, 10, 64)
		*f(r) = n
		return err
	}
}

// gtidSetCol strips the newlines MySQL puts after commas in multi-UUID sets
// (raw, or escaped as \n by the mysql client's batch mode).
func gtidSetCol(f func(*ReplicaStatus) *string) func(*ReplicaStatus, string) error {
	return func(r *ReplicaStatus, v string) error {
		*f(r) = strings.Join(strings.Fields(strings.ReplaceAll(v, `\n`, "")), "")
		return nil
	}
}

var replicaColumns = []columnSpec{
	{[]string{"Replica_IO_State", "Slave_IO_State"}, false, strCol(func(r *ReplicaStatus) *string { return &r.IOState })},
	{[]string{"Replica_IO_Running", "Slave_IO_Running"}, true, strCol(func(r *ReplicaStatus) *string { return &r.IORunning })},
	{[]string{"Replica_SQL_Running", "Slave_SQL_Running"}, true, strCol(func(r *ReplicaStatus) *string { return &r.SQLRunning })},
	{[]string{"Replica_SQL_Running_State", "Slave_SQL_Running_State"}, false, strCol(func(r *ReplicaStatus) *string { return &r.SQLState })},
	{[]string{"Last_IO_Errno"}, false, intCol(func(r *ReplicaStatus) *int { return &r.LastIOErrno })},
	{[]string{"Last_IO_Error"}, false, strCol(func(r *ReplicaStatus) *string { return &r.LastIOError })},
	{[]string{"Last_SQL_Errno"}, false, intCol(func(r *ReplicaStatus) *int { return &r.LastSQLErrno })},
	{[]string{"Last_SQL_Error"}, false, strCol(func(r *ReplicaStatus) *string { return &r.LastSQLError })},
	{[]string{"Seconds_Behind_Source", "Seconds_Behind_Master"}, false, parseSecondsBehind},
	{[]string{"Source_Host", "Master_Host"}, false, strCol(func(r *ReplicaStatus) *string { return &r.MasterHost })},
	{[]string{"Source_Port", "Master_Port"}, false, intCol(func(r *ReplicaStatus) *int { return &r.MasterPort })},
	{[]string{"Source_User", "Master_User"}, false, strCol(func(r *ReplicaStatus) *string { return &r.MasterUser })},
	{[]string{"Source_Log_File", "Master_Log_File"}, false, strCol(func(r *ReplicaStatus) *string { return &r.MasterLogFile })},
	{[]string{"Read_Source_Log_Pos", "Read_Master_Log_Pos"}, false, uintCol(func(r *ReplicaStatus) *uint64 { return &r.ReadMasterLogPos })},
	{[]string{"Relay_Source_Log_File", "Relay_Master_Log_File"}, false, strCol(func(r *ReplicaStatus) *string { return &r.RelayMasterLogFile })},
	{[]string{"Exec_Source_Log_Pos", "Exec_Master_Log_Pos"}, false, uintCol(func(r *ReplicaStatus) *uint64 { return &r.ExecMasterLogPos })},
	{[]string{"Using_Gtid"}, false, strCol(func(r *ReplicaStatus) *string { return &r.UsingGTID })},
	{[]string{"Gtid_IO_Pos"}, false, strCol(func(r *ReplicaStatus) *string { return &r.GTIDIOPos })},
	{[]string{"Retrieved_Gtid_Set"}, false, gtidSetCol(func(r *ReplicaStatus) *string { return &r.RetrievedGTIDSet })},
	{[]string{"Executed_Gtid_Set"}, false, gtidSetCol(func(r *ReplicaStatus) *string { return &r.ExecutedGTIDSet })},
	{[]string{"Auto_Position"}, false, parseAutoPosition},
}

func parseSecondsBehind(r *ReplicaStatus, v string) error {
	if v == "" {
		return nil // NULL
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return err
	}
	r.SecondsBehind = &n
	return nil
}

func parseAutoPosition(r *ReplicaStatus, v string) error {
	switch v {
	case "", "0":
		r.AutoPosition = false
	case "1":
		r.AutoPosition = true
	default:
		return fmt.Errorf("want 0 or 1")
	}
	return nil
}

// ParseReplicaStatus reads a status row given as column name -> value. A
// NULL value may be absent, empty or the string NULL (as the mysql
// client's batch mode prints it). Column names match in any case. Unknown
// columns are ignored, so new server versions do not break parsing.
func ParseReplicaStatus(row map[string]string) (ReplicaStatus, error) {
	var r ReplicaStatus
	if len(row) == 0 {
		return r, ErrNotReplica
	}
	byName := make(map[string]string, len(row))
	for k, v := range row {
		if v == "NULL" {
			v = ""
		}
		byName[strings.ToLower(strings.TrimSpace(k))] = v
	}
	var errs []error
	for _, c := range replicaColumns {
		name, v, ok := "", "", false
		for _, n := range c.names {
			if v, ok = byName[strings.ToLower(n)]; ok {
				name = n
				break
			}
		}
		if !ok {
			if c.required {
				errs = append(errs, fmt.Errorf("no %s column", strings.Join(c.names, " or ")))
			}
			continue
		}
		if err := c.parse(&r, strings.TrimSpace(v)); err != nil {
			errs = append(errs, fmt.Errorf("column %s = %q: %w", name, v, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return r, fmt.Errorf("replica status: %w", err)
	}
	return r, nil
}

// ParseReplicaStatusColumns reads a status row given as parallel column
// names and values (a result header and one row).
func ParseReplicaStatusColumns(cols, vals []string) (ReplicaStatus, error) {
	if len(cols) != len(vals) {
		return ReplicaStatus{}, fmt.Errorf("replica status: %d columns but %d values", len(cols), len(vals))
	}
	row := make(map[string]string, len(cols))
	for i, c := range cols {
		row[c] = vals[i]
	}
	return ParseReplicaStatus(row)
}
