package cluster

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

const (
	// pingTimeout bounds the check that a reused session still answers.
	pingTimeout = 10 * time.Second
	// idleConns is database/sql's default, restored after the check.
	idleConns = 2
)

// Sessions are one command's open hosts by role, with no empty slot: the
// database session of the master and of every slave, and the load boxes
// apart (orch reaches those by SSH only).
type Sessions struct {
	Master *server.Node
	Slaves []*server.Node
	// LoadBoxes are the connected load boxes, in inventory order.
	LoadBoxes []LoadBox
}

// LoadBox is a host that runs benchmark clients.
type LoadBox struct {
	Host *topology.Host
	Exec executor.Executor
}

// DB lists the database sessions, master first.
func (s *Sessions) DB() []*server.Node {
	return append([]*server.Node{s.Master}, s.Slaves...)
}

// LoadBox returns the named load box's connection.
func (s *Sessions) LoadBox(name string) (LoadBox, bool) {
	for _, b := range s.LoadBoxes {
		if b.Host.Name == name {
			return b, true
		}
	}
	return LoadBox{}, false
}

// OpenOptions are the caller's part in opening a session.
type OpenOptions struct {
	// Recover is called for a host whose server could not be opened; when
	// it reports that it started the server, the open is tried once more.
	// nil: the open error stands (a run never starts a server).
	Recover func(ctx context.Context, h *topology.Host, ex executor.Executor, openErr error) (bool, error)
	// Opened hears each session opened by this call (not a reused one).
	Opened func(n *server.Node, took time.Duration)
}

// Open returns the sessions of the inventory's database hosts (the master
// and its slaves; the one server of an existing-server inventory) and the
// connected load boxes. A database host is opened once per command: later
// calls reuse its session (a matrix's cells share them) and open again only
// one whose server stopped answering, re-dialling its link first when that
// is what broke. All or nothing: when a host cannot be opened, the error
// names each such host and no Sessions are returned.
func (c *Cluster) Open(ctx context.Context, opts OpenOptions) (*Sessions, error) {
	inv := c.Inventory
	master := inv.Master()
	if master == nil {
		return nil, fmt.Errorf("%s: no master among the database hosts", inv.Source)
	}
	hosts := []*topology.Host{master}
	if !inv.Existing {
		hosts = append(hosts, inv.Slaves()...)
	}
	nodes := make([]*server.Node, len(hosts))
	errs := orchestrator.ForEach(ctx, c.parallel, hosts, func(ctx context.Context, i int, h *topology.Host) error {
		n, err := c.session(ctx, h, opts)
		nodes[i] = n
		return err
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return nil, err
	}
	s := &Sessions{Master: nodes[0], Slaves: nodes[1:]}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, h := range c.Hosts {
		if h.Role == topology.RoleLoadBox && c.conns[i].err == nil {
			s.LoadBoxes = append(s.LoadBoxes, LoadBox{Host: h, Exec: c.conns[i].ex})
		}
	}
	return s, nil
}

// OpenedDB is the pool of h's database session when this command opened
// one (nil otherwise): probes read through it rather than log in again.
func (c *Cluster) OpenedDB(h *topology.Host) *sql.DB {
	i := c.index(h)
	if i < 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := c.conns[i].node; n != nil {
		return n.DB
	}
	return nil
}

// session returns h's open session: the cached one while it answers, else
// a new one.
func (c *Cluster) session(ctx context.Context, h *topology.Host, opts OpenOptions) (*server.Node, error) {
	i := c.index(h)
	if i < 0 {
		return nil, fmt.Errorf("%s: not part of this command's hosts", h)
	}
	c.mu.Lock()
	old, lost := c.conns[i].node, c.conns[i].lost
	c.mu.Unlock()
	if old != nil {
		// A ping on an idle connection proves nothing about the next one
		// (a server whose socket file went away answers on it still): the
		// idle ones are dropped so the ping dials the way every later
		// connection will.
		old.DB.SetMaxIdleConns(0)
		old.DB.SetMaxIdleConns(idleConns)
		pctx, cancel := context.WithTimeout(ctx, pingTimeout)
		err := old.DB.PingContext(pctx)
		cancel()
		if err == nil {
			return old, nil
		}
		old.Close()
		c.mu.Lock()
		c.conns[i].node, c.conns[i].lost = nil, true
		c.mu.Unlock()
		lost = true
	}
	if lost {
		// Once open, a host whose session broke is dialled again until it
		// answers; a host that never connected keeps its connect error.
		if err := c.redialIfBroken(ctx, i); err != nil {
			return nil, err
		}
	}
	ex, err := c.Executor(h)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	n, err := server.Open(ctx, h, ex, c.openDB)
	if err != nil && opts.Recover != nil {
		started, rerr := opts.Recover(ctx, h, ex, err)
		if rerr != nil {
			return nil, rerr
		}
		if started {
			n, err = server.Open(ctx, h, ex, c.openDB)
		}
	}
	if err != nil {
		return nil, err
	}
	c.setNode(i, n)
	if opts.Opened != nil {
		opts.Opened(n, time.Since(t0))
	}
	return n, nil
}

func (c *Cluster) setNode(i int, n *server.Node) {
	c.mu.Lock()
	c.conns[i].node, c.conns[i].lost = n, false
	c.mu.Unlock()
}

// redialIfBroken dials host i again when its executor no longer runs a
// command (the link dropped), replacing the connection.
func (c *Cluster) redialIfBroken(ctx context.Context, i int) error {
	c.mu.Lock()
	ex := c.conns[i].ex
	c.mu.Unlock()
	if ex != nil {
		_, err := ex.Run(ctx, executor.Command{Script: "true", Timeout: pingTimeout})
		var exit *executor.ExitError
		if err == nil || errors.As(err, &exit) {
			return nil
		}
		ex.Close()
	}
	h := c.Hosts[i]
	nex, err := c.dial(ctx, h, c.dialCfg)
	if err != nil {
		nex = nil
	}
	c.mu.Lock()
	c.conns[i].ex, c.conns[i].err = nex, err
	c.mu.Unlock()
	return err
}
