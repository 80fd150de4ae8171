package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// Settled is what Settle found of an earlier attempt's benchmark.
type Settled string

const (
	// SettledNone: nothing of it was running.
	SettledNone Settled = ""
	// SettledStopped: it was running and was stopped.
	SettledStopped Settled = "stopped"
	// SettledWaited: it was running and was waited for to its end.
	SettledWaited Settled = "waited"
)

// waitEvery is how often Settle says it still waits.
const waitEvery = 30 * time.Second

// Settle deals with the benchmark an interrupted run left behind (orch
// killed while it ran detached) before anything else loads the cluster:
// it finds it by the run's marker and stops it, or with wait lets it end,
// saying which in one line, then collects the run directory (the output,
// the logs, the remote working directory removed). A benchmark it cannot
// stop is an error: nothing may start beside it. A failed collect is only
// logged: the evidence is incomplete, the cluster is free.
func Settle(ctx context.Context, d *rundir.Dir, c *cluster.Cluster, wait bool, logf func(string, ...any)) (Settled, error) {
	m, err := d.LoadManifest()
	if err != nil || m.Remote == nil || m.Remote.Removed {
		return SettledNone, nil // no attempt got as far as the load box
	}
	if err := CheckSources(d, c.Inventory); err != nil {
		return SettledNone, err
	}
	// Every load box of the run: with several, each ran its own client.
	done := SettledNone
	for _, rem := range append([]*rundir.Remote{m.Remote}, m.ClientRemotes...) {
		if rem == nil || rem.Removed {
			continue
		}
		got, err := settleOne(ctx, d, c, rem, wait, logf)
		if err != nil {
			return done, err
		}
		if got != SettledNone {
			done = got
		}
	}
	if _, err := Collect(ctx, d, c, false); err != nil {
		logf("%s: collect the interrupted run %s: %v", m.Remote.Host, d.Path(), err)
	}
	return done, nil
}

// settleOne stops, or waits for, the run's benchmark on one load box.
func settleOne(ctx context.Context, d *rundir.Dir, c *cluster.Cluster, rem *rundir.Remote, wait bool, logf func(string, ...any)) (Settled, error) {
	ex, err := benchExecutor(c, rem.Host)
	if err != nil {
		return SettledNone, err
	}
	procs, err := RunningProcs(ctx, ex, rem)
	if err != nil {
		return SettledNone, err
	}
	switch {
	case len(procs) == 0:
		return SettledNone, nil
	case wait:
		logf("%s: the interrupted run's benchmark still runs (%s): waiting for it to end, then collecting it", rem.Host, describe(procs))
		if err := waitMarked(ctx, ex, rem, waitEvery, logf); err != nil {
			return SettledNone, err
		}
		return SettledWaited, nil
	}
	logf("%s: the interrupted run's benchmark still runs (%s): stopping it (--wait-running lets it finish)", rem.Host, describe(procs))
	if err := stopMarked(ctx, ex, rem.Marker, 5*time.Second); err != nil {
		return SettledNone, err
	}
	why := errors.New("orch stopped before the run ended; the benchmark it left running was stopped by the next orch; replicas were not checked")
	return SettledStopped, d.UpdateManifest(func(m *rundir.Manifest) error {
		if m.Status == rundir.StatusRunning {
			m.Finish(time.Now().UTC(), rundir.StatusInterrupted, why)
		}
		return nil
	})
}

// benchExecutor is the connection to the host a run's benchmark ran on.
func benchExecutor(c *cluster.Cluster, host string) (executor.Executor, error) {
	if host == rundir.LocalHost {
		return c.Local(rundir.LocalHost), nil
	}
	for _, h := range c.Hosts {
		if h.Name == host {
			return c.Executor(h)
		}
	}
	return nil, fmt.Errorf("benchmark host %s is not one of the inventory's", host)
}
