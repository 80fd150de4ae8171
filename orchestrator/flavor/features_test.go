package flavor

import (
	"reflect"
	"strings"
	"testing"
)

// requiredFeatures must have a value on every supported server: the
// statement builders cannot work without them.
var requiredFeatures = []Feature{
	Supported, ChangeSourceStmt, SourceOptionPrefix, ReplicaKeyword, ResetBinlogsStmt,
	BinlogStatusStmt, StatusColumns, ReplGrants, GTIDStyle, GTIDSettings, GTIDSourcePosVar,
	GTIDReplicaPosVar, GTIDWaitFunc, SemiSyncMasterPrefix, SemiSyncSlavePrefix,
	EngineInnoDB, VarDefaults, OptionGroups, PluginInstallStmt,
}

// probeServers are versions on and around every boundary in the table,
// for all flavours (supported or not).
func probeServers() []Server {
	var out []Server
	for _, f := range []Flavor{MySQL, Percona, MariaDB} {
		seen := map[Version]bool{}
		add := func(v Version) {
			if !seen[v] && v.Major >= 0 && v.Minor >= 0 && v.Patch >= 0 {
				seen[v] = true
				out = append(out, Server{f, v})
			}
		}
		for _, r := range rules {
			for _, b := range []Version{r.min, r.max} {
				add(b)
				add(V(b.Major, b.Minor, b.Patch-1))
				add(V(b.Major, b.Minor, b.Patch+1))
				add(V(b.Major, b.Minor-1, 99))
			}
		}
		for _, v := range []Version{V(5, 6, 51), V(9, 1, 0), V(10, 2, 44), V(10, 11, 19), V(11, 8, 0), V(99, 0, 0)} {
			add(v)
		}
	}
	return out
}

func TestRulesNeverOverlap(t *testing.T) {
	features := map[Feature]bool{}
	for _, r := range rules {
		features[r.feature] = true
		if !r.max.IsZero() && r.max.Compare(r.min) <= 0 {
			t.Errorf("rule %s %v: empty range [%v, %v)", r.feature, r.on, r.min, r.max)
		}
	}
	for _, s := range probeServers() {
		for f := range features {
			var vals []string
			for _, r := range rules {
				if r.feature == f && r.matches(s) {
					vals = append(vals, r.value)
				}
			}
			if len(vals) > 1 {
				t.Errorf("%v: %d rules for %s: %q", s, len(vals), f, vals)
			}
		}
	}
}

func TestSupportedServersHaveRequiredFeatures(t *testing.T) {
	n := 0
	for _, s := range probeServers() {
		if _, ok := s.Lookup(Supported); !ok {
			continue
		}
		n++
		for _, f := range requiredFeatures {
			if _, ok := s.Lookup(f); !ok {
				t.Errorf("%v: no value for %s", s, f)
			}
		}
		// Semi-sync: a plugin needs a library and vice versa.
		ss := s.SemiSync()
		if (ss.MasterPlugin == "") != (ss.MasterLibrary == "") || (ss.SlavePlugin == "") != (ss.SlaveLibrary == "") {
			t.Errorf("%v: plugin/library mismatch %+v", s, ss)
		}
		// Where semi-sync is a plugin, its variables carry the plugin's name.
		if ss.MasterPlugin != "" && !strings.HasPrefix(ss.MasterEnabled, ss.MasterPlugin+"_") {
			t.Errorf("%v: master plugin %s but variable %s", s, ss.MasterPlugin, ss.MasterEnabled)
		}
		if ss.SlavePlugin != "" && !strings.HasPrefix(ss.SlaveEnabled, ss.SlavePlugin+"_") {
			t.Errorf("%v: slave plugin %s but variable %s", s, ss.SlavePlugin, ss.SlaveEnabled)
		}
	}
	if n < 20 {
		t.Fatalf("only %d supported probe servers", n)
	}
}

