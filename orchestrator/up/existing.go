package up

import (
	"context"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/orchestrator/server"
)

// The existing-server mode (a two-line ips.txt, or a YAML inventory with a
// server host): orch benchmarks one server as it is. Up then only sets the
// knobs, all of which must be dynamic, with SET GLOBAL: no profile, no
// file, no restart, no replication. PutBack undoes it after the run.

// checkPaths runs the paths check when opts ask for it.
func checkPaths(ctx context.Context, c *cluster.Cluster, opts Options) error {
	if !opts.CheckPaths {
		return nil
	}
	return preflight.PathsErr(preflight.Paths(ctx, c))
}

// openExisting opens the one server of an existing-server inventory.
func openExisting(ctx context.Context, c *cluster.Cluster) (*server.Node, error) {
	s, err := c.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		return nil, err
	}
	return s.Master, nil
}

// upExisting checks that every knob can be set at run time, proves the
// benchmark's path to the server, and sets them.
func upExisting(ctx context.Context, c *cluster.Cluster, opts Options) (*Report, error) {
	start := time.Now()
	rec := newRecorder(opts.Events)
	defer rec.stop()
	if err := checkPaths(ctx, c, opts); err != nil {
		return nil, err
	}
	n, err := openExisting(ctx, c)
	if err != nil {
		return nil, err
	}
	changes, err := n.CheckDynamic(ctx, opts.Desired.Knobs)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := n.SetDynamic(ctx, changes); err != nil {
		return nil, err
	}
	for _, ch := range changes {
		rec.note(n.Host.Name, fmt.Sprintf("SET GLOBAL %s = %s (was %s)", ch.Name, ch.To, ch.From))
	}
	rec.done(n.Host.Name, "set dynamic knobs", t0)
	return &Report{Dynamic: changes, Timings: rec.close(), Total: time.Since(start)}, nil
}

// PutBack sets an existing server's variables that Up changed back to
// their earlier values (nothing for a cluster, whose config stays).
func PutBack(ctx context.Context, c *cluster.Cluster, rep *Report) error {
	if rep == nil || len(rep.Dynamic) == 0 || !c.Inventory.Existing {
		return nil
	}
	n, err := openExisting(ctx, c)
	if err != nil {
		return err
	}
	return n.PutBack(ctx, rep.Dynamic)
}

// validateExisting checks each wanted state's knobs against the server.
func validateExisting(ctx context.Context, c *cluster.Cluster, want []server.Desired) (flavor.Server, error) {
	n, err := openExisting(ctx, c)
	if err != nil {
		return flavor.Server{}, err
	}
	for _, d := range want {
		if _, err := n.CheckDynamic(ctx, d.Knobs); err != nil {
			return flavor.Server{}, err
		}
	}
	return n.Server, nil
}
