package up

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// fakeCluster is the cluster of a fresh simulated lab, connected.
func fakeCluster(t *testing.T) (*cluster.Cluster, *fakemaria.Lab) {
	t.Helper()
	t.Setenv("ORCH_UP_TEST_PW", "up-test-pw")
	t.Setenv(account.EnvStateDir, t.TempDir()) // orch's record key
	inv, err := topology.Load("testdata/lab.yaml", topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	lab := fakemaria.NewLab(inv)
	c := cluster.Connect(context.Background(), inv, inv.DBHosts(), cluster.Options{Dialer: lab.Dial, OpenDB: lab.OpenDB})
	t.Cleanup(func() { c.Close() })
	return c, lab
}

func upOpts() Options {
	return Options{Desired: server.Desired{Engine: "innodb"}, VerifyTimeout: 5 * time.Second}
}

func hasPrefix(list []string, prefix string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// TestUpOnAFreshCluster: up on three stock MariaDB servers writes orch's file
// on each, restarts them (log_bin and report_host only change at start),
// wires semi-sync GTID replication and proves it with the canary. The
// statements checked are MariaDB's own spellings (CHANGE MASTER TO with
// MASTER_USE_GTID, built-in semi-sync variables), from its manual.
func TestUpOnAFreshCluster(t *testing.T) {
	c, lab := fakeCluster(t)
	rep, err := Up(context.Background(), c, upOpts())
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	for _, h := range lab.Hosts {
		cnf, _ := h.File(fakemaria.ConfDir + "/99-orch.cnf")
		if !strings.Contains(cnf, "innodb_buffer_pool_size = 256M") || !strings.Contains(cnf, "log_bin") {
			t.Errorf("%s: orch's file:\n%s", h.Short(), cnf)
		}
		if !h.Running() || h.Server().Var("log_bin") != "ON" || h.Server().Var("innodb_buffer_pool_size") != "268435456" {
			t.Errorf("%s: running %v, log_bin %s, buffer pool %s", h.Short(), h.Running(), h.Server().Var("log_bin"), h.Server().Var("innodb_buffer_pool_size"))
		}
	}
	for _, r := range rep.Hosts {
		if !r.Restarted {
			t.Errorf("%s not restarted for log_bin", r.Host)
		}
	}
	// The master's semi-sync comes from orch's file (the restart applied
	// it), so replication setup finds it set and only creates the account.
	m := lab.Hosts[0].Server()
	if m.Var("rpl_semi_sync_master_enabled") != "ON" || m.Var("rpl_semi_sync_master_wait_point") != "AFTER_SYNC" {
		t.Errorf("master semi-sync: enabled %s, wait point %s", m.Var("rpl_semi_sync_master_enabled"), m.Var("rpl_semi_sync_master_wait_point"))
	}
	if !hasPrefix(m.Statements(0), "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'") || !m.HasUser("repl", "%") {
		t.Errorf("master: no replication account")
	}
	for _, h := range lab.Hosts[1:] {
		st := h.Server().Statements(0)
		for _, want := range []string{"CHANGE MASTER TO MASTER_HOST = '192.0.2.11', MASTER_PORT = 3306, MASTER_USER = 'repl'",
			"SET GLOBAL rpl_semi_sync_slave_enabled = ON", "START SLAVE"} {
			if !hasPrefix(st, want) {
				t.Errorf("%s: no %q", h.Short(), want)
			}
		}
		if h.Server().Canaries() != 1 {
			t.Errorf("%s: canary rows %v", h.Short(), h.Server().Canaries())
		}
	}
	if rep.Status == nil || len(rep.Status.Problems()) > 0 {
		t.Errorf("status problems: %v", rep.Status)
	}

	// Again: nothing restarts, replication is left alone.
	marks := map[*fakemaria.Host][2]int{}
	for _, h := range lab.Hosts {
		marks[h] = [2]int{h.Commands(), h.Server().StatementCount()}
	}
	rep, err = Up(context.Background(), c, upOpts())
	if err != nil {
		t.Fatalf("second up: %v", err)
	}
	for _, h := range lab.Hosts {
		for _, cmd := range h.Ran(marks[h][0]) {
			if cmd == fakemaria.StopCmd || cmd == fakemaria.StartCmd || strings.HasPrefix(cmd, "upload ") {
				t.Errorf("%s: second up ran %q", h.Short(), cmd)
			}
		}
		for _, q := range h.Server().Statements(marks[h][1]) {
			for _, verb := range []string{"CHANGE MASTER", "STOP SLAVE", "START SLAVE", "RESET", "SET GLOBAL"} {
				if strings.HasPrefix(q, verb) {
					t.Errorf("%s: second up sent %q", h.Short(), q)
				}
			}
		}
	}
}

// TestUpRollsBackAHostThatWillNotStart: a slave whose server refuses the new
// config is rolled back (previous file, server running); the error names it
// and says where every host was left; the other hosts, which took the new
// config, are put back on their previous one too (the review's up left
// them on a config that had locked people out).
func TestUpRollsBackAHostThatWillNotStart(t *testing.T) {
	c, lab := fakeCluster(t)
	bad := lab.Hosts[2]
	bad.RefuseOption("report_host")
	_, err := Up(context.Background(), c, upOpts())
	if err == nil {
		t.Fatal("up succeeded with a server that cannot start")
	}
	msg := err.Error()
	for _, want := range []string{
		"db3 192.0.2.13: server did not start with the new config: [ERROR] /usr/sbin/mariadbd: unknown variable 'report_host=192.0.2.13' (restored the previous config)",
		"db1 192.0.2.11: written, rolled back: runs its previous config",
		"db2 192.0.2.12: written, rolled back: runs its previous config",
		"db3 192.0.2.13: written, rolled back: runs its previous config",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, h := range lab.Hosts[:3] {
		if _, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); ok || !h.Running() {
			t.Errorf("%s: orch's file left %v, running %v", h.Name(), ok, h.Running())
		}
	}
	if hasPrefix(lab.Hosts[1].Server().Statements(0), "CHANGE MASTER") {
		t.Error("replication was set up although a host failed")
	}
}

// TestUpCanaryNotApplied: a slave whose threads both say Yes but whose
// applier applies nothing (blocked, as on a lock) fails up's proof: the
// server-side GTID wait times out (MariaDB's MASTER_GTID_WAIT answers -1)
// and the error names the slave and how far behind it is, while the slave
// that applies passes.
func TestUpCanaryNotApplied(t *testing.T) {
	c, lab := fakeCluster(t)
	lab.Hosts[2].Server().StallApplier()
	_, err := Up(context.Background(), c, upOpts())
	if err == nil {
		t.Fatal("up proved replication through a slave that applies nothing")
	}
	msg := err.Error()
	for _, want := range []string{"db3 192.0.2.13", "canary not applied within", "transactions behind"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "db2 192.0.2.12: canary") {
		t.Errorf("the applying slave db2 failed too:\n%s", msg)
	}
	if lab.Hosts[1].Server().Canaries() != 1 || lab.Hosts[2].Server().Canaries() != 0 {
		t.Errorf("canary rows: db2 %d, db3 %d; want 1 and 0", lab.Hosts[1].Server().Canaries(), lab.Hosts[2].Server().Canaries())
	}
	// An up that fails after the restarts puts every server back on its
	// previous config, and orch still logs in everywhere.
	if !strings.Contains(msg, "the previous config was put back on every host it had changed:\n  db1 192.0.2.11: written, rolled back: runs its previous config") {
		t.Errorf("error does not say the config was put back:\n%s", msg)
	}
	for _, h := range lab.Hosts[:3] {
		if _, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); ok || !h.Running() {
			t.Errorf("%s: orch's file left %v, running %v", h.Name(), ok, h.Running())
		}
	}
}

// TestUpWrongPasswordStartsNothing: a server that refuses orch's login is
// running; up fails naming it, without a start command on any host.
func TestUpWrongPasswordStartsNothing(t *testing.T) {
	c, lab := fakeCluster(t)
	lab.Hosts[1].Server().RefuseLogins()
	start := time.Now()
	_, err := Up(context.Background(), c, upOpts())
	if err == nil || !strings.Contains(err.Error(), "db2 192.0.2.12") || !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("err %v", err)
	}
	for _, h := range lab.Hosts {
		for _, cmd := range h.Ran(0) {
			if cmd == fakemaria.StartCmd || cmd == fakemaria.StopCmd {
				t.Errorf("%s: ran %q", h.Short(), cmd)
			}
		}
	}
	t.Logf("failed in %s", time.Since(start))
}

