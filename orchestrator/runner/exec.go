package runner

import (
	"context"
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// ExecOptions is `orch exec`: one shell command on the chosen hosts at
// once.
type ExecOptions struct {
	Inventory *topology.Inventory
	// Role chooses the hosts: master, slave, loadbox, db, all or a name.
	Role   string
	Script string
	Sudo   bool
	// Connect dials the chosen hosts.
	Connect func(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster
	// Out gets every output line, prefixed with its host's name.
	Out io.Writer
}

// ExecFailed is an exec that failed on some hosts: Err holds each one's
// failure.
type ExecFailed struct {
	Failed, Hosts int
	Err           error
}

func (e *ExecFailed) Error() string {
	return fmt.Sprintf("exec: failed on %d of %d hosts", e.Failed, e.Hosts)
}

// Exec runs o.Script through the POSIX shell on every chosen host at once,
// each output line prefixed with the host's name. A host where it fails
// or that cannot be reached makes an *ExecFailed.
func Exec(ctx context.Context, o ExecOptions) error {
	hosts, err := o.Inventory.Select(o.Role)
	if err != nil {
		return orchestrator.BadInputf("--role %s: %v", o.Role, err)
	}
	if len(hosts) == 0 {
		return orchestrator.BadInputf("no %s hosts in %s", o.Role, o.Inventory.Source)
	}
	c := o.Connect(ctx, o.Inventory, hosts)
	defer c.Close()
	out := &orchestrator.SyncWriter{W: o.Out}
	width := 0
	for _, h := range hosts {
		width = max(width, len(h.Name))
	}
	errs := c.Each(ctx, hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		prefix := fmt.Sprintf("%-*s | ", width, h.Name)
		stdout := &orchestrator.PrefixWriter{Out: out, Prefix: prefix}
		stderr := &orchestrator.PrefixWriter{Out: out, Prefix: prefix}
		_, err := ex.Run(ctx, executor.Command{Script: o.Script, Sudo: o.Sudo, Stdout: stdout, Stderr: stderr})
		stdout.Flush()
		stderr.Flush()
		return err
	})
	err = orchestrator.Aggregate(errs)
	if err == nil {
		return nil
	}
	failed := 0
	for _, e := range errs {
		if e != nil {
			failed++
		}
	}
	return &ExecFailed{Failed: failed, Hosts: len(hosts), Err: err}
}
