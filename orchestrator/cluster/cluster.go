// Package cluster holds the live connections to an inventory's hosts: one
// executor per host, dialled in parallel once and shared by every step of a
// command, with per-host failures kept so the other hosts can go on; and,
// once Open made them, each database host's session (server.Node), opened
// once per command and shared by up, the run and every cell of a matrix.
package cluster

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// Options controls how hosts are reached.
type Options struct {
	Dial     executor.DialConfig
	Parallel int
	// Dialer replaces the SSH dialer (tests, the local executor).
	Dialer func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error)
	// OpenDB replaces how a host's MySQL server is opened (default:
	// through the host's executor); tests put simulated servers here.
	OpenDB func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error)
}

// Cluster is the set of connections for one command's lifetime: an
// executor per host and, once Open made them, the database sessions.
type Cluster struct {
	Inventory *topology.Inventory
	Hosts     []*topology.Host
	parallel  int
	dial      func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error)
	dialCfg   executor.DialConfig
	openDB    func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error)

	log commandLog // where what is sent to the hosts is recorded (record.go)

	mu    sync.Mutex // guards conns' ex, err and node after Connect, and locks
	conns []conn
	locks []*hostLock // command locks held (lock.go), released by Close
}

type conn struct {
	ex      executor.Executor
	err     error
	elapsed time.Duration
	node    *server.Node // the database session, once opened
	lost    bool         // the session broke: Open dials the host again
}

// Connect dials every host in parallel. It does not fail as a whole: a host
// that cannot be reached keeps its error (see Executor and ConnectErr) and
// is skipped by Each.
func Connect(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host, opts Options) *Cluster {
	dial := opts.Dialer
	if dial == nil {
		dial = func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
			ex, err := executor.Dial(ctx, h, cfg)
			if err != nil {
				return nil, err // not a typed nil inside the interface
			}
			return ex, nil
		}
	}
	c := &Cluster{Inventory: inv, Hosts: hosts, parallel: opts.Parallel, conns: make([]conn, len(hosts)),
		dialCfg: opts.Dial, openDB: unwrapped(opts.OpenDB)}
	c.dial = c.recording(dial)
	dial = c.dial
	orchestrator.ForEach(ctx, opts.Parallel, hosts, func(ctx context.Context, i int, h *topology.Host) error {
		start := time.Now()
		ex, err := dial(ctx, h, opts.Dial)
		if err != nil {
			ex = nil
		}
		c.conns[i] = conn{ex: ex, err: err, elapsed: time.Since(start)}
		return nil
	})
	return c
}

func (c *Cluster) index(h *topology.Host) int {
	for i, x := range c.Hosts {
		if x == h {
			return i
		}
	}
	return -1
}

// Executor returns the host's executor, or the error that kept it from
// connecting.
func (c *Cluster) Executor(h *topology.Host) (executor.Executor, error) {
	i := c.index(h)
	if i < 0 {
		return nil, fmt.Errorf("%s: not part of this command's hosts", h)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.conns[i].ex, c.conns[i].err
}

// ConnectErr aggregates every host's connect error (nil when all are
// connected), for commands that need the whole cluster.
func (c *Cluster) ConnectErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := make([]error, len(c.conns))
	for i, cn := range c.conns {
		errs[i] = cn.err
	}
	return orchestrator.Aggregate(errs)
}

// DBOpener is how this command opens a host's MySQL server: nil for the
// default, through the host's executor.
func (c *Cluster) DBOpener() func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
	return c.openDB
}

// ConnectTime is how long dialling the host took.
func (c *Cluster) ConnectTime(h *topology.Host) time.Duration {
	if i := c.index(h); i >= 0 {
		return c.conns[i].elapsed
	}
	return 0
}

// Each runs fn on the given hosts (all hosts when nil) in parallel, bounded,
// and returns per-host errors in host order; a host that failed to connect
// gets its connect error without fn being called.
func (c *Cluster) Each(ctx context.Context, hosts []*topology.Host, fn func(ctx context.Context, h *topology.Host, ex executor.Executor) error) []error {
	if hosts == nil {
		hosts = c.Hosts
	}
	return orchestrator.ForEach(ctx, c.parallel, hosts, func(ctx context.Context, _ int, h *topology.Host) error {
		ex, err := c.Executor(h)
		if err != nil {
			return err
		}
		return fn(ctx, h, ex)
	})
}

// Close releases the command lock and closes every connection, the
// database sessions first.
func (c *Cluster) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, l := range c.locks {
		errs = append(errs, l.release())
	}
	c.locks = nil
	for i, cn := range c.conns {
		if cn.node != nil {
			errs = append(errs, cn.node.Close())
			c.conns[i].node = nil
		}
	}
	for _, cn := range c.conns {
		if cn.ex != nil {
			errs = append(errs, cn.ex.Close())
		}
	}
	return orchestrator.Aggregate(errs)
}