func TestFeatureValuesAtBoundaries(t *testing.T) {
	mysql := func(a, b, c int) Server { return Server{MySQL, V(a, b, c)} }
	maria := Server{MariaDB, V(10, 11, 19)}
	tests := []struct {
		s    Server
		f    Feature
		want string // "" means absent
	}{
		{mysql(5, 7, 44), ReplicaKeyword, "SLAVE"},
		{mysql(8, 0, 21), ReplicaKeyword, "SLAVE"},
		{mysql(8, 0, 22), ReplicaKeyword, "REPLICA"},
		{maria, ReplicaKeyword, "SLAVE"},
		{mysql(8, 0, 21), StatusColumns, "Slave/Master"},
		{mysql(8, 0, 22), StatusColumns, "Replica/Source"},
		{mysql(8, 0, 22), ChangeSourceStmt, "CHANGE MASTER TO"},
		{mysql(8, 0, 23), ChangeSourceStmt, "CHANGE REPLICATION SOURCE TO"},
		{maria, ChangeSourceStmt, "CHANGE MASTER TO"},
		{mysql(8, 0, 22), SourceOptionPrefix, "MASTER_"},
		{mysql(8, 0, 23), SourceOptionPrefix, "SOURCE_"},
		{mysql(5, 7, 44), PublicKeyOption, ""},
		{mysql(8, 0, 21), PublicKeyOption, "GET_MASTER_PUBLIC_KEY"},
		{mysql(8, 0, 23), PublicKeyOption, "GET_SOURCE_PUBLIC_KEY"},
		{maria, PublicKeyOption, ""},
		{mysql(8, 3, 0), ResetBinlogsStmt, "RESET MASTER"},
		{mysql(8, 4, 0), ResetBinlogsStmt, "RESET BINARY LOGS AND GTIDS"},
		{maria, ResetBinlogsStmt, "RESET MASTER"},
		{mysql(8, 3, 0), BinlogStatusStmt, "SHOW MASTER STATUS"},
		{mysql(8, 4, 3), BinlogStatusStmt, "SHOW BINARY LOG STATUS"},
		{mysql(8, 0, 25), SemiSyncMasterPlugin, "rpl_semi_sync_master"},
		{mysql(8, 0, 26), SemiSyncMasterPlugin, "rpl_semi_sync_source"},
		{mysql(8, 0, 26), SemiSyncSlaveLibrary, "semisync_replica.so"},
		{maria, SemiSyncMasterPlugin, ""},
		{maria, SemiSyncMasterPrefix, "rpl_semi_sync_master"},
		{mysql(5, 7, 44), SemiSyncWaitCountVar, "rpl_semi_sync_master_wait_for_slave_count"},
		{mysql(8, 0, 26), SemiSyncWaitCountVar, "rpl_semi_sync_source_wait_for_replica_count"},
		{maria, SemiSyncWaitCountVar, ""},
		{maria, GTIDWaitFunc, "MASTER_GTID_WAIT"},
		{mysql(8, 0, 36), GTIDWaitFunc, "WAIT_FOR_EXECUTED_GTID_SET"},
		{Server{Percona, V(8, 0, 36)}, ChangeSourceStmt, "CHANGE REPLICATION SOURCE TO"},
		{Server{Percona, V(5, 7, 44)}, EngineTokuDB, "ps-admin --enable-tokudb (or INSTALL PLUGIN tokudb SONAME 'ha_tokudb.so'); needs transparent huge pages off and jemalloc"},
		{Server{Percona, V(8, 0, 36)}, EngineTokuDB, ""},
		{mysql(5, 7, 44), EngineTokuDB, ""},
		{mysql(8, 0, 36), EngineRocksDB, ""},
	}
	for _, tt := range tests {
		got, ok := tt.s.Lookup(tt.f)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("%v %s = %q (%t), want %q", tt.s, tt.f, got, ok, tt.want)
		}
	}
}

func TestEngines(t *testing.T) {
	names := func(s Server) []string {
		var out []string
		for _, e := range s.Engines() {
			out = append(out, e.Name)
		}
		return out
	}
	for _, tt := range []struct {
		s    Server
		want []string
	}{
		{Server{MySQL, V(8, 0, 36)}, []string{"innodb"}},
		{Server{MySQL, V(5, 7, 44)}, []string{"innodb"}},
		{Server{Percona, V(5, 7, 44)}, []string{"innodb", "tokudb"}},
		{Server{Percona, V(8, 0, 36)}, []string{"innodb", "rocksdb"}},
		{Server{MariaDB, V(10, 11, 19)}, []string{"innodb", "rocksdb"}},
	} {
		if got := names(tt.s); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%v engines = %q, want %q", tt.s, got, tt.want)
		}
	}
	e, ok := Server{MariaDB, V(10, 11, 19)}.Engine("RocksDB")
	if !ok || !strings.Contains(e.Enable, "plugin-load-add=ha_rocksdb.so") {
		t.Errorf("MariaDB RocksDB = %+v, %t", e, ok)
	}
	if _, ok := (Server{MySQL, V(8, 0, 36)}).Engine("tokudb"); ok {
		t.Error("MySQL 8.0 claims TokuDB")
	}
}

