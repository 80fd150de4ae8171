package cluster

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

type kept struct {
	mu    sync.Mutex
	hosts []string
}

func (k *kept) Record(r executor.Record) {
	k.mu.Lock()
	k.hosts = append(k.hosts, r.Host+" "+r.Text)
	k.mu.Unlock()
}

// TestLogCommandsFollowsTheCommand: the executors a cluster dials record
// on whatever log is set when they send, and the previous log comes back.
func TestLogCommandsFollowsTheCommand(t *testing.T) {
	hosts := []*topology.Host{{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1"}}
	inv := &topology.Inventory{Hosts: hosts}
	dial := func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		return executor.NewLocal(h.Name), nil
	}
	var opened executor.Executor
	open := func(_ context.Context, _ *topology.Host, ex executor.Executor) (*sql.DB, error) {
		opened = ex
		return nil, errors.New("no server here")
	}
	c := Connect(context.Background(), inv, hosts, Options{Dialer: dial, OpenDB: open})
	defer c.Close()
	ex, err := c.Executor(hosts[0])
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) {
		if _, err := ex.Run(context.Background(), executor.Command{Script: script}); err != nil {
			t.Fatal(err)
		}
	}
	run("echo before")
	outer, inner := &kept{}, &kept{}
	restoreOuter := c.LogCommands(outer)
	run("echo up")
	restoreInner := c.LogCommands(inner)
	run("echo run")
	restoreInner()
	run("echo after")
	if _, err := c.Local("control").Run(context.Background(), executor.Command{Script: "echo here"}); err != nil {
		t.Fatal(err)
	}
	restoreOuter()
	run("echo never")
	if len(outer.hosts) != 3 || outer.hosts[0] != "master echo up" || outer.hosts[1] != "master echo after" || outer.hosts[2] != "control echo here" {
		t.Errorf("outer log: %q", outer.hosts)
	}
	if len(inner.hosts) != 1 || inner.hosts[0] != "master echo run" {
		t.Errorf("inner log: %q", inner.hosts)
	}
	// A replaced opener gets its dialer's own executor.
	c.DBOpener()(context.Background(), hosts[0], ex)
	if _, ok := opened.(*executor.Local); !ok {
		t.Errorf("opener got %T", opened)
	}
}
