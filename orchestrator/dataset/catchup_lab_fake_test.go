package dataset

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// gtidLab is three simulated MariaDB 10.11 hosts (fakemaria) set up as a
// DBA would: binary logs on, db2 and db3 replicating from db1 by GTID,
// then the master writes three transactions, which both slaves apply.
func gtidLab(t *testing.T) (*fakemaria.Lab, *server.Node, []*server.Node) {
	t.Helper()
	inv := &topology.Inventory{Hosts: []*topology.Host{
		{Name: "db1", Role: topology.RoleMaster, Address: "192.0.2.21"},
		{Name: "db2", Role: topology.RoleSlave, Address: "192.0.2.22"},
		{Name: "db3", Role: topology.RoleSlave, Address: "192.0.2.23"},
	}}
	lab := fakemaria.NewLab(inv)
	ctx := context.Background()
	var nodes []*server.Node
	for i, h := range inv.Hosts {
		ex, err := lab.Dial(ctx, h, executor.DialConfig{})
		if err != nil {
			t.Fatal(err)
		}
		cnf := fmt.Sprintf("[mysqld]\nserver_id = %d\nlog_bin = mysql-bin\n", i+1)
		if err := ex.Upload(ctx, strings.NewReader(cnf), fakemaria.ConfDir+"/60-replication.cnf", 0o644, true); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{fakemaria.StopCmd, fakemaria.StartCmd} {
			if _, err := ex.Run(ctx, executor.Command{Script: cmd, Sudo: true}); err != nil {
				t.Fatal(err)
			}
		}
		db, err := lab.OpenDB(ctx, h, ex)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		nodes = append(nodes, &server.Node{Host: h, DB: db, Server: flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 19)}})
	}
	for _, n := range nodes[1:] {
		execAll(t, n, "CHANGE MASTER TO MASTER_HOST = '192.0.2.21', MASTER_PORT = 3306, MASTER_USER = 'repl', "+
			"MASTER_PASSWORD = 'secret', MASTER_CONNECT_RETRY = 10, MASTER_USE_GTID = slave_pos", "START SLAVE")
	}
	execAll(t, nodes[0], "CREATE DATABASE IF NOT EXISTS `sbtest`",
		"CREATE TABLE IF NOT EXISTS `sbtest`.`t1` (a INT PRIMARY KEY, b INT)",
		"INSERT IGNORE INTO `sbtest`.`t1` (a, b) VALUES ('1', '1')")
	return lab, nodes[0], nodes[1:]
}

func execAll(t *testing.T, n *server.Node, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := n.DB.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %s: %v", n, q, err)
		}
	}
}

