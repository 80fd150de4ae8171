package cluster

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// TestConnectKeepsGoingPastDeadHosts: a host that cannot be dialled keeps
// its error, Each skips it with that error, and the others run; Close is safe.
func TestConnectKeepsGoingPastDeadHosts(t *testing.T) {
	hosts := []*topology.Host{
		{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1"},
		{Name: "slave1", Role: topology.RoleSlave, Address: "10.0.0.2"},
		{Name: "slave2", Role: topology.RoleSlave, Address: "10.0.0.3"},
	}
	inv := &topology.Inventory{Hosts: hosts}
	dial := func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		if h.Name == "slave1" {
			var dead *executor.SSH // a typed nil, as a failed Dial returns
			return dead, errors.New(h.String() + ": connect: timed out")
		}
		return executor.NewLocal(h.Name), nil
	}
	c := Connect(context.Background(), inv, hosts, Options{Dialer: dial})
	defer func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	if _, err := c.Executor(hosts[1]); err == nil || !strings.Contains(err.Error(), "slave1 10.0.0.2") {
		t.Fatalf("slave1 error %v", err)
	}
	if err := c.ConnectErr(); err == nil || err.Error() != "slave1 10.0.0.2: connect: timed out" {
		t.Fatalf("ConnectErr = %v, want slave1's error alone", err)
	}
	if ex, err := c.Executor(hosts[1]); ex != nil || err == nil {
		t.Fatalf("dead host has executor %v", ex)
	}
	var mu sync.Mutex
	ran := map[string]bool{}
	errs := c.Each(context.Background(), nil, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		_, err := ex.Run(ctx, executor.Command{Script: "true"})
		mu.Lock()
		ran[h.Name] = err == nil
		mu.Unlock()
		return err
	})
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("Each errors %v", errs)
	}
	if !ran["master"] || !ran["slave2"] || len(ran) != 2 {
		t.Fatalf("ran on %v", ran)
	}
}