// TestAbsentVariables: binlog_order_commits is in MySQL's manual
// (Replication and Binary Logging Options and Variables, 5.6 on) and in no
// MariaDB version's system variable list (MariaDB's knowledge base lists
// binlog_commit_wait_count and binlog_commit_wait_usec for its group commit).
func TestAbsentVariables(t *testing.T) {
	for _, v := range []Version{V(10, 5, 23), V(10, 11, 19), V(11, 4, 0)} {
		maria := Server{MariaDB, v}
		for _, name := range []string{"binlog_order_commits", "binlog-order-commits", " BINLOG_ORDER_COMMITS"} {
			why, ok := maria.AbsentVariable(name)
			if !ok || !strings.Contains(why, "MySQL") || !strings.Contains(why, "binlog_commit_wait_count") || !strings.Contains(why, "--flavor mysql") {
				t.Errorf("MariaDB %s %q = %q, %t", v, name, why, ok)
			}
		}
	}
	for _, s := range []Server{{MySQL, V(5, 7, 44)}, {MySQL, V(8, 0, 36)}, {Percona, V(5, 7, 44)}} {
		if why, ok := s.AbsentVariable("binlog_order_commits"); ok {
			t.Errorf("%s lacks binlog_order_commits: %s", s, why)
		}
	}
}

func TestSemiSyncNames(t *testing.T) {
	got := Server{MySQL, V(8, 0, 26)}.SemiSync()
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
	if got != want {
		t.Errorf("MySQL 8.0.26 semi-sync names:\n got %+v\nwant %+v", got, want)
	}
	m := Server{MariaDB, V(10, 11, 19)}.SemiSync()
	if m.MasterPlugin != "" || m.MasterWaitCount != "" || m.MasterStatus != "Rpl_semi_sync_master_status" ||
		m.SlaveEnabled != "rpl_semi_sync_slave_enabled" || m.SlaveStatus != "Rpl_semi_sync_slave_status" ||
		m.MasterTxWaitTime != "Rpl_semi_sync_master_tx_wait_time" || m.MasterTxWaits != "Rpl_semi_sync_master_tx_waits" {
		t.Errorf("MariaDB semi-sync names: %+v", m)
	}
}

func TestReplicaStatusColumn(t *testing.T) {
	newer, older := Server{MySQL, V(8, 0, 22)}, Server{MariaDB, V(10, 11, 19)}
	for classic, want := range map[string]string{
		"Slave_IO_Running":      "Replica_IO_Running",
		"Exec_Master_Log_Pos":   "Exec_Source_Log_Pos",
		"Seconds_Behind_Master": "Seconds_Behind_Source",
		"Master_SSL_Allowed":    "Source_SSL_Allowed",
		"Last_IO_Errno":         "Last_IO_Errno",
	} {
		if got := newer.ReplicaStatusColumn(classic); got != want {
			t.Errorf("8.0.22 %s = %s, want %s", classic, got, want)
		}
		if got := older.ReplicaStatusColumn(classic); got != classic {
			t.Errorf("MariaDB %s = %s", classic, got)
		}
	}
}

func TestGTIDSettings(t *testing.T) {
	if got := (Server{MySQL, V(5, 7, 44)}).GTIDSettings(); !reflect.DeepEqual(got, []Setting{{"gtid_mode", "ON"}, {"enforce_gtid_consistency", "ON"}}) {
		t.Errorf("MySQL GTID settings %v", got)
	}
	if got := (Server{MariaDB, V(10, 11, 19)}).GTIDSettings(); !reflect.DeepEqual(got, []Setting{{"gtid_strict_mode", "ON"}}) {
		t.Errorf("MariaDB GTID settings %v", got)
	}
}

