package matrix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
)

// Target is one cluster a matrix runs on: its connections, and how to tell
// a cell that failed from a cluster that went away.
type Target struct {
	Name    string
	Cluster *cluster.Cluster
	// Probe connects to every host of the cluster afresh and returns why
	// one cannot be reached (nil when all can). It is asked after a cell
	// fails: unreachable hosts take the cluster out of the schedule
	// (Design.Fail) instead of counting against the configuration.
	Probe func(ctx context.Context) error
}

// execute is the matrix's only executor. It runs every unfinished cell:
// brings the cell's cluster to the cell's engine and knobs (restarting only
// for static changes, re-verifying replication), then runs the benchmark
// into the cell's run directory. Without a design (m.Design nil) there is
// one target and the cells run in m's order; with one (BuildBlocked) every
// cluster runs its own block, one cell at a time, the clusters in parallel.
//
// Only this loop touches m: cells run on copies of it, and every Start,
// Finish, Fail and Save happens here, between cells, so matrix.json is
// always a state a resume can continue from; a crash or Ctrl-C loses at
// most the cells in progress, which --resume runs again.
//
// A cluster of a design that cannot be reached at the start, or whose hosts
// stop answering after a failed cell, is taken out with Design.Fail (its
// unfinished rounds move, whole, to the others); with cfg.FailFast it stops
// the matrix instead, and a resume continues the same design.
func execute(ctx context.Context, m *Matrix, targets []Target, cfg ExecConfig) error {
	l, err := newLoop(m, targets, cfg)
	if err != nil {
		return err
	}
	if err := l.takeOutUnreachable(); err != nil {
		return err
	}
	results := make(chan cellResult)
	for {
		for _, name := range l.names {
			if l.stop || ctx.Err() != nil || l.busy[name] {
				continue
			}
			if err := l.start(ctx, name, results); err != nil {
				return err
			}
		}
		if len(l.busy) == 0 {
			break
		}
		if err := l.finish(ctx, <-results); err != nil {
			return err
		}
	}
	if l.stopErr == nil && ctx.Err() != nil {
		l.stopErr = fmt.Errorf("matrix interrupted: orch matrix --resume %s continues", m.Dir())
	}
	if l.stopErr != nil {
		l.failed = append([]error{l.stopErr}, l.failed...)
	}
	return errors.Join(l.failed...)
}

// loop is execute's state between cells.
type loop struct {
	m       *Matrix
	d       *Design // nil: one target, m's order
	cfg     ExecConfig
	logf    func(string, ...any)
	names   []string
	byName  map[string]Target
	busy    map[string]bool
	stop    bool
	stopErr error
	failed  []error
}

type cellResult struct {
	cluster, id string
	state       State
	err         error
}

func newLoop(m *Matrix, targets []Target, cfg ExecConfig) (*loop, error) {
	l := &loop{m: m, d: m.Design, cfg: cfg, logf: cfg.Logf, byName: map[string]Target{}, busy: map[string]bool{}}
	if l.logf == nil {
		l.logf = func(string, ...any) {}
	}
	for _, t := range targets {
		l.byName[t.Name], l.names = t, append(l.names, t.Name)
	}
	if l.d == nil {
		if len(targets) != 1 {
			return nil, errors.New("matrix: no design: a matrix over several clusters is planned with BuildBlocked")
		}
		return l, nil
	}
	return l, l.d.Check(m, l.names)
}

// where prefixes a log line with the cluster of a design (the clusters'
// lines interleave); a one-cluster matrix says nothing.
func (l *loop) where(name string) string {
	if l.d == nil {
		return ""
	}
	return name + ": "
}

// next is the cluster's next cell to run.
func (l *loop) next(name string) (*Cell, bool) {
	if l.d == nil {
		return l.m.Next()
	}
	return l.d.Next(l.m, name)
}

// takeOut takes a cluster of a design out of the schedule, or stops the
// matrix with --fail-fast (a resume continues the same design).
func (l *loop) takeOut(name, reason string) error {
	if l.cfg.FailFast {
		return fmt.Errorf("cluster %s: %s (--fail-fast: stopped; orch matrix --resume %s continues)", name, reason, l.m.Dir())
	}
	left := len(l.d.Remaining(l.m, name))
	if err := l.d.Fail(l.m, name, reason); err != nil {
		return err
	}
	l.logf("matrix: cluster %s taken out of the schedule: %s (%d cell(s) left; unfinished rounds moved to other clusters)", name, reason, left)
	return l.m.Save()
}

// takeOutUnreachable takes out the clusters of a design that cannot be
// reached at the start. One cluster's connection was checked by Run.
func (l *loop) takeOutUnreachable() error {
	if l.d == nil {
		return nil
	}
	for _, name := range l.names {
		t := l.byName[name]
		if l.d.block(name).Failed != "" || t.Cluster == nil {
			continue
		}
		if err := t.Cluster.ConnectErr(); err != nil {
			if terr := l.takeOut(name, "unreachable: "+err.Error()); terr != nil {
				return terr
			}
		}
	}
	return nil
}