// Slaves that have applied the master's position are caught up at the
// first read, with nothing behind and their catch-up counted from now.
func TestWaitCaughtUpCaughtUp(t *testing.T) {
	_, master, slaves := gtidLab(t)
	cu, err := WaitCaughtUp(context.Background(), master, slaves, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if cu.MasterGTID != "0-1-3" || cu.LoadEnd == nil || len(cu.Slaves) != 2 {
		t.Fatalf("catch-up %+v", cu)
	}
	for i, s := range cu.Slaves {
		if s.Host != slaves[i].String() || !s.CaughtUp || s.Error != "" || s.BehindAtWaitTx == nil || *s.BehindAtWaitTx != 0 ||
			s.CatchUpNs == nil || s.Applied != "" || s.Behind != nil {
			t.Errorf("slave %d: %+v", i+1, s)
		}
	}
}

// A slave whose applier is stuck (both threads still say Yes) is waited
// for until the timeout; the error names it and says how far behind it
// is, read from the servers; the slave that applied everything is fine.
func TestWaitCaughtUpStuckSlave(t *testing.T) {
	lab, master, slaves := gtidLab(t)
	lab.Hosts[2].Server().StallApplier()
	execAll(t, master, "INSERT IGNORE INTO `sbtest`.`t1` (a, b) VALUES ('2', '2')",
		"INSERT IGNORE INTO `sbtest`.`t1` (a, b) VALUES ('3', '3')")
	loadEnd := time.Now().Add(-time.Second)
	cu, err := WaitCaughtUpSince(context.Background(), master, slaves, loadEnd, 300*time.Millisecond)
	if err == nil {
		t.Fatal("a stuck slave caught up")
	}
	msg := err.Error()
	if miss := containsAll(msg, "db3 192.0.2.23", "0-1-5", "300ms", "applied 0-1-3", "2 transactions behind"); miss != "" || strings.Contains(msg, "db2") {
		t.Errorf("error %q (lacks %q, or names db2)", msg, miss)
	}
	if cu == nil || cu.MasterGTID != "0-1-5" || len(cu.Slaves) != 2 {
		t.Fatalf("catch-up %+v", cu)
	}
	ok, stuck := cu.Slaves[0], cu.Slaves[1]
	if !ok.CaughtUp || ok.CatchUpNs == nil || *ok.CatchUpNs < time.Second {
		t.Errorf("db2: %+v, want caught up, timed from the load's end", ok)
	}
	if stuck.CaughtUp || stuck.CatchUpNs != nil || stuck.BehindAtWaitTx != nil || stuck.Applied != "0-1-3" ||
		stuck.Behind == nil || *stuck.Behind != 2 || !strings.HasPrefix(stuck.Error, "db3 192.0.2.23: ") ||
		!strings.Contains(msg, stuck.Error) {
		t.Errorf("db3: %+v", stuck)
	}
}

// One transaction behind is said in the singular.
func TestWaitCaughtUpOneBehind(t *testing.T) {
	lab, master, slaves := gtidLab(t)
	lab.Hosts[1].Server().StallApplier()
	execAll(t, master, "INSERT IGNORE INTO `sbtest`.`t1` (a, b) VALUES ('2', '2')")
	_, err := WaitCaughtUp(context.Background(), master, slaves[:1], 100*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "1 transaction behind the master") {
		t.Errorf("error %v", err)
	}
}

// Servers that cannot be read: a master is fatal and named; a slave is
// named, with no lag claimed for it; bad arguments ask no server.
func TestWaitCaughtUpFailures(t *testing.T) {
	ctx := context.Background()
	lab, master, slaves := gtidLab(t)
	lab.Hosts[2].Crash()
	cu, err := WaitCaughtUp(ctx, master, slaves, time.Minute)
	if err == nil || containsAll(err.Error(), "db3 192.0.2.23", "connection refused") != "" || strings.Contains(err.Error(), "db2") {
		t.Fatalf("slave down: %v", err)
	}
	if s := cu.Slaves[1]; s.CaughtUp || s.Applied != "" || s.Behind != nil || s.Error == "" || !cu.Slaves[0].CaughtUp {
		t.Errorf("slave down: %+v", cu.Slaves)
	}

	asked := lab.Hosts[0].Server().StatementCount()
	for _, c := range []struct {
		master  *server.Node
		slaves  []*server.Node
		timeout time.Duration
		want    string
	}{
		{master, slaves, 0, "timeout"},
		{master, slaves, -time.Second, "timeout"},
		{nil, slaves, time.Minute, "master"},
		{master, []*server.Node{slaves[0], {Host: slaves[1].Host}}, time.Minute, "slave 2"},
	} {
		if cu, err := WaitCaughtUp(ctx, c.master, c.slaves, c.timeout); err == nil || cu != nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error about the %s, got %+v %v", c.want, cu, err)
		}
	}
	if n := lab.Hosts[0].Server().StatementCount(); n != asked {
		t.Errorf("the master was asked %d statements for invalid arguments", n-asked)
	}

	lab.Hosts[0].Crash()
	cu, err = WaitCaughtUp(ctx, master, slaves[:1], time.Minute)
	if cu != nil || err == nil || containsAll(err.Error(), "db1 192.0.2.21", "connection refused") != "" {
		t.Errorf("master down: %+v %v", cu, err)
	}
}
