package up

import (
	"context"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/server"
)

// DownReport is what Down did.
type DownReport struct {
	Replication *replication.Result `json:"replication"`
	Hosts       []*server.Result    `json:"hosts"`
	Timings     []Timing            `json:"timings"`
}

// Down undoes Up: replication is stopped and reset and semi-sync turned off
// on the running servers, then orch's config file is removed (the backup
// put back) and each server restarted, so the hosts are as before `up`.
func Down(ctx context.Context, c *cluster.Cluster, progress func(host, step string, took time.Duration)) (*DownReport, error) {
	rec := &recorder{progress: progress}
	params, err := replicationParams(c.Inventory)
	if err != nil {
		return nil, err
	}
	nodes, err := openNodes(ctx, c, rec)
	if err != nil {
		return nil, err
	}
	defer closeNodes(nodes)
	master, slaves, err := replicationNodes(nodes)
	if err != nil {
		return nil, err
	}
	rep := &DownReport{}
	t0 := time.Now()
	rep.Replication, err = replication.Teardown(ctx, master, slaves, params)
	rec.done("cluster", "replication teardown", t0)
	if err != nil {
		return rep, err
	}
	rep.Hosts = make([]*server.Result, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		t0 := time.Now()
		res, err := n.Restore(ctx, func(step string) { rec.say(n.Host.Name, step) })
		rep.Hosts[i] = res
		rec.done(n.Host.Name, "restore config", t0)
		return err
	})
	rep.Timings = rec.timings
	return rep, orchestrator.Aggregate(errs)
}

// Status reads replication and semi-sync state without changing anything.
func Status(ctx context.Context, c *cluster.Cluster) (*replication.Status, error) {
	nodes, err := openNodes(ctx, c, &recorder{})
	if err != nil {
		return nil, err
	}
	defer closeNodes(nodes)
	master, slaves, err := replicationNodes(nodes)
	if err != nil {
		return nil, err
	}
	return replication.GetStatus(ctx, master, slaves)
}
