package replication

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/server"
)

func TestGetStatusHealthy(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[0].vars["read_only"] = "1"
	f.clearLogs()
	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Problems(); len(p) > 0 {
		t.Fatalf("problems on a healthy cluster: %q", p)
	}
	m := st.Master
	if m.Role != "master" || m.Server != "MariaDB 10.11.19" || m.Version != "10.11.19-MariaDB-fake" || m.DefaultEngine != "InnoDB" {
		t.Errorf("master %+v", m)
	}
	if !m.SemiSync.Active || !m.SemiSync.Enabled || *m.SemiSync.Clients != 2 || m.SemiSync.YesTx == nil {
		t.Errorf("master semi-sync %+v", m.SemiSync)
	}
	for i, s := range st.Slaves {
		r := s.Replica
		if r == nil || r.IORunning != "Yes" || r.SQLRunning != "Yes" || r.MasterHost != "10.0.0.1" || r.User != "repl" || r.GTIDMode != "Slave_Pos" {
			t.Errorf("%s replica %+v", s.Name, r)
		}
		if s.Lag == nil || s.Lag.Seconds == nil || *s.Lag.Seconds != 0 || s.Lag.Transactions == nil || *s.Lag.Transactions != 0 {
			t.Errorf("%s lag %+v", s.Name, s.Lag)
		}
		if !s.SemiSync.Active || *s.ReadOnly != (i == 0) {
			t.Errorf("%s semi-sync %+v, read_only %v", s.Name, s.SemiSync, *s.ReadOnly)
		}
	}
	for _, s := range f.c.servers {
		if c := changes(f.logOf(s)); len(c) > 0 {
			t.Errorf("GetStatus changed %s: %q", s.name, c)
		}
	}

	js, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back Status
	if err := json.Unmarshal(js, &back); err != nil || back.Slaves[1].Replica.IORunning != "Yes" || *back.Master.SemiSync.Clients != 2 {
		t.Fatalf("JSON round trip: %v\n%s", err, js)
	}
	var b bytes.Buffer
	if err := WriteTable(&b, st); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "HOST") {
		t.Fatalf("table:\n%s", b.String())
	}
	for i, want := range [][]string{
		{"master 10.0.0.1", "master", "MariaDB 10.11.19", "innodb", "no", "-", "-", "ON", "2", "0", "0", "-", "-", "ok"},
		{"slave1 10.0.0.2", "slave", "MariaDB 10.11.19", "innodb", "yes", "Yes", "Yes", "ON", "-", "-", "-", "0", "0", "ok"},
	} {
		if got := splitColumns(lines[i+1]); !slices.Equal(got, want) {
			t.Errorf("table row %d = %q, want %q", i+1, got, want)
		}
	}
}

// splitColumns splits a table row at runs of two or more spaces.
func splitColumns(line string) []string {
	var out []string
	for _, f := range strings.Split(line, "  ") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// The lab-notes trap: a slave cut off from its master says
// Seconds_Behind_Master 0; only the GTID gap shows it is behind.
func TestGetStatusGTIDLagWhereSecondsSayZero(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].frozen = true
	for i := 0; i < 5; i++ {
		if _, err := f.master.DB.Exec("INSERT INTO orch.canary (token, at) VALUES ('t" + string(rune('a'+i)) + "', NOW(6))"); err != nil {
			t.Fatal(err)
		}
	}
	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil {
		t.Fatal(err)
	}
	s2 := st.Slaves[1]
	if *s2.Lag.Seconds != 0 || *s2.Lag.Transactions != 5 {
		t.Errorf("slave2 lag %d s, %d transactions; want 0 s (what the server says) and 5", *s2.Lag.Seconds, *s2.Lag.Transactions)
	}
	if *st.Slaves[0].Lag.Transactions != 0 {
		t.Errorf("slave1 lag %d transactions", *st.Slaves[0].Lag.Transactions)
	}
}

func TestGetStatusUnconfigured(t *testing.T) {
	f := newFixture(t, mariadb)
	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil {
		t.Fatalf("GetStatus: %v (problems belong in the status)", err)
	}
	want := []string{
		"master 10.0.0.1: semi-sync not active (Rpl_semi_sync_master_status=OFF, enabled=OFF)",
		"master 10.0.0.1: semi-sync clients 0, want 2",
		"slave1 10.0.0.2: not replicating (SHOW SLAVE STATUS is empty)",
		"slave2 10.0.0.3: not replicating (SHOW SLAVE STATUS is empty)",
	}
	if got := st.Problems(); !slices.Equal(got, want) {
		t.Errorf("problems\n%q\nwant\n%q", got, want)
	}
	if st.Err() == nil || st.Slaves[0].Lag != nil {
		t.Errorf("Err %v, slave1 lag %+v", st.Err(), st.Slaves[0].Lag)
	}
}

