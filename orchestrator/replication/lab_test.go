package replication

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"

	"github.com/orch-bench/orch/orchestrator/labenv"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// params maps the inventory's replication settings the way orch up does.
func (l *labCluster) params(t *testing.T) flavor.Params {
	t.Helper()
	pw, err := l.inv.Replication.Password.Resolve()
	if err != nil || pw == "" {
		t.Fatalf("replication password: %v", err)
	}
	r := l.inv.Replication
	return flavor.Params{ReplUser: r.User, ReplPassword: pw, SemiSyncTimeoutMS: r.SemiSync.TimeoutMs,
		WaitPoint: r.SemiSync.WaitPoint, WaitForReplicaCount: r.SemiSync.WaitForSlaveCount, Fresh: true}
}

// labParams is enough for Teardown, which needs no password.
func labParams() flavor.Params { return flavor.Params{ReplUser: topology.DefaultReplUser} }

var replicationChange = regexp.MustCompile(`: (STOP|START|RESET|CHANGE) `)

// TestLabReplication walks the life of a cluster on the lab: set up,
// verify, set up again without touching replication, catch up after a
// burst of writes, survive a cut link, tear down. The steps share state,
// so they run in order and stop at the first failure.
func TestLabReplication(t *testing.T) {
	l := needLab(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := l.params(t)

	res, err := Setup(ctx, l.master, l.slaves, p, nil)
	logResult(t, "setup", res)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if !res.Changed() {
		t.Fatal("first Setup changed nothing")
	}
	st, err := Verify(ctx, l.master, l.slaves, 30*time.Second)
	logStatus(t, "verify after setup", st)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if *st.Master.SemiSync.Clients != 2 || !st.Canary.Slaves[0].Seen || !st.Canary.Slaves[1].Seen {
		t.Fatalf("clients %d, canary %+v", *st.Master.SemiSync.Clients, st.Canary)
	}

	// Again, nothing changed: no replication statement, no reconnect.
	before := l.connectionFacts(t)
	res, err = Setup(ctx, l.master, l.slaves, p, nil)
	logResult(t, "setup again", res)
	if err != nil {
		t.Fatalf("second Setup: %v", err)
	}
	if res.Changed() {
		t.Fatalf("second Setup changed the cluster:\n%s", strings.Join(res.Executed(), "\n"))
	}
	for _, q := range res.Executed() {
		if replicationChange.MatchString(q) {
			t.Errorf("second Setup ran %q", q)
		}
	}
	if after := l.connectionFacts(t); after != before {
		t.Errorf("replication was restarted by the second Setup:\nbefore:\n%safter:\n%s", before, after)
	}
	st, err = GetStatus(ctx, l.master, l.slaves)
	logStatus(t, "status", st)
	if err != nil || st.Err() != nil {
		t.Fatalf("GetStatus: %v / %v", err, st.Err())
	}
	for _, s := range st.Slaves {
		if s.Lag == nil || s.Lag.Transactions == nil || *s.Lag.Transactions != 0 {
			t.Errorf("%s lag %+v, want 0 transactions", s.Name, s.Lag)
		}
	}

	t.Run("semi-sync repair", func(t *testing.T) { labSemiSyncRepair(t, l, p) })
	t.Run("catch up", func(t *testing.T) { labCatchUp(t, l) })
	t.Run("partition", func(t *testing.T) { labPartition(t, l) })
	t.Run("link down", func(t *testing.T) { labLinkDown(t, l) })

	res, err = Teardown(ctx, l.master, l.slaves, p, nil)
	logResult(t, "teardown", res)
	if err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	st, err = GetStatus(ctx, l.master, l.slaves)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range append([]HostStatus{st.Master}, st.Slaves...) {
		if h.Replica != nil || h.SemiSync.Enabled || h.SemiSync.Active {
			t.Errorf("%s after teardown: replica %+v, semi-sync %+v", h.Name, h.Replica, h.SemiSync)
		}
	}
	if n := labValue(t, l.master.DB, "SELECT COUNT(*) FROM mysql.user WHERE User = "+flavor.QuoteString(p.ReplUser)); n != "0" {
		t.Errorf("%s replication accounts left", n)
	}
	if res, err = Teardown(ctx, l.master, l.slaves, p, nil); err != nil || res.Changed() {
		t.Errorf("second Teardown: %v, changed %v", err, res.Changed())
	}
}

// labSemiSyncRepair: a slave that lost its semi-sync registration (as after
// a restart without the setting) gets it back without a reset.
func labSemiSyncRepair(t *testing.T, l *labCluster, p flavor.Params) {
	labExec(t, l.slaves[0].DB, "SET GLOBAL rpl_semi_sync_slave_enabled = OFF", "STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD")
	res, err := Setup(context.Background(), l.master, l.slaves, p, nil)
	logResult(t, "setup repairing slave1", res)
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := stepsOf(res, "slave1"), stepsOf(res, "slave2")
	if s1[StepReplicaSemiSync].Action != step.Applied || s2[StepReplica].Action != step.Skipped {
		t.Fatalf("slave1 %+v, slave2 %+v", s1, s2)
	}
	for _, q := range res.Executed() {
		if strings.Contains(q, "RESET") || strings.Contains(q, "CHANGE") {
			t.Errorf("repair ran %q", q)
		}
	}
	if _, err := Verify(context.Background(), l.master, l.slaves, 30*time.Second); err != nil {
		t.Fatalf("Verify after repair: %v", err)
	}
}

// labCatchUp writes 1000 rows in 100 transactions and proves by GTID and
// by checksum that both slaves have them.
func labCatchUp(t *testing.T, l *labCluster) {
	labExec(t, l.master.DB, "CREATE DATABASE IF NOT EXISTS orch_labtest",
		"CREATE TABLE orch_labtest.t (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB")
	start := time.Now()
	for tx := 0; tx < 100; tx++ {
		var vals []string
		for r := 0; r < 10; r++ {
			id := tx*10 + r
			vals = append(vals, fmt.Sprintf("(%d, 'row %d')", id, id))
		}
		labExec(t, l.master.DB, "INSERT INTO orch_labtest.t VALUES "+strings.Join(vals, ", "))
	}
	t.Logf("1000 rows in 100 semi-sync transactions: %s", time.Since(start).Round(time.Millisecond))
	st, err := Verify(context.Background(), l.master, l.slaves, 60*time.Second)
	logStatus(t, "verify after 1000 rows", st)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	want := labChecksum(t, l.master)
	for _, n := range l.slaves {
		if c := labValue(t, n.DB, "SELECT COUNT(*) FROM orch_labtest.t"); c != "1000" {
			t.Errorf("%s has %s rows", n, c)
		}
		if got := labChecksum(t, n); got != want {
			t.Errorf("%s checksum %s, master %s", n, got, want)
		}
	}
}

func labChecksum(t *testing.T, n *server.Node) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := query(ctx, n.DB, "CHECKSUM TABLE orch_labtest.t")
	if err != nil || len(tab.rows) != 1 {
		t.Fatalf("%s: checksum: %v", n, err)
	}
	return tab.rows[0][1].String
}

