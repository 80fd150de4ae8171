package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// catchUpTimeout bounds the wait for slaves after the benchmark: the lab saw
// single-threaded appliers 40-50 s behind after 30 s of load.
const catchUpTimeout = 10 * time.Minute

// catchUp is the slaves' catch-up wait, started when the load ended.
type catchUp struct {
	done   chan struct{}
	cu     *dataset.CatchUp
	err    error
	cancel context.CancelFunc
}

// startCatchUp starts waiting for the slaves as soon as the load has
// ended (when ok: it ended as it should), so that a slave's catch-up is
// seen when it happens, not after the monitors have stopped.
func (r *run) startCatchUp(ctx context.Context, loadEnd time.Time, ok bool) *catchUp {
	ctx, cancel := context.WithCancel(ctx)
	c := &catchUp{done: make(chan struct{}), cancel: cancel}
	if !ok {
		close(c.done)
		return c
	}
	go func() {
		defer close(c.done)
		c.cu, c.err = r.waitCaughtUp(ctx, r.db.Master, r.db.Slaves, loadEnd, "")
	}()
	return c
}

func (c *catchUp) wait() (*dataset.CatchUp, error) {
	<-c.done
	return c.cu, c.err
}

// checks runs after a complete benchmark: slaves catch up, the benchmark
// tables agree on all three servers, and the engine footprint is measured.
func (r *run) checks(ctx context.Context, res *schema.Results, wait *catchUp) error {
	master, slaves := r.db.Master, r.db.Slaves
	var failed []error
	cu, err := wait.wait()
	res.CatchUp = cu
	if err != nil {
		failed = append(failed, err)
	}
	if spec, ok := r.spec(); ok && err == nil {
		r.logf("run: checking consistency of %s on all servers", spec.Database)
		stop := r.sayStill(ctx, "checking consistency")
		cr, err := dataset.Consistency(ctx, master, slaves, spec.Database, spec.TableNames())
		stop()
		res.Consistency = cr
		switch {
		case err != nil:
			failed = append(failed, err)
		case !cr.OK:
			failed = append(failed, fmt.Errorf("consistency: %s", cr.Summary()))
		}
		res.Sizes = map[string]*dataset.SizeReport{}
		stop = r.sayStill(ctx, "measuring the footprint")
		defer stop()
		for _, n := range r.db.DB() {
			sz, err := dataset.Sizes(ctx, n.DB, spec.Database, dataset.SizeOptions{Exec: n.Exec, Refresh: true})
			if err != nil {
				r.logf("run: %s: sizes: %v", n.Host, err)
				continue
			}
			res.Sizes[n.Host.Name] = sz
		}
	}
	for _, e := range failed {
		res.Checks = append(res.Checks, e.Error())
	}
	return errors.Join(failed...)
}

// finish completes the run directory whatever happened: status after,
// error log slices, results, the manifest's end and status, and the proof
// that no password is in it.
func (r *run) finish(ctx context.Context, status rundir.Status, runErr error) error {
	if r.db != nil && !r.snappedAfter {
		if err := r.snapshot(ctx, "after"); err != nil {
			r.logf("run: %v", err)
		}
	}
	end := time.Now().UTC()
	if err := r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		m.Finish(end, status, runErr)
		return nil
	}); err != nil {
		return err
	}
	hosts := map[string]executor.Executor{}
	for _, h := range r.inv.Hosts {
		if ex, err := r.cfg.Cluster.Executor(h); err == nil {
			hosts[h.Name] = ex
		}
	}
	if r.bexec != nil {
		hosts[r.bhost] = r.bexec
	}
	for _, c := range r.clients {
		hosts[c.name] = c.exec
	}
	if _, err := rundir.Collect(ctx, r.dir, hosts); err != nil {
		return fmt.Errorf("collect: %w (orch collect %s retries)", err, r.dir.Path())
	}
	if !r.cfg.KeepRemote {
		if _, err := cleanWorkdir(ctx, r.dir, r.bexec); err != nil {
			r.logf("run: %v", err)
		}
		r.cleanClients(ctx)
	}
	return nil
}

// writeResults saves results.json.
func (r *run) writeResults(res *schema.Results) error {
	if res == nil {
		return nil
	}
	return r.dir.WriteResults(res)
}
