package server

import (
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/step"
)

// interruptAt runs commands on the fake host until one equal to at has run,
// then cancels the command's context, as Ctrl-C would: from then on a
// command on that context fails like a cancelled SSH session, while one on
// another (detached) context still runs.
type interruptAt struct {
	*fakeHost
	at     string
	cancel context.CancelFunc
}

func (x interruptAt) Run(ctx context.Context, c executor.Command) (executor.Result, error) {
	if err := ctx.Err(); err != nil {
		return executor.Result{}, err
	}
	res, err := x.fakeHost.Run(ctx, c)
	if c.Script == x.at {
		x.cancel()
	}
	return res, err
}

// TestInterruptedRestartRollsBack: Ctrl-C between the stop and the start of
// a restart must not leave the server stopped: the previous file goes back
// and the server starts on it, on a context the interrupt did not cancel.
func TestInterruptedRestartRollsBack(t *testing.T) {
	h := newFakeHost(mariadbVars())
	h.vars["innodb_log_file_size"] = "100663296"
	h.readOnly["innodb_log_file_size"] = true
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	prev := "# Managed by orch: an earlier version\n[mysqld]\nsync_binlog = 0\n"
	h.files[fakeDir+"/99-orch.cnf"] = prev
	cfg, p, err := checked(t, n, Desired{Knobs: []KV{{"innodb_log_file_size", "200M"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsRestart {
		t.Fatal("a read-only variable's change does not need a restart")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n.Exec = interruptAt{fakeHost: h, at: fakeStop, cancel: cancel}
	res, err := n.Apply(ctx, cfg, p, step.HostEvents{})
	if err == nil || !strings.Contains(err.Error(), "interrupted while restarting with the new config (restored the previous config)") {
		t.Fatalf("error %v", err)
	}
	if !h.running {
		t.Fatal("the interrupted restart left the server stopped")
	}
	if got := h.files[fakeDir+"/99-orch.cnf"]; got != prev {
		t.Errorf("file after the rollback:\n%s\nwant the previous one", got)
	}
	if h.vars["innodb_log_file_size"] != "100663296" {
		t.Errorf("server runs with innodb_log_file_size %s, want the previous 100663296", h.vars["innodb_log_file_size"])
	}
	if !res.Written || !res.RolledBack || res.RollbackFailed || res.Restarted {
		t.Errorf("result: written %v rolled back %v rollback failed %v restarted %v", res.Written, res.RolledBack, res.RollbackFailed, res.Restarted)
	}
}
