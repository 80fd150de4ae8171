package flavor

import (
	"slices"
	"strings"
	"testing"
)

// TestEngineTableComplete fails when an engine is added to engineSpecs
// without what the rest of orch reads from it: the variables the fairness
// check compares, their manual defaults on every server that has the
// engine, and status counters (one of them fsyncs) in the monitor's
// column order.
func TestEngineTableComplete(t *testing.T) {
	columns := map[string]bool{}
	for _, c := range IOCounters() {
		if columns[c.Column] {
			t.Errorf("counter column %s twice", c.Column)
		}
		columns[c.Column] = true
		if !strings.HasSuffix(c.Column, "_ps") && !strings.HasSuffix(c.Column, "_bps") {
			t.Errorf("counter column %s: want a _ps or _bps rate", c.Column)
		}
		if c.Fsyncs && c.FsyncLabel == "" {
			t.Errorf("fsync counter %s has no label for the report", c.Status)
		}
	}
	for _, e := range EngineSpecs() {
		// information_schema.TABLES.ENGINE prints Display; the dataset
		// checks match it to the profile's name in any case.
		if !strings.EqualFold(e.Display, e.Name) {
			t.Errorf("%s: Display %q is not the name in another case", e.Name, e.Display)
		}
		s := e.Settings
		if s.FlushVar == "" || s.CacheVar == "" || len(s.DirectIO) == 0 {
			t.Errorf("%s: the fairness check needs its flush, cache and direct-IO variables: %+v", e.Name, s)
		}
		for _, v := range s.Vars() {
			if e.VarPrefix != "" && !strings.HasPrefix(v, e.VarPrefix) {
				t.Errorf("%s: %s lacks the plugin's prefix %s (its default would be kept with the engine unloaded)", e.Name, v, e.VarPrefix)
			}
		}
		fsyncs := 0
		for _, c := range e.Counters {
			if c.Engine != e.Name {
				t.Errorf("%s: counter %s says engine %q", e.Name, c.Status, c.Engine)
			}
			if !slices.Contains(IOCounters(), c) {
				t.Errorf("%s: counter %s is not in ioCounters (the monitor's columns)", e.Name, c.Status)
			}
			if c.Fsyncs {
				fsyncs++
			}
		}
		if len(e.Counters) == 0 || fsyncs == 0 {
			t.Errorf("%s: %d counters, %d of fsyncs: the monitor and fsync_per_tx need both", e.Name, len(e.Counters), fsyncs)
		}
		for _, srv := range probeServers() {
			if _, ok := srv.Engine(e.Name); !ok || srv.value(Supported) == "" {
				continue
			}
			d := srv.VarDefaults()
			for _, v := range s.Vars() {
				if _, ok := d[v]; !ok {
					t.Errorf("%s on %s: no manual default for %s (a profile that does not set it could not be checked)", e.Name, srv, v)
				}
			}
		}
	}
	for _, c := range IOCounters() {
		if _, ok := LookupEngine(c.Engine); c.Engine != "" && !ok {
			t.Errorf("counter %s: unknown engine %q", c.Status, c.Engine)
		}
	}
}

// Every profile group holding server variables is read by some server,
// and the main group by all of them.
func TestProfileGroups(t *testing.T) {
	for _, g := range ProfileGroups() {
		if g == WrapperGroup {
			continue
		}
		readers := 0
		for _, srv := range goldenServers {
			if srv.ReadsGroup(g) {
				readers++
			}
		}
		if readers == 0 || g == MainGroup && readers != len(goldenServers) {
			t.Errorf("[%s] is read by %d of %d servers", g, readers, len(goldenServers))
		}
	}
	if !IsServerGroup("mariadb") || IsServerGroup(WrapperGroup) || IsServerGroup("client") {
		t.Error("server groups: want mysqld and mariadb only")
	}
}

// The position table and its variable, written from MariaDB's manual
// ("gtid_pos_auto_engines", 10.3.1+) and MySQL's (relay_log_info_repository).
func TestPositionTables(t *testing.T) {
	got := Server{MariaDB, V(10, 11, 19)}.PositionTables("rocksdb")
	if len(got) != 1 || got[0] != (Setting{Name: "gtid_pos_auto_engines", Value: "rocksdb"}) {
		t.Errorf("MariaDB: %v", got)
	}
	for _, srv := range []Server{{MySQL, V(8, 0, 36)}, {Percona, V(8, 0, 36)}, {Percona, V(5, 7, 44)}} {
		if got := srv.PositionTables("rocksdb"); got != nil {
			t.Errorf("%s has no gtid_pos_auto_engines: %v", srv, got)
		}
	}
	for _, c := range []struct {
		vars  map[string]string
		store string
	}{
		{map[string]string{"gtid_pos_auto_engines": "rocksdb"}, "rocksdb"},
		{map[string]string{"gtid_pos_auto_engines": "ROCKSDB, innodb"}, "rocksdb"},
		{map[string]string{"gtid_pos_auto_engines": ""}, "innodb"},
		{map[string]string{"relay_log_info_repository": "TABLE"}, "innodb"},
		{map[string]string{"relay_log_info_repository": "FILE"}, "file"},
	} {
		st, ok := ReplicaPositionStore("rocksdb", c.vars)
		if !ok || st.Engine != c.store {
			t.Errorf("%v: %+v, want %s", c.vars, st, c.store)
		}
	}
	if _, ok := ReplicaPositionStore("rocksdb", map[string]string{}); ok {
		t.Error("no variable, no store")
	}
}

// The defaults sets follow the servers' manuals: MariaDB's binlog_format
// is MIXED and sync_binlog 0, MySQL 8's ROW and 1, 5.7 keeps relay-log
// info in a FILE.
func TestVarDefaults(t *testing.T) {
	for _, c := range []struct {
		srv       Server
		name, val string
	}{
		{Server{MariaDB, V(10, 11, 19)}, "binlog_format", "MIXED"},
		{Server{MariaDB, V(10, 11, 19)}, "sync_binlog", "0"},
		{Server{MySQL, V(8, 0, 36)}, "sync_binlog", "1"},
		{Server{Percona, V(8, 0, 36)}, "relay_log_info_repository", "TABLE"},
		{Server{Percona, V(5, 7, 44)}, "relay_log_info_repository", "FILE"},
		{Server{MySQL, V(5, 7, 44)}, "innodb_flush_method", "fsync"},
	} {
		if got, ok := c.srv.VarDefaults()[c.name]; !ok || got != c.val {
			t.Errorf("%s %s = %q, want %q", c.srv, c.name, got, c.val)
		}
	}
}
