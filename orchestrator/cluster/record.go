package cluster

import (
	"context"
	"database/sql"
	"sync/atomic"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// commandLog is the cluster's one Recorder: every executor it dials (and
// every pool opened through one) records here, and it passes each Record
// on to whichever log the command set last. The connections outlive a
// run (a matrix's cells share them); the log is the run's.
type commandLog struct {
	to atomic.Pointer[executor.Recorder]
}

func (l *commandLog) Record(r executor.Record) {
	if to := l.to.Load(); to != nil {
		(*to).Record(r)
	}
}

// LogCommands sends a record of everything sent to the cluster's hosts
// from now on to rec (nil: to nothing), and returns the function that
// puts back the log there was before.
func (c *Cluster) LogCommands(rec executor.Recorder) (restore func()) {
	var p *executor.Recorder
	if rec != nil {
		p = &rec
	}
	old := c.log.to.Swap(p)
	return func() { c.log.to.Store(old) }
}

// recording makes dial's executors record on c's log.
func (c *Cluster) recording(dial func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error)) func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
	return func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
		ex, err := dial(ctx, h, cfg)
		if err != nil {
			return nil, err
		}
		return executor.Recorded(ex, h.Name, &c.log), nil
	}
}

// unwrapped gives a replaced opener (a test's simulated server) the
// executor its dialer made.
func unwrapped(open func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error)) func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
	if open == nil {
		return nil
	}
	return func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
		return open(ctx, h, executor.Unwrap(ex))
	}
}

// Local is an executor for this machine that records on the cluster's log
// like the hosts' do (a run whose load box is the control machine); name
// is its host name in the log.
func (c *Cluster) Local(name string) executor.Executor {
	return executor.Recorded(executor.NewLocal(name), name, &c.log)
}
