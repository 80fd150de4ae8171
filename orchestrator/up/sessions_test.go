package up

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// countingCluster is fakeCluster whose MySQL opener counts the pools
// opened per host: a session opened once per command is one pool.
func countingCluster(t *testing.T, file string) (*cluster.Cluster, *fakemaria.Lab, func(host string) int) {
	t.Helper()
	t.Setenv("ORCH_UP_TEST_PW", "up-test-pw")
	t.Setenv(account.EnvStateDir, t.TempDir()) // orch's record key
	inv, err := topology.Load(file, topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	lab := fakemaria.NewLab(inv)
	var mu sync.Mutex
	opens := map[string]int{}
	open := func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
		mu.Lock()
		opens[h.Name]++
		mu.Unlock()
		return lab.OpenDB(ctx, h, ex)
	}
	c := cluster.Connect(context.Background(), inv, inv.DBHosts(), cluster.Options{Dialer: lab.Dial, OpenDB: open})
	t.Cleanup(func() { c.Close() })
	return c, lab, func(host string) int { mu.Lock(); defer mu.Unlock(); return opens[host] }
}

// TestOneSessionPerHostPerCommand: validation, two ups (a matrix's cells)
// and a status on one cluster open each server once; only the first up
// spends time connecting.
func TestOneSessionPerHostPerCommand(t *testing.T) {
	c, _, opens := countingCluster(t, "testdata/lab.yaml")
	ctx := context.Background()
	srv, err := Validate(ctx, c, []server.Desired{{Engine: "innodb"}, {Engine: "innodb", Knobs: []server.KV{{Name: "sync_binlog", Value: "1"}}}})
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	if !strings.HasPrefix(srv.String(), "MariaDB 10.11") {
		t.Errorf("master's server %q", srv)
	}
	var connects []string
	for i := 0; i < 2; i++ {
		rep, err := Up(ctx, c, upOpts())
		if err != nil {
			t.Fatalf("up %d: %v", i+1, err)
		}
		for _, tm := range rep.Timings {
			if strings.HasPrefix(tm.Step, "connect ") {
				connects = append(connects, tm.Host)
			}
		}
	}
	if _, err := Status(ctx, c); err != nil {
		t.Fatal(err)
	}
	if len(connects) != 0 {
		t.Errorf("ups connected again after validate: %v", connects)
	}
	for _, h := range []string{"db1", "db2", "db3"} {
		if n := opens(h); n != 1 {
			t.Errorf("%s opened %d times, want once", h, n)
		}
	}
}

// TestABrokenSessionIsOpenedAgain: a server that crashed between two ups
// breaks its session only: up starts that server and opens it again,
// leaving the others' sessions alone.
func TestABrokenSessionIsOpenedAgain(t *testing.T) {
	c, lab, opens := countingCluster(t, "testdata/lab.yaml")
	ctx := context.Background()
	if _, err := Up(ctx, c, upOpts()); err != nil {
		t.Fatal(err)
	}
	lab.Hosts[2].Crash()
	var mu sync.Mutex
	var heard []string
	opts := upOpts()
	opts.Events = &step.Stream{}
	opts.Events.Subscribe(func(e step.Event) {
		mu.Lock()
		heard = append(heard, e.Host+": "+e.Step)
		mu.Unlock()
	})
	rep, err := Up(ctx, c, opts)
	if err != nil {
		t.Fatalf("second up: %v", err)
	}
	if !lab.Hosts[2].Running() || !slices.Contains(heard, "db3: started the server, which was down") {
		t.Errorf("db3 running %v, heard %v", lab.Hosts[2].Running(), heard)
	}
	if opens("db1") != 1 || opens("db2") != 1 || opens("db3") < 2 {
		t.Errorf("opens: db1 %d, db2 %d, db3 %d", opens("db1"), opens("db2"), opens("db3"))
	}
	if rep.Status == nil || len(rep.Status.Problems()) > 0 {
		t.Errorf("replication after the reopen: %+v", rep.Status)
	}
}

// TestValidateRefusesAKnobBeforeAnyRestart: a knob the server does not have
// fails validation naming it, and no host was restarted.
func TestValidateRefusesAKnobBeforeAnyRestart(t *testing.T) {
	c, lab := fakeCluster(t)
	_, err := Validate(context.Background(), c, []server.Desired{{Engine: "innodb", Knobs: []server.KV{{Name: "no_such_knob", Value: "1"}}}})
	if err == nil || !strings.Contains(err.Error(), "no_such_knob") {
		t.Fatalf("validate: %v", err)
	}
	for _, h := range lab.Hosts {
		for _, cmd := range h.Ran(0) {
			if cmd == fakemaria.StopCmd || cmd == fakemaria.StartCmd || strings.HasPrefix(cmd, "upload ") {
				t.Errorf("%s: %q during validation", h.Short(), cmd)
			}
		}
	}
}

// TestExistingServerKnobsAndPutBack: on an existing server up sets a
// dynamic knob with SET GLOBAL (no file, no restart) and PutBack restores
// its earlier value; a knob only a restart changes is refused.
func TestExistingServerKnobsAndPutBack(t *testing.T) {
	c, lab, opens := countingCluster(t, "testdata/existing.yaml")
	ctx := context.Background()
	d := server.Desired{Knobs: []server.KV{{Name: "binlog_commit_wait_count", Value: "8"}}}
	if _, err := Validate(ctx, c, []server.Desired{d}); err != nil {
		t.Fatalf("validate: %v", err)
	}
	rep, err := Up(ctx, c, Options{Desired: d})
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	db := lab.Hosts[0].Server()
	if db.Var("binlog_commit_wait_count") != "8" || len(rep.Dynamic) != 1 || rep.Dynamic[0].From != "0" {
		t.Errorf("after up: binlog_commit_wait_count %s, dynamic %+v", db.Var("binlog_commit_wait_count"), rep.Dynamic)
	}
	if !slices.Contains(db.Statements(0), "SET GLOBAL binlog_commit_wait_count = 8") {
		t.Errorf("statements: %q", db.Statements(0))
	}
	for _, cmd := range lab.Hosts[0].Ran(0) {
		if cmd == fakemaria.StopCmd || cmd == fakemaria.StartCmd || strings.HasPrefix(cmd, "upload ") {
			t.Errorf("existing server: ran %q", cmd)
		}
	}
	if err := PutBack(ctx, c, rep); err != nil {
		t.Fatal(err)
	}
	if db.Var("binlog_commit_wait_count") != "0" {
		t.Errorf("after put back: binlog_commit_wait_count %s", db.Var("binlog_commit_wait_count"))
	}
	if opens("db1") != 1 {
		t.Errorf("db1 opened %d times", opens("db1"))
	}
	_, err = Validate(ctx, c, []server.Desired{{Knobs: []server.KV{{Name: "log_bin", Value: "ON"}}}})
	if err == nil || !strings.Contains(err.Error(), "log_bin") {
		t.Errorf("a read-only knob on an existing server: %v", err)
	}
}
