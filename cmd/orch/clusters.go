package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/runner"
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

// clusterOptions is what the up, down and status use cases take from the
// command line: the clusters, the SSH settings, --log, the output.
func (g *globalOptions) clusterOptions(cmd *cobra.Command, invs []*topology.Inventory, logPath string) runner.ClusterOptions {
	return runner.ClusterOptions{Clusters: invs, Connect: g.connect, LogPath: logPath,
		Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), Verbose: g.verbose}
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
