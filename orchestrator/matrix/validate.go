package matrix

import (
	"context"
	"fmt"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/up"
)

// Validate checks every configuration of the plan against the servers
// before the first cell restarts anything (knob values only a server can
// judge, the paths the runs need on every host). It returns the server
// the master runs.
func Validate(ctx context.Context, c *cluster.Cluster, m *Matrix) (flavor.Server, error) {
	srv, err := up.Validate(ctx, c, m.Configurations())
	if err != nil {
		return srv, err
	}
	if err := preflight.PathsErr(preflight.Paths(ctx, c)); err != nil {
		return srv, err
	}
	return srv, nil
}

// checkOffline checks every configuration of the plan against every
// inventory before any host: a setting that would open a cluster
// (server.CheckUnsafe, one warning for each one allowed), and, where the
// inventory names the flavour, the engine and each knob's name against that
// server's variables. It records in m the knobs the declared flavour
// ignores (NoEffect), so that the plan names them; the servers' answer
// replaces it in Validate.
func (u *useCase) checkOffline(m *Matrix) error {
	seen := map[string]bool{}
	say := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			u.logf("%s", s)
		}
	}
	for _, inv := range u.Clusters {
		if m.ServerFree() {
			// A library the program is built against: the workload says
			// which it knows (tokudb, bdb).
			for _, e := range m.Engines {
				if _, err := m.CellWorkload(e); err != nil {
					return u.named(inv, fmt.Errorf("--engines %s: %w", e, err))
				}
			}
		}
		for _, d := range m.Configurations() {
			warnings, err := server.CheckUnsafe(inv, d.Knobs, u.AllowUnsafe)
			if err != nil {
				return u.named(inv, err)
			}
			for _, w := range warnings {
				say(w)
			}
			if err := server.CheckDesired(inv, d, "--engines"); err != nil {
				return u.named(inv, err)
			}
		}
		dbs := inv.DBHosts()
		if len(dbs) == 0 || dbs[0].MySQL.Flavor == "" {
			continue
		}
		t, err := server.OfflineTarget(dbs[0], inv, "")
		if err != nil {
			return u.named(inv, err)
		}
		if len(m.Knobs) > 0 {
			say(server.OfflineNamesNote(t))
		}
	}
	return nil
}
