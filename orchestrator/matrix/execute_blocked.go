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

// Target is one cluster of a matrix over several: its connections, and how
// to tell a cell that failed from a cluster that went away.
type Target struct {
	Name    string
	Cluster *cluster.Cluster
	// Probe connects to every host of the cluster afresh and returns why
	// one cannot be reached (nil when all can). It is asked after a cell
	// fails: unreachable hosts take the cluster out of the schedule
	// (Design.Fail) instead of counting against the configuration.
	Probe func(ctx context.Context) error
}

// ExecuteBlocked runs a matrix over several clusters (NewBlocked's design
// d, recorded in m.Design): every cluster runs its own block, one cell at a
// time, the clusters in parallel, each cell exactly as Execute runs it on
// one cluster. Only this loop touches m: the cells run on copies of it, and
// every Start, Finish, Fail and Save happens here, between cells, so
// matrix.json is always a state a resume can continue from.
//
// A cluster that cannot be reached at the start, or whose hosts stop
// answering after a failed cell, is taken out with Design.Fail (its
// unfinished rounds move, whole, to the others); with cfg.FailFast it
// stops the matrix instead, and a resume continues the same design.
func ExecuteBlocked(ctx context.Context, m *Matrix, targets []Target, cfg ExecConfig) error {
	d := m.Design
	if d == nil {
		return errors.New("matrix: no design: a matrix over several clusters is planned with NewBlocked")
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	byName := map[string]Target{}
	var names []string
	for _, t := range targets {
		byName[t.Name], names = t, append(names, t.Name)
	}
	if err := d.Check(m, names); err != nil {
		return err
	}
	var failed []error
	takeOut := func(name, reason string) error {
		if cfg.FailFast {
			return fmt.Errorf("cluster %s: %s (--fail-fast: stopped; orch matrix --resume %s continues)", name, reason, m.Dir())
		}
		left := len(d.Remaining(m, name))
		if err := d.Fail(m, name, reason); err != nil {
			return err
		}
		logf("matrix: cluster %s taken out of the schedule: %s (%d cell(s) left; unfinished rounds moved to other clusters)", name, reason, left)
		return m.Save()
	}
	for _, t := range targets {
		if b := d.block(t.Name); b.Failed != "" {
			continue
		}
		if t.Cluster == nil {
			continue
		}
		if err := t.Cluster.ConnectErr(); err != nil {
			if terr := takeOut(t.Name, "unreachable: "+err.Error()); terr != nil {
				return terr
			}
		}
	}

	type result struct {
		cluster string
		id      string
		state   State
		err     error
	}
	results := make(chan result)
	busy := map[string]bool{}
	stop := false
	var stopErr error
	for {
		for _, name := range names {
			if stop || ctx.Err() != nil || busy[name] {
				continue
			}
			c, ok := d.Next(m, name)
			if !ok {
				continue
			}
			total, done := len(m.Cells), len(m.Cells)-len(m.Remaining())
			logf("matrix: %s: cell %d/%d %s", name, done+1, total, c.ID)
			if err := m.Start(c.ID, time.Now()); err != nil {
				return err
			}
			if err := m.Save(); err != nil {
				return err
			}
			view, cell := m.snapshot(), *c
			ccfg := clusterConfig(cfg, byName[name])
			ccfg.Stacks = cellStacks(m, c, cfg.Stacks)
			busy[name] = true
			go func() {
				state, err := runCellFunc(ctx, view, &cell, ccfg)
				results <- result{cluster: name, id: cell.ID, state: state, err: err}
			}()
		}
		if len(busy) == 0 {
			break
		}
		r := <-results
		delete(busy, r.cluster)
		err := r.err
		if err != nil {
			err = errors.New(rundir.Redact(err.Error(), cfg.Secrets...))
		}
		if r.state == Failed && ctx.Err() == nil {
			if perr := probe(ctx, byName[r.cluster]); perr != nil {
				logf("matrix: %s: cell %s failed and the cluster is unreachable: %v", r.cluster, r.id, perr)
				if !cfg.FailFast {
					if terr := takeOut(r.cluster, "unreachable: "+perr.Error()); terr != nil {
						stop, stopErr = true, terr
					} else {
						continue // the cell left the matrix with its round
					}
				}
			}
		}
		if err != nil {
			logf("matrix: %s: cell %s %s: %v", r.cluster, r.id, r.state, err)
		} else {
			logf("matrix: %s: cell %s ok", r.cluster, r.id)
		}
		if ferr := m.Finish(r.id, r.state, err, time.Now()); ferr != nil {
			return ferr
		}
		if serr := m.Save(); serr != nil {
			return serr
		}
		m.judgeRound(cfg.Judge, logf)
		if !m.Done() && r.state != Interrupted && !stop {
			logf("%s", EstimateLeft(m, cfg.Costs, time.Now()))
		}
		switch r.state {
		case Interrupted:
			stop = true
			stopErr = fmt.Errorf("matrix interrupted at cell %s: orch matrix --resume %s continues", r.id, m.Dir())
		case Failed:
			failed = append(failed, fmt.Errorf("cell %s: %w", r.id, err))
			stop = stop || cfg.FailFast
		}
	}
	if stopErr == nil && ctx.Err() != nil {
		stopErr = fmt.Errorf("matrix interrupted: orch matrix --resume %s continues", m.Dir())
	}
	if stopErr != nil {
		failed = append([]error{stopErr}, failed...)
	}
	return errors.Join(failed...)
}

// runCellFunc is runCell; tests of the schedule replace it.
var runCellFunc = runCell

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

// clusterConfig is cfg for one cluster's cells: its connections, and its
// progress and log lines prefixed with its name, since the clusters'
// lines interleave.
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