// TestUpStartsAStoppedServer: a server left stopped (its service says so) is
// started, then configured like the others.
func TestUpStartsAStoppedServer(t *testing.T) {
	c, lab := fakeCluster(t)
	var mu sync.Mutex
	var heard []string
	opts := upOpts()
	opts.Events = &step.Stream{}
	opts.Events.Subscribe(func(e step.Event) {
		mu.Lock()
		heard = append(heard, e.Host+": "+e.Step)
		mu.Unlock()
	})
	lab.Hosts[1].Crash()
	if _, err := Up(context.Background(), c, opts); err != nil {
		t.Fatalf("up: %v", err)
	}
	if !lab.Hosts[1].Running() || !slices.Contains(heard, "db2: started the server, which was down") {
		t.Errorf("db2 not started: %v", heard)
	}
}

// TestStatusAndDown: status after up reports a healthy cluster and what orch
// laid down; down takes replication and orch's file away again.
func TestStatusAndDown(t *testing.T) {
	c, lab := fakeCluster(t)
	if _, err := Up(context.Background(), c, upOpts()); err != nil {
		t.Fatal(err)
	}
	st, err := Status(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Problems()) > 0 || st.Applied["db2"].Profile == "" {
		t.Errorf("status: problems %v, applied %+v", st.Problems(), st.Applied)
	}
	var b strings.Builder
	WriteApplied(&b, c.Inventory.DBHosts(), st.Applied)
	if !strings.Contains(b.String(), "db1: profile innodb") {
		t.Errorf("applied:\n%s", b.String())
	}
	if _, err := Down(context.Background(), c, nil); err != nil {
		t.Fatalf("down: %v", err)
	}
	for _, h := range lab.Hosts {
		if _, ok := h.File(fakemaria.ConfDir + "/99-orch.cnf"); ok || h.Server().Replicating() || !h.Running() {
			t.Errorf("%s after down: file %v, replica %v, running %v", h.Short(), ok, h.Server().Replicating(), h.Running())
		}
	}
}