// labLinkDown cuts slave2 off (from the master and from this machine):
// Verify must fail naming slave2 within its timeout while the master still
// answers, and pass again once the link is back.
func labLinkDown(t *testing.T, l *labCluster) {
	l.stateDir = labenv.StateDir(t)
	l.fault(t, "slave2", "link-down")
	restored := false
	defer func() {
		if !restored {
			l.fault(t, "slave2", "link-up")
		}
	}()
	const timeout = 8 * time.Second
	start := time.Now()
	st, err := Verify(context.Background(), l.master, l.slaves, timeout)
	elapsed := time.Since(start)
	logStatus(t, "verify with slave2 cut off", st)
	t.Logf("Verify failed after %s (timeout %s):\n%v", elapsed.Round(time.Millisecond), timeout, err)
	if err == nil {
		t.Fatal("Verify passed with slave2 cut off")
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		if !strings.HasPrefix(line, "slave2 ") {
			t.Errorf("a problem not about slave2: %q", line)
		}
	}
	if st.Master.Error != "" || st.Master.SemiSync == nil {
		t.Errorf("master did not report while slave2 was cut off: %q", st.Master.Error)
	}
	// Liveness, not speed: Verify must end on its own, near its timeout.
	if elapsed > timeout+minCanaryBudget+canaryGrace+5*time.Second {
		t.Errorf("Verify took %s with a %s timeout", elapsed, timeout)
	}

	l.fault(t, "slave2", "link-up")
	restored = true
	st, err = Verify(context.Background(), l.master, l.slaves, 90*time.Second)
	logStatus(t, "verify after link-up", st)
	if err != nil {
		t.Fatalf("Verify after link-up: %v", err)
	}
}