func TestGetStatusUnreachableHost(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[0].unreachable = true
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	st, err := GetStatus(ctx, f.master, f.slaves)
	if err == nil || !strings.HasPrefix(err.Error(), "slave1 10.0.0.2: server facts: no answer within") || strings.Contains(err.Error(), "slave2") {
		t.Fatalf("error: %v", err)
	}
	if st.Slaves[1].Replica == nil || st.Master.SemiSync == nil {
		t.Errorf("the reachable hosts were not read: %+v", st)
	}
	// Nodes the coordinator could not connect stay in the report.
	st, err = GetStatus(context.Background(), f.master, []*server.Node{{Host: f.slaves[0].Host}, f.slaves[1]})
	if err == nil || st.Slaves[0].Error != "not connected to its database" || st.Slaves[1].Error != "" {
		t.Fatalf("err %v, slaves %+v", err, st.Slaves)
	}
}

func TestGetStatusDetectsFlavour(t *testing.T) {
	f := newFixture(t, mariadb)
	f.slaves[0].Server.Flavor = "" // not detected by the caller
	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil || st.Slaves[0].Server != "MariaDB 10.11.19" {
		t.Fatalf("err %v, server %q", err, st.Slaves[0].Server)
	}
	// Problems are spelled in the detected flavour's words.
	if p := st.Problems(); !slices.Contains(p, "slave1 10.0.0.2: not replicating (SHOW SLAVE STATUS is empty)") {
		t.Errorf("problems %q", p)
	}
}

func TestStatusWrongMaster(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	f.s[1].replica.host = "10.0.0.1"
	f.s[1].replica.port = 3307
	st, _ := GetStatus(context.Background(), f.master, f.slaves)
	if !slices.Contains(st.Problems(), "slave2 10.0.0.3: replicates from 10.0.0.1:3307, want 10.0.0.1:3306") {
		t.Errorf("problems %q", st.Problems())
	}
}

func TestGetStatusCancelledNamesEveryHost(t *testing.T) {
	f := newFixture(t, mariadb)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st, err := GetStatus(ctx, f.master, f.slaves)
	if err == nil {
		t.Fatal("no error with a cancelled context")
	}
	for _, h := range append([]HostStatus{st.Master}, st.Slaves...) {
		if h.Name == "" || h.Address == "" || h.Error == "" {
			t.Errorf("host reported without name or error: %+v", h)
		}
	}
}

// TestGetStatusErrantWriteOnASlave: a transaction written on a slave
// itself (an errant write, binlogged with the slave's server_id) moves the
// slave's own binary log, not what it has applied from the master. A
// slave's position is MariaDB's gtid_slave_pos ("the GTID of the last
// transaction applied to the database by the server's replica threads",
// MariaDB's GTID page); gtid_current_pos would take the slave's own write
// for the latest and show 0-<slave's server_id>-N+1, unlike the master's.
func TestGetStatusErrantWriteOnASlave(t *testing.T) {
	f := newFixture(t, mariadb)
	f.setup(t)
	s := f.s[1]
	f.c.mu.Lock()
	f.m.seq += 5 // the master's transactions, which both slaves apply
	f.m.ownSeq = f.m.seq
	f.c.sync()
	s.seq++
	s.ownSeq, s.localWrites = s.seq, s.localWrites+1
	f.c.mu.Unlock()
	st, err := GetStatus(context.Background(), f.master, f.slaves)
	if err != nil {
		t.Fatal(err)
	}
	m, sl := st.Master.GTIDPosition, st.Slaves[1]
	if m == "" || sl.GTIDPosition != m {
		t.Errorf("slave2 after a write of its own: position %q, want what it applied from the master, %q", sl.GTIDPosition, m)
	}
	if sl.Lag == nil || sl.Lag.Transactions == nil || *sl.Lag.Transactions != 0 {
		t.Errorf("slave2 lag %+v: it has applied everything the master wrote", sl.Lag)
	}
}
