package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/topology"
)

// oneOfSet is loadInventory over several files (repeated -i): the cluster
// --cluster names, or the only one.
func (g *globalOptions) oneOfSet(paths []string) (*topology.Inventory, error) {
	set, err := g.loadSet(paths)
	if err != nil {
		return nil, err
	}
	if g.cluster == "" && len(set.Clusters) > 1 {
		return nil, usagef("%s hold %d clusters (%s) and this command works on one: choose it with --cluster NAME",
			strings.Join(paths, ", "), len(set.Clusters), strings.Join(set.Names(), ", "))
	}
	invs, err := set.Select(g.cluster)
	if err != nil {
		return nil, usagef("--cluster: %v", err)
	}
	return invs[0], nil
}

// clusters returns the clusters a command acts on: those of path (the
// positional INVENTORY argument) or of every -i, all of them or the one
// --cluster names. A one-cluster inventory is loaded exactly as
// loadInventory loads it, so a one-cluster command is today's.
func (g *globalOptions) clusters(path string) ([]*topology.Inventory, error) {
	paths := g.inventories
	if path != "" {
		paths = []string{path}
	}
	set, err := g.loadSet(paths)
	if err != nil {
		return nil, err
	}
	if len(set.Clusters) == 1 {
		inv, err := g.loadInventory(path)
		if err != nil {
			return nil, err
		}
		return []*topology.Inventory{inv}, nil
	}
	invs, err := set.Select(g.cluster)
	if err != nil {
		return nil, usagef("--cluster: %v", err)
	}
	for _, inv := range invs {
		if err := g.checkSecrets(inv); err != nil {
			return nil, usagef("cluster %s: %v", inv.Name, err)
		}
		if err := g.prepareInventory(inv); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", inv.Name, err)
		}
	}
	return invs, nil
}

// clusterFunc is a command's work on one cluster, writing to out and errOut.
type clusterFunc func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error

// forEachCluster runs fn on every cluster at once. With one cluster it is a
// plain call; with several, every line fn prints is prefixed with its
// cluster's name (lines of different clusters interleave, never a line
// itself) and the clusters' failures are aggregated, each naming its
// cluster. Whether it is a usage error (exit 2) survives the aggregation.
func forEachCluster(ctx context.Context, invs []*topology.Inventory, out, errOut io.Writer, fn clusterFunc) error {
	if len(invs) == 1 {
		return fn(ctx, invs[0], out, errOut)
	}
	so, se := &syncWriter{w: out}, &syncWriter{w: errOut}
	errs := orchestrator.ForEach(ctx, len(invs), invs, func(ctx context.Context, _ int, inv *topology.Inventory) error {
		o := &prefixWriter{out: so, prefix: inv.Name + ": "}
		e := &prefixWriter{out: se, prefix: inv.Name + ": "}
		err := fn(ctx, inv, o, e)
		o.Flush()
		e.Flush()
		if err != nil {
			return &clusterError{cluster: inv.Name, err: err}
		}
		return nil
	})
	return orchestrator.Aggregate(errs)
}

// clusterError names the cluster a failure happened on.
type clusterError struct {
	cluster string
	err     error
}

func (e *clusterError) Error() string { return "cluster " + e.cluster + ": " + e.err.Error() }
func (e *clusterError) Unwrap() error { return e.err }

// validateClusters checks every cluster's shape before any host is
// contacted; with several, the message names the cluster.
func validateClusters(invs []*topology.Inventory) error {
	for _, inv := range invs {
		if err := inv.ValidateCluster(); err != nil {
			if len(invs) > 1 {
				return usagef("cluster %s: %v", inv.Name, err)
			}
			return &usageError{msg: err.Error()}
		}
	}
	return nil
}

// defaultEngines is --engines when not given: the clusters' profile.engine,
// as the flag's help says, when they agree ("" when not: then the matrix
// asks for --engines).
func defaultEngines(invs []*topology.Inventory) string {
	engine := ""
	for i, inv := range invs {
		if i > 0 && inv.Profile.Engine != engine {
			return ""
		}
		engine = inv.Profile.Engine
	}
	return engine
}

// connectInventory connects to every host of inv with the command's SSH
// settings: the use cases' Connect.
func (g *globalOptions) connectInventory(ctx context.Context, inv *topology.Inventory) *cluster.Cluster {
	return g.connect(ctx, inv, inv.Hosts)
}