// labPartition cuts slave2 from the master only (blackhole routes on both,
// each to the other; this machine still reaches both): every status flag
// stays green (IO thread Yes, Seconds_Behind 0, the master still counts
// two clients); only the canary and the GTID gap show that slave2 has
// stopped receiving.
func labPartition(t *testing.T, l *labCluster) {
	blackhole := func(verb string) {
		t.Helper()
		for _, e := range []struct {
			ex executor.Executor
			to string
		}{{l.exs[0], l.slaves[1].Host.Address}, {l.exs[2], l.master.Host.Address}} {
			cmd := executor.Command{Script: shell.Join("ip", "route", verb, "blackhole", e.to+"/32"), Timeout: 10 * time.Second}
			if _, err := e.ex.Run(context.Background(), cmd); err != nil {
				t.Errorf("route %s: %v", verb, err)
			}
		}
	}
	blackhole("add")
	restored := false
	defer func() {
		if !restored {
			blackhole("del")
		}
	}()
	const timeout = 8 * time.Second
	st, err := Verify(context.Background(), l.master, l.slaves, timeout)
	logStatus(t, "verify with slave2 partitioned from the master", st)
	t.Logf("Verify: %v", err)
	want := regexp.MustCompile(`^slave2 \S+: canary not applied within \d+s: applied "[0-9-]+", master at "[0-9-]+" \(\d+ transactions behind\)$`)
	if err == nil || !want.MatchString(err.Error()) {
		t.Fatalf("error %v, want it to match %s", err, want)
	}
	st, err = GetStatus(context.Background(), l.master, l.slaves)
	logStatus(t, "status while partitioned", st)
	if err != nil {
		t.Fatal(err)
	}
	if lag := st.Slaves[1].Lag; lag == nil || lag.Transactions == nil || *lag.Transactions < 1 {
		t.Errorf("slave2 lag %+v: want the canary's transaction missing", lag)
	} else {
		t.Logf("slave2 while partitioned: Seconds_Behind_Master %s, %d transactions behind", optInt(lag.Seconds), *lag.Transactions)
	}

	blackhole("del")
	restored = true
	if st, err = Verify(context.Background(), l.master, l.slaves, 90*time.Second); err != nil {
		logStatus(t, "verify after the partition healed", st)
		t.Fatalf("Verify after the partition healed: %v", err)
	}
}

func logResult(t *testing.T, what string, r *Result) {
	t.Helper()
	if r == nil {
		return
	}
	var b bytes.Buffer
	r.WriteTo(&b)
	t.Logf("%s in %s:\n%s", what, r.Duration.Round(time.Millisecond), b.String())
}

func logStatus(t *testing.T, what string, st *Status) {
	t.Helper()
	if st == nil {
		return
	}
	var b bytes.Buffer
	WriteTable(&b, st)
	t.Logf("%s:\n%s", what, b.String())
}
