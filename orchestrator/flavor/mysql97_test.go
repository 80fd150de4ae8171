package flavor

import (
	"reflect"
	"strings"
	"testing"
)

// MySQL 9.7, as the MySQL 9.7 Reference Manual and its release notes state
// it (written from them, not from the table): 8.4.0 removed CHANGE MASTER
// TO, START/STOP/RESET SLAVE, SHOW SLAVE STATUS/HOSTS, SHOW MASTER STATUS
// and RESET MASTER; 9.x keeps only the source/replica spellings
// (Replication Statements; "SHOW BINARY LOG STATUS"; "RESET BINARY LOGS
// AND GTIDS"); semi-sync is the semisync_source/semisync_replica plugin pair
// with rpl_semi_sync_source_* / rpl_semi_sync_replica_* variables and
// Rpl_semi_sync_source_* status ("Semisynchronous Replication"), AFTER_SYNC
// its default wait point; caching_sha2_password replicas without TLS need
// GET_SOURCE_PUBLIC_KEY = 1 (CHANGE REPLICATION SOURCE TO); super_read_only
// refuses INSTALL PLUGIN, which writes mysql.plugin; my_print_defaults
// takes option group names ("my_print_defaults mysqld"), and mysqld reads
// [mysqld] and [server] ("Using Option Files"). SHOW STATUS has no
// Binlog_bytes_written (MariaDB's, "Server Status Variables" lists none);
// the Performance Schema's file_summary_by_event_name sums the bytes
// written per file instrument, the binary log files' being
// wait/io/file/sql/binlog ("File I/O Summary Tables").
func TestMySQL97(t *testing.T) {
	s := mustServer(t, MySQL, V(9, 7, 4))
	for f, want := range map[Feature]string{
		ChangeSourceStmt:       "CHANGE REPLICATION SOURCE TO",
		SourceOptionPrefix:     "SOURCE_",
		ReplicaKeyword:         "REPLICA",
		StatusColumns:          "Replica/Source",
		ResetBinlogsStmt:       "RESET BINARY LOGS AND GTIDS",
		BinlogStatusStmt:       "SHOW BINARY LOG STATUS",
		GTIDResetStmt:          "RESET BINARY LOGS AND GTIDS",
		GTIDStyle:              "auto-position",
		PublicKeyOption:        "GET_SOURCE_PUBLIC_KEY",
		PluginInstallStmt:      "INSTALL PLUGIN",
		PrintDefaultsArgs:      "mysqld server",
		PluginInstallBlockedBy: "super_read_only",
		BinlogBytesQuery:       "SELECT SUM_NUMBER_OF_BYTES_WRITE FROM performance_schema.file_summary_by_event_name WHERE EVENT_NAME = 'wait/io/file/sql/binlog'",
	} {
		if got, _ := s.Lookup(f); got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
	want := SemiSyncNames{
		MasterPlugin: "rpl_semi_sync_source", MasterLibrary: "semisync_source.so",
		SlavePlugin: "rpl_semi_sync_replica", SlaveLibrary: "semisync_replica.so",
		MasterEnabled: "rpl_semi_sync_source_enabled", MasterTimeout: "rpl_semi_sync_source_timeout",
		MasterWaitPoint: "rpl_semi_sync_source_wait_point", MasterWaitCount: "rpl_semi_sync_source_wait_for_replica_count",
		SlaveEnabled: "rpl_semi_sync_replica_enabled",
		MasterStatus: "Rpl_semi_sync_source_status", MasterClients: "Rpl_semi_sync_source_clients",
		MasterYesTx: "Rpl_semi_sync_source_yes_tx", MasterNoTx: "Rpl_semi_sync_source_no_tx",
		MasterTxWaitTime: "Rpl_semi_sync_source_tx_wait_time", MasterTxWaits: "Rpl_semi_sync_source_tx_waits",
		SlaveStatus: "Rpl_semi_sync_replica_status",
	}
	if got := s.SemiSync(); !reflect.DeepEqual(got, want) {
		t.Errorf("semi-sync names\n got %+v\nwant %+v", got, want)
	}
	if got := s.ReadOnlySettings(); !reflect.DeepEqual(got, []Setting{{"read_only", "ON"}, {"super_read_only", "ON"}}) {
		t.Errorf("replica read-only settings %v", got)
	}

	// Everything orch sends to wire a 9.7 cluster: no removed spelling.
	p := Params{MasterHost: "10.0.0.1", ReplPassword: "pw", Fresh: true}
	master, err := s.MasterSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	slave, err := s.SlaveSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, st := range append(master, slave...) {
		all = append(all, st.SQL)
	}
	text := strings.Join(all, "\n")
	for _, removed := range []string{"CHANGE MASTER", "START SLAVE", "STOP SLAVE", "RESET SLAVE", "SHOW MASTER STATUS",
		"RESET MASTER", "MASTER_", "semisync_master", "semisync_slave", "rpl_semi_sync_master", "rpl_semi_sync_slave"} {
		if strings.Contains(text, removed) {
			t.Errorf("9.7 setup sends %q, which 9.7 does not have:\n%s", removed, text)
		}
	}
	for _, need := range []string{
		"INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'",
		"SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'",
		"INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'",
		"SOURCE_AUTO_POSITION = 1, GET_SOURCE_PUBLIC_KEY = 1",
		"RESET BINARY LOGS AND GTIDS",
		"SET GLOBAL super_read_only = OFF",
	} {
		if !strings.Contains(text, need) {
			t.Errorf("9.7 setup lacks %q:\n%s", need, text)
		}
	}
}
