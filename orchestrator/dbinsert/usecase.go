package dbinsert

import (
	"context"
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// Options are `orch dbinsert`.
type Options struct {
	Inventory *topology.Inventory
	// Role selects the hosts (master by default: where the db-insert
	// workload runs; see docs/db-insert.md).
	Role string
	// Source is the PerconaFT source archive or directory.
	Source  string
	Connect func(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster
	Out     io.Writer
	Logf    func(format string, args ...any)
}

// Run builds both programs on every selected host in parallel (a cached
// build costs one command per host) and prints where they are.
func Run(ctx context.Context, o Options) ([]*Build, error) {
	if o.Source == "" {
		return nil, orchestrator.BadInputf("dbinsert: --source is required: a PerconaFT source archive or directory")
	}
	src, err := OpenSource(o.Source)
	if err != nil {
		return nil, orchestrator.BadInput(err)
	}
	if o.Role == "" {
		o.Role = string(topology.RoleMaster)
	}
	hosts, err := o.Inventory.Select(o.Role)
	if err != nil {
		return nil, orchestrator.BadInputf("--role %s: %v", o.Role, err)
	}
	if len(hosts) == 0 {
		return nil, orchestrator.BadInputf("no %s hosts in %s", o.Role, o.Inventory.Source)
	}
	c := o.Connect(ctx, o.Inventory, hosts)
	defer c.Close()
	builds := make([]*Build, len(hosts))
	errs := c.Each(ctx, hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
		b, err := Provision(ctx, ex, h.Name, src, o.Logf)
		for i := range hosts {
			if hosts[i] == h {
				builds[i] = b
			}
		}
		return err
	})
	for _, b := range builds {
		if b == nil {
			continue
		}
		how := "built"
		if b.Cached {
			how = "already built"
		}
		fmt.Fprintf(o.Out, "%s: %s %s and %s (build log %s)\n", b.Host, how, b.FractalTree, b.BerkeleyDB, b.Log)
	}
	return builds, orchestrator.Aggregate(errs)
}