// TestStartupOnlyOptions pins the options that are no system variables and
// the variable changed by restart, as the server manuals list them: MySQL's
// and MariaDB's option tables give --plugin-load, --plugin-load-add and
// --user as command-line/option-file only on both; --early-plugin-load
// exists on MySQL from 5.7.11 and not on MariaDB; --log-basename only on
// MariaDB. MySQL's gtid_mode moves one step at a time at run time.
func TestStartupOnlyOptions(t *testing.T) {
	maria, mysql8, percona57, mysql5710 := Server{MariaDB, V(10, 11, 19)}, Server{MySQL, V(8, 0, 36)},
		Server{Percona, V(5, 7, 44)}, Server{MySQL, V(5, 7, 10)}
	cases := []struct {
		s    Server
		name string
		want bool
	}{
		{maria, "plugin_load", true}, {maria, "plugin-load-add", true}, {maria, "user", true},
		{maria, "log_basename", true}, {maria, "early_plugin_load", false}, {maria, "innodb_buffer_pool_size", false},
		{mysql8, "plugin_load_add", true}, {mysql8, "early-plugin-load", true}, {mysql8, "log_basename", false},
		{percona57, "early_plugin_load", true}, {mysql5710, "early_plugin_load", false}, {mysql5710, "user", true},
	}
	for _, c := range cases {
		if got := c.s.OptionOnly(c.name); got != c.want {
			t.Errorf("%s OptionOnly(%q) = %t, want %t", c.s, c.name, got, c.want)
		}
	}
	for _, s := range []Server{mysql8, percona57} {
		if r, ok := s.RestartOnly("gtid_mode"); !ok || !strings.Contains(r, "one step at a time") {
			t.Errorf("%s gtid_mode restart-only = %q, %t", s, r, ok)
		}
	}
	if _, ok := maria.RestartOnly("gtid_mode"); ok {
		t.Error("MariaDB has no gtid_mode to restart for")
	}
	if _, ok := mysql8.RestartOnly("sync_binlog"); ok {
		t.Error("sync_binlog is set at run time")
	}
}

// TestStartupDerived pins MDEV-28766 (MariaDB 10.8.4, "System Variables
// Added in MariaDB 10.8"): innodb_log_file_buffering defaults to OFF, and
// "if the server is started up with innodb_flush_log_at_trx_commit=2, the
// value will be changed to innodb_log_file_buffering=ON". MySQL has no such
// variable.
func TestStartupDerived(t *testing.T) {
	for _, c := range []struct {
		s    Server
		want bool
	}{
		{Server{MariaDB, V(10, 11, 19)}, true}, {Server{MariaDB, V(10, 8, 4)}, true}, {Server{MariaDB, V(11, 4, 2)}, true},
		{Server{MariaDB, V(10, 8, 3)}, false}, {Server{MariaDB, V(10, 6, 16)}, false},
		{Server{MySQL, V(8, 0, 36)}, false}, {Server{Percona, V(5, 7, 44)}, false}, {Server{MySQL, V(9, 7, 0)}, false},
	} {
		derived, how, ok := c.s.StartupDerived("innodb-flush-log-at-trx-commit")
		if ok != c.want {
			t.Errorf("%s: derived %t, want %t", c.s, ok, c.want)
			continue
		}
		if ok && (derived != "innodb_log_file_buffering" || !strings.Contains(how, "ON when the server starts with innodb_flush_log_at_trx_commit=2")) {
			t.Errorf("%s: derives %q (%s)", c.s, derived, how)
		}
		if _, _, ok := c.s.StartupDerived("sync_binlog"); ok {
			t.Errorf("%s: sync_binlog derives nothing", c.s)
		}
	}
	// Where a global value comes from: MariaDB's SYSTEM_VARIABLES says
	// (GLOBAL_VALUE_ORIGIN, 10.1 and later); orch asks only where a
	// variable is derived at startup, which is on MariaDB.
	if q, ok := (Server{MariaDB, V(10, 11, 19)}).ValueOriginQuery("innodb_flush_log_at_trx_commit"); !ok ||
		q != "SELECT GLOBAL_VALUE_ORIGIN FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'INNODB_FLUSH_LOG_AT_TRX_COMMIT'" {
		t.Errorf("MariaDB origin query %q, %t", q, ok)
	}
	if _, ok := (Server{MySQL, V(8, 0, 36)}).ValueOriginQuery("sync_binlog"); ok {
		t.Error("MySQL: no origin query")
	}
}
