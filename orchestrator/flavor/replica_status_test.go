package flavor

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The MariaDB rows in testdata/replica-status were captured from
// mariadb-server 10.11.19 (Debian 12) replicating through the statements
// in testdata/golden/mariadb-10.11.19.sql; "master-down" is the same slave
// after its master was stopped. The MySQL rows are written from the
// documented column lists (5.7 SHOW SLAVE STATUS, 8.0 SHOW REPLICA STATUS).

var verticalField = regexp.MustCompile(`^\s*([A-Za-z_]+): ?(.*)$`)

// readVertical parses `\G` output; lines without "Name: " continue the
// previous value (multi-line GTID sets).
func readVertical(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replica-status", name))
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]string{}
	var last string
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.HasPrefix(line, "***") {
			continue
		}
		if m := verticalField.FindStringSubmatch(line); m != nil {
			last = m[1]
			row[last] = m[2]
			continue
		}
		if last == "" {
			t.Fatalf("%s: continuation line %q before any field", name, line)
		}
		row[last] += "\n" + line
	}
	return row
}

func secs(n int64) *int64 { return &n }

func TestParseReplicaStatusRealRows(t *testing.T) {
	tests := []struct {
		file    string
		want    ReplicaStatus
		running bool
		errText string // substring of Err(); "" means no error
	}{
		{"mariadb-10.11.19-running.txt", ReplicaStatus{
			IOState: "Waiting for master to send event", IORunning: "Yes", SQLRunning: "Yes",
			SQLState:      "Slave has read all relay log; waiting for more updates",
			SecondsBehind: secs(0), MasterHost: "127.0.0.1", MasterPort: 33161, MasterUser: "repl",
			MasterLogFile: "mysql-bin.000001", ReadMasterLogPos: 1480,
			RelayMasterLogFile: "mysql-bin.000001", ExecMasterLogPos: 1480,
			UsingGTID: "Slave_Pos", GTIDIOPos: "0-1-7",
		}, true, ""},
		{"mariadb-10.11.19-master-down.txt", ReplicaStatus{
			IOState: "Reconnecting after a failed master event read", IORunning: "Connecting", SQLRunning: "Yes",
			SQLState:    "Slave has read all relay log; waiting for more updates",
			LastIOErrno: 2003,
			LastIOError: `error reconnecting to master 'repl@127.0.0.1:33161' - retry-time: 60  maximum-retries: 100000  message: Can't connect to server on '127.0.0.1' (111 "Connection refused")`,
			MasterHost:  "127.0.0.1", MasterPort: 33161, MasterUser: "repl",
			MasterLogFile: "mysql-bin.000001", ReadMasterLogPos: 1480,
			RelayMasterLogFile: "mysql-bin.000001", ExecMasterLogPos: 1480,
			UsingGTID: "Slave_Pos", GTIDIOPos: "0-1-7",
		}, false, "IO thread error 2003: error reconnecting"},
		{"mysql-8.0.36-running.txt", ReplicaStatus{
			IOState: "Waiting for source to send event", IORunning: "Yes", SQLRunning: "Yes",
			SQLState:      "Waiting for dependent transaction to commit",
			SecondsBehind: secs(41), MasterHost: "10.0.0.1", MasterPort: 3306, MasterUser: "repl",
			MasterLogFile: "binlog.000003", ReadMasterLogPos: 48213377,
			RelayMasterLogFile: "binlog.000003", ExecMasterLogPos: 47190750,
			RetrievedGTIDSet: "5b1c0a7e-1d3f-11ef-9a2b-0242ac110002:1-77146",
			ExecutedGTIDSet:  "5b1c0a7e-1d3f-11ef-9a2b-0242ac110002:1-75211,6a2f3b41-1d3f-11ef-8c11-0242ac110003:1-12",
			AutoPosition:     true,
		}, true, ""},
		{"mysql-5.7.44-sql-error.txt", ReplicaStatus{
			IOState: "Waiting for master to send event", IORunning: "Yes", SQLRunning: "No",
			LastSQLErrno: 1062,
			LastSQLError: "Could not execute Write_rows event on table sbtest.sbtest1; Duplicate entry '7' for key 'PRIMARY', Error_code: 1062; handler error HA_ERR_FOUND_DUPP_KEY; the event's master log mysql-bin.000002, end_log_pos 5817",
			MasterHost:   "10.0.0.1", MasterPort: 3306, MasterUser: "repl",
			MasterLogFile: "mysql-bin.000002", ReadMasterLogPos: 9120344,
			RelayMasterLogFile: "mysql-bin.000002", ExecMasterLogPos: 5317,
			RetrievedGTIDSet: "0f1e2d3c-4b5a-11ee-8f00-0242ac110002:1-31822",
			ExecutedGTIDSet:  "0f1e2d3c-4b5a-11ee-8f00-0242ac110002:1-18,77aa8e10-4b5a-11ee-9c3e-0242ac110004:1",
			AutoPosition:     true,
		}, false, "SQL thread error 1062: Could not execute"},
	}
	for _, tt := range tests {
		got, err := ParseReplicaStatus(readVertical(t, tt.file))
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		if !equalStatus(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.file, got, tt.want)
		}
		if got.Running() != tt.running {
			t.Errorf("%s: Running() = %t", tt.file, got.Running())
		}
		if e := got.Err(); (tt.errText == "") != (e == nil) || (e != nil && !strings.Contains(e.Error(), tt.errText)) {
			t.Errorf("%s: Err() = %v, want %q", tt.file, e, tt.errText)
		}
	}
}

