package replication

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// The fake refuses what its version does not have, with the real server's
// error: the dialect tables (fakedialect_test.go) are what the tests of
// orch's spelling rest on.
func TestFakeDialectsRefuseOtherSpellings(t *testing.T) {
	for _, tc := range []struct {
		srv       flavor.Server
		q, errPfx string
	}{
		{mariadb, "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '10.0.0.1'", "Error 1064 (42000): You have an error in your SQL syntax"},
		{mariadb, "CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_AUTO_POSITION = 1", "Error 1064 (42000)"},
		{mariadb, "SELECT WAIT_FOR_EXECUTED_GTID_SET('0-1-1', 1)", "Error 1305 (42000): FUNCTION test.WAIT_FOR_EXECUTED_GTID_SET does not exist"},
		{mariadb, "SET GLOBAL rpl_semi_sync_source_enabled = ON", "Error 1193 (HY000): Unknown system variable"},
		{mariadb, "SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 1", "Error 1193 (HY000)"},
		{mariadb, "SELECT @@GLOBAL.super_read_only", "Error 1193 (HY000)"},
		{mariadb, "SELECT @@GLOBAL.gtid_executed", "Error 1193 (HY000)"},
		{mariadb, "SET GLOBAL gtid_binlog_pos = ''", "Error 1238 (HY000)"},
		{mariadb, "INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'", "Error 1126 (HY000)"},
		{mysql80, "CHANGE MASTER TO MASTER_HOST = '10.0.0.1', MASTER_USE_GTID = slave_pos", "Error 1064 (42000)"},
		{mysql80, "SELECT MASTER_GTID_WAIT('0-1-1', 1)", "Error 1305 (42000): FUNCTION test.MASTER_GTID_WAIT does not exist"},
		{mysql80, "SELECT WAIT_FOR_EXECUTED_GTID_SET('0-1-1', 1)", "Error 1772 (HY000): Malformed GTID set specification"},
		{mysql80, "SET GLOBAL rpl_semi_sync_source_enabled = ON", "Error 1193 (HY000)"}, // no plugin yet
		{mysql80, "SELECT @@GLOBAL.gtid_slave_pos", "Error 1193 (HY000)"},
		{mysql80, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_master.so'", "Error 1127 (HY000)"},
		{mysql80, "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_src.so'", "Error 1126 (HY000)"},
		{mysql80, "GRANT REPLICATION SLAVE, SLAVE MONITOR ON *.* TO 'repl'@'%'", "Error 1064 (42000)"},
	} {
		c := newFakeCluster(tc.srv, "s")
		_, err := c.servers[0].handle(context.Background(), &fakeConn{s: c.servers[0], binlog: true}, tc.q)
		if err == nil || !strings.HasPrefix(err.Error(), tc.errPfx) {
			t.Errorf("%s: %s: error %v, want %s...", tc.srv, tc.q, err, tc.errPfx)
		}
	}
}

// The old semi-sync plugins still load on MySQL 8.0 and bring the old
// names only; a side's old and new plugin cannot both load.
func TestFakeMySQL80PluginNames(t *testing.T) {
	s := newFakeCluster(mysql80, "s").servers[0]
	run := func(q string) error {
		_, err := s.handle(context.Background(), &fakeConn{s: s, binlog: true}, q)
		return err
	}
	if err := run("INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'"); err != nil {
		t.Fatal(err)
	}
	_, oldName := s.vars["rpl_semi_sync_master_wait_for_slave_count"]
	if _, newName := s.vars["rpl_semi_sync_source_enabled"]; !oldName || newName {
		t.Errorf("variables after the old plugin: %v", s.vars)
	}
	if err := run("INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'"); err == nil {
		t.Error("both master-side plugins loaded")
	}
	s.vars["super_read_only"] = "ON"
	if err := run("INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'"); err == nil || !strings.HasPrefix(err.Error(), "Error 1290") {
		t.Errorf("INSTALL PLUGIN with super_read_only ON: %v", err)
	}
}

// On MySQL 8.0 the whole cycle speaks 8.0's words: SHOW REPLICA STATUS's
// Replica_/Source_ columns, the semisync_source/_replica plugins' names,
// gtid_executed and WAIT_FOR_EXECUTED_GTID_SET.
func TestVerifyAndTeardownMySQL8(t *testing.T) {
	f := newFixture(t, mysql80)
	f.setup(t)
	st, err := f.verify(t, 2*time.Second)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if c := st.Canary; c == nil || !strings.HasPrefix(c.MasterGTID, fakeUUID+":1-") || !c.Slaves[0].Seen || !c.Slaves[1].Seen {
		t.Errorf("canary %+v", st.Canary)
	}
	if m := st.Master.SemiSync; !m.Active || m.Clients == nil || *m.Clients != 2 {
		t.Errorf("master semi-sync %+v", m)
	}
	for _, s := range st.Slaves {
		if r := s.Replica; r == nil || r.IORunning != "Yes" || r.GTIDMode != "AUTO_POSITION" || !s.SemiSync.Active ||
			s.Lag == nil || s.Lag.Transactions == nil || *s.Lag.Transactions != 0 {
			t.Errorf("%s: replica %+v, semi-sync %+v, lag %+v", s.Name, s.Replica, s.SemiSync, s.Lag)
		}
	}
	if _, err := Teardown(context.Background(), f.master, f.slaves, flavor.Params{}, nil); err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	if f.m.vars["rpl_semi_sync_source_enabled"] != "OFF" {
		t.Error("master semi-sync still on")
	}
	for _, s := range f.s {
		if s.replica != nil || s.vars["rpl_semi_sync_replica_enabled"] != "OFF" {
			t.Errorf("%s: replica %+v, semi-sync %s", s.name, s.replica, s.vars["rpl_semi_sync_replica_enabled"])
		}
	}
}