// start starts the cluster's next cell, if it has one, in its own
// goroutine, which reports on results.
func (l *loop) start(ctx context.Context, name string, results chan<- cellResult) error {
	c, ok := l.next(name)
	if !ok {
		return nil
	}
	m := l.m
	total, done := len(m.Cells), len(m.Cells)-len(m.Remaining())
	l.logf("matrix: %scell %d/%d %s", l.where(name), done+1, total, c.ID)
	if err := m.Start(c.ID, time.Now()); err != nil {
		return err
	}
	if err := m.Save(); err != nil {
		return err
	}
	view, cell := m.snapshot(), *c
	ccfg := l.cfg
	ccfg.Cluster = l.byName[name].Cluster
	if l.d != nil {
		ccfg = clusterConfig(l.cfg, l.byName[name])
	}
	ccfg.Stacks = cellStacks(m, c, l.cfg.Stacks)
	l.busy[name] = true
	go func() {
		state, err := runCellFunc(ctx, view, &cell, ccfg)
		results <- cellResult{cluster: name, id: cell.ID, state: state, err: err}
	}()
	return nil
}

// finish records a cell's end, judges the round and decides whether the
// matrix goes on.
func (l *loop) finish(ctx context.Context, r cellResult) error {
	m := l.m
	delete(l.busy, r.cluster)
	err := r.err
	if err != nil {
		err = errors.New(rundir.Redact(err.Error(), l.cfg.Secrets...))
	}
	if r.state == Failed && ctx.Err() == nil && l.d != nil {
		if perr := probe(ctx, l.byName[r.cluster]); perr != nil {
			l.logf("matrix: %s: cell %s failed and the cluster is unreachable: %v", r.cluster, r.id, perr)
			if !l.cfg.FailFast {
				terr := l.takeOut(r.cluster, "unreachable: "+perr.Error())
				if terr == nil {
					return nil // the cell left the matrix with its round
				}
				l.stop, l.stopErr = true, terr
			}
		}
	}
	if err != nil {
		l.logf("matrix: %scell %s %s: %v", l.where(r.cluster), r.id, r.state, err)
	} else {
		l.logf("matrix: %scell %s ok", l.where(r.cluster), r.id)
	}
	if ferr := m.Finish(r.id, r.state, err, time.Now()); ferr != nil {
		return ferr
	}
	if serr := m.Save(); serr != nil {
		return serr
	}
	// Recorded once matrix.json holds the cell's fate, as the matrix's
	// report reads it (its warm-up, its state).
	if l.cfg.History != nil && r.state != Interrupted {
		if dir, derr := m.cellPath(r.id); derr == nil {
			l.cfg.History.Record(ctx, dir, l.logf)
		}
	}
	m.judgeRound(l.cfg.Judge, l.logf)
	if !m.Done() && r.state != Interrupted && !l.stop {
		l.logf("%s", EstimateLeft(m, l.cfg.Costs, time.Now()))
	}
	switch r.state {
	case Interrupted:
		l.stop = true
		l.stopErr = fmt.Errorf("matrix interrupted at cell %s: orch matrix --resume %s continues", r.id, m.Dir())
	case Failed:
		l.failed = append(l.failed, fmt.Errorf("cell %s: %w", r.id, err))
		l.stop = l.stop || l.cfg.FailFast
	}
	return nil
}

func probe(ctx context.Context, t Target) error {
	if t.Probe == nil {
		return nil
	}
	return t.Probe(ctx)
}

// snapshot is a copy of m a cell runs on while the loop goes on changing
// m: runCell reads only the cell list and the directory.
func (m *Matrix) snapshot() *Matrix {
	v := *m
	v.Cells = slices.Clone(m.Cells)
	v.Design = nil
	return &v
}

// clusterConfig is cfg for one cluster's cells of a design: its
// connections, and its progress and log lines prefixed with its name,
// since the clusters' lines interleave.
func clusterConfig(cfg ExecConfig, t Target) ExecConfig {
	c := cfg
	c.Cluster = t.Cluster
	if cfg.Logf != nil {
		c.Logf = func(format string, args ...any) { cfg.Logf(t.Name+": "+format, args...) }
	}
	if cfg.Progress != nil {
		// Line by line, not a redrawn status line: two clusters share
		// the terminal.
		c.Progress = &runner.Progress{W: &linePrefixer{w: cfg.Progress.W, prefix: t.Name + ": "},
			Total: cfg.Progress.Total, Every: cfg.Progress.Every}
	}
	return c
}

// linePrefixer writes whole lines with a prefix; writers of several
// clusters share the underlying writer through one lock.
type linePrefixer struct {
	w      io.Writer
	prefix string
	buf    []byte
}

var linePrefixMu sync.Mutex

func (p *linePrefixer) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		linePrefixMu.Lock()
		_, err := fmt.Fprintf(p.w, "%s%s", p.prefix, p.buf[:i+1])
		linePrefixMu.Unlock()
		if err != nil {
			return 0, err
		}
		p.buf = p.buf[i+1:]
	}
}