// equalStatus compares two statuses, SecondsBehind by value.
func equalStatus(a, b ReplicaStatus) bool {
	if (a.SecondsBehind == nil) != (b.SecondsBehind == nil) ||
		(a.SecondsBehind != nil && *a.SecondsBehind != *b.SecondsBehind) {
		return false
	}
	a.SecondsBehind, b.SecondsBehind = nil, nil
	return a == b
}

func TestParseReplicaStatusBatchOutput(t *testing.T) {
	// mysql --batch: a header line and a value line, tab separated.
	b, err := os.ReadFile(filepath.Join("testdata", "replica-status", "mariadb-10.11.19-running.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("want header and one row, got %d lines", len(lines))
	}
	cols, vals := strings.Split(lines[0], "\t"), strings.Split(lines[1], "\t")
	got, err := ParseReplicaStatusColumns(cols, vals)
	if err != nil {
		t.Fatal(err)
	}
	vertical, err := ParseReplicaStatus(readVertical(t, "mariadb-10.11.19-running.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !equalStatus(got, vertical) {
		t.Errorf("batch and vertical output differ:\n%+v\n%+v", got, vertical)
	}
	if _, err := ParseReplicaStatusColumns(cols, vals[1:]); err == nil {
		t.Error("column/value count mismatch accepted")
	}
}

func TestParseReplicaStatusNullAndCase(t *testing.T) {
	got, err := ParseReplicaStatus(map[string]string{
		"slave_io_running": "No", "SLAVE_SQL_RUNNING": "No", "Seconds_Behind_Master": "NULL",
		"Exec_Master_Log_Pos": "NULL", "Some_Future_Column": "whatever",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.IORunning != "No" || got.SQLRunning != "No" || got.SecondsBehind != nil || got.ExecMasterLogPos != 0 {
		t.Errorf("got %+v", got)
	}
}

func TestParseReplicaStatusErrors(t *testing.T) {
	if _, err := ParseReplicaStatus(nil); !errors.Is(err, ErrNotReplica) {
		t.Errorf("empty row: %v", err)
	}
	_, err := ParseReplicaStatus(map[string]string{"Master_Host": "x"})
	if err == nil || !strings.Contains(err.Error(), "no Replica_IO_Running or Slave_IO_Running column") {
		t.Errorf("missing columns: %v", err)
	}
	_, err = ParseReplicaStatus(map[string]string{
		"Replica_IO_Running": "Yes", "Replica_SQL_Running": "Yes",
		"Seconds_Behind_Source": "soon", "Exec_Source_Log_Pos": "-4", "Auto_Position": "2",
	})
	for _, want := range []string{`Seconds_Behind_Source = "soon"`, `Exec_Source_Log_Pos = "-4"`, `Auto_Position = "2"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad values: error %v lacks %s", err, want)
		}
	}
}

func FuzzParseReplicaStatus(f *testing.F) {
	f.Add("Slave_IO_Running", "Yes", "Seconds_Behind_Master", "12")
	f.Add("Replica_IO_Running", "Connecting", "Executed_Gtid_Set", "a:1-5,\nb:1")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		for _, k := range []string{k1, k2} {
			if strings.EqualFold(strings.TrimSpace(k), "Slave_SQL_Running") || strings.EqualFold(strings.TrimSpace(k), "Replica_SQL_Running") {
				t.Skip()
			}
		}
		r, err := ParseReplicaStatus(map[string]string{k1: v1, k2: v2, "Slave_SQL_Running": "Yes"})
		if err == nil && r.SQLRunning != "Yes" {
			t.Fatalf("SQL running lost: %+v", r)
		}
	})
}
