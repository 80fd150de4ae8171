package matrix

import (
	"context"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/up"
)

// Validate checks every configuration of the plan against the servers
// before the first cell restarts anything (knob values only a server can
// judge, the paths the runs need on every host), and records in m the
// knobs the servers accept but ignore (NoEffect). It returns the server
// the master runs.
func Validate(ctx context.Context, c *cluster.Cluster, m *Matrix) (flavor.Server, error) {
	// up's per-host warnings repeat NoEffect's, which the caller prints once.
	_, srv, err := up.Validate(ctx, c, m.Configurations())
	if err != nil {
		return srv, err
	}
	if err := preflight.PathsErr(preflight.Paths(ctx, c)); err != nil {
		return srv, err
	}
	m.NoEffect = NoEffect(srv, m.Knobs)
	return srv, nil
}

// checkUnsafe refuses, before any host, a plan whose knobs would open a
// cluster (server.CheckUnsafe), and warns once for each one allowed.
func (u *useCase) checkUnsafe(m *Matrix) error {
	seen := map[string]bool{}
	for _, inv := range u.Clusters {
		for _, d := range m.Configurations() {
			warnings, err := server.CheckUnsafe(inv, d.Knobs, u.AllowUnsafe)
			if err != nil {
				return u.named(inv, err)
			}
			for _, w := range warnings {
				if !seen[w] {
					seen[w] = true
					u.logf("%s", w)
				}
			}
		}
	}
	return nil
}
