package up

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// DownReport is what Down did.
type DownReport struct {
	Replication *replication.Result `json:"replication"`
	Hosts       []*server.Result    `json:"hosts"`
	Timings     []Timing            `json:"timings"`
	// Purged is down --purge's line per thing it dropped or kept (and why).
	Purged []string `json:"purged,omitempty"`
}

// Down undoes Up: replication is stopped and reset and semi-sync turned off
// on the running servers, then orch's config file is removed (the backup
// put back) and each server restarted, so the hosts are as before `up`.
func Down(ctx context.Context, c *cluster.Cluster, events *step.Stream) (*DownReport, error) {
	rec := newRecorder(events)
	defer rec.stop()
	params, err := replicationParams(c.Inventory)
	if err != nil {
		return nil, err
	}
	sessions, err := openNodes(ctx, c, rec)
	if err != nil {
		return nil, err
	}
	master, slaves, nodes := sessions.Master, sessions.Slaves, sessions.DB()
	rep := &DownReport{}
	kept, found, err := replKept(ctx, c.Inventory, master, params)
	if err != nil {
		return nil, err
	}
	params.ReplAccountKept = kept
	t0 := time.Now()
	rep.Replication, err = replication.Teardown(ctx, master, slaves, params, rec.events)
	rec.done("cluster", "replication teardown", t0)
	if err != nil {
		return rep, err
	}
	if kept == "" && found != nil {
		if err := account.Unclaim(ctx, account.DB{DB: master.DB}, found, []account.Item{replItem(params)}); err != nil {
			return rep, fmt.Errorf("%s: %w", master.Host, err)
		}
	}
	rep.Hosts = make([]*server.Result, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		t0 := time.Now()
		res, err := n.Restore(ctx, step.HostEvents{Stream: rec.events, Host: n.Host.Name})
		rep.Hosts[i] = res
		rec.done(n.Host.Name, "restore config", t0)
		return err
	})
	rep.Timings = rec.close()
	return rep, orchestrator.Aggregate(errs)
}

// StatusReport is the cluster's replication state plus what orch laid down
// on each host (profile and overrides, by host name).
type StatusReport struct {
	*replication.Status
	Applied map[string]server.Applied `json:"applied"`
}

// Status reads replication, semi-sync and config state without changing
// anything.
func Status(ctx context.Context, c *cluster.Cluster) (*StatusReport, error) {
	sessions, err := openNodes(ctx, c, newRecorder(nil))
	if err != nil {
		return nil, err
	}
	master, slaves, nodes := sessions.Master, sessions.Slaves, sessions.DB()
	applied := make([]server.Applied, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		a, err := n.Applied(ctx)
		applied[i] = a
		return err
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return nil, err
	}
	st, err := replication.GetStatus(ctx, master, slaves)
	if err != nil {
		return nil, err
	}
	rep := &StatusReport{Status: st, Applied: map[string]server.Applied{}}
	for i, n := range nodes {
		rep.Applied[n.Host.Name] = applied[i]
	}
	return rep, nil
}

// WriteApplied prints, per host, the profile and overrides orch laid down.
func WriteApplied(w io.Writer, hosts []*topology.Host, applied map[string]server.Applied) {
	for _, h := range hosts {
		a, ok := applied[h.Name]
		switch {
		case !ok:
		case a.Profile == "":
			fmt.Fprintf(w, "%s: not configured by orch\n", h.Name)
		case len(a.Overrides) == 0:
			fmt.Fprintf(w, "%s: profile %s\n", h.Name, a.Profile)
		default:
			fmt.Fprintf(w, "%s: profile %s; %s\n", h.Name, a.Profile, strings.Join(a.Overrides, ", "))
		}
	}
}
