package matrix

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/orchestrator/up"
)

// ExecConfig is how a matrix runs its cells.
type ExecConfig struct {
	Cluster *cluster.Cluster
	// Workload returns a fresh workload for a cell's engine, overrides
	// applied (a workload is changed by the runner, so never shared).
	Workload func(engine string) (*bench.Workload, error)
	Version  string
	Command  []string
	// FailFast stops at the first failed cell; by default a failed cell is
	// recorded with its reason and the matrix goes on.
	FailFast   bool
	StallLimit time.Duration
	// KeepRemote keeps each cell's working directory on the load box.
	KeepRemote bool
	Stacks     stacks.Mode // --stacks, for every cell's run
	Progress   *runner.Progress
	// Costs are the plan's static estimate, which the running ETA uses
	// until cells have been measured (eta.go).
	Costs Costs
	Logf  func(format string, args ...any)
	// Secrets are masked out of cell errors saved in matrix.json.
	Secrets []string

	// Judge judges each complete round of a matrix with a stopping rule
	// (m.Until); nil runs every cell.
	Judge Judge

	// WaitRunning lets a benchmark an interrupted cell left running end
	// before the cell is redone; by default it is stopped (settleAttempt).
	WaitRunning bool
}

// Execute runs every unfinished cell in order: bring the cluster to the
// cell's engine and knobs (restarting only for static changes, re-verifying
// replication), then run the benchmark into the cell's run directory. It
// saves matrix.json around every cell, so a crash or Ctrl-C loses at most
// the cell in progress, which --resume runs again.
func Execute(ctx context.Context, m *Matrix, cfg ExecConfig) error {
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var failed []error
	for {
		c, ok := m.Next()
		if !ok {
			break
		}
		total, done := len(m.Cells), len(m.Cells)-len(m.Remaining())
		logf("matrix: cell %d/%d %s", done+1, total, c.ID)
		if err := m.Start(c.ID, time.Now()); err != nil {
			return err
		}
		if err := m.Save(); err != nil {
			return err
		}
		ccfg := cfg
		ccfg.Stacks = cellStacks(m, c, cfg.Stacks)
		state, err := runCell(ctx, m, c, ccfg)
		if err != nil {
			err = errors.New(rundir.Redact(err.Error(), cfg.Secrets...))
			logf("matrix: cell %s %s: %v", c.ID, state, err)
		} else {
			logf("matrix: cell %s ok", c.ID)
		}
		if ferr := m.Finish(c.ID, state, err, time.Now()); ferr != nil {
			return ferr
		}
		if serr := m.Save(); serr != nil {
			return serr
		}
		m.judgeRound(cfg.Judge, logf)
		if !m.Done() && state != Interrupted {
			logf("%s", EstimateLeft(m, cfg.Costs, time.Now()))
		}
		switch {
		case state == Interrupted:
			return fmt.Errorf("matrix interrupted at cell %s: orch matrix --resume %s continues", c.ID, m.Dir())
		case state == Failed:
			failed = append(failed, fmt.Errorf("cell %s: %w", c.ID, err))
			if cfg.FailFast {
				return errors.Join(failed...)
			}
		}
	}
	return errors.Join(failed...)
}

// cellStacks is the stack sampling of a cell: the matrix's for the first
// cell of each configuration that ends ok, off for the others. Stacks
// explain a configuration, and its repetitions run the same code, so one
// profiling tail per configuration (per cluster in a block design) says
// what a tail per cell would, without adding its seconds to every cell.
func cellStacks(m *Matrix, c *Cell, mode stacks.Mode) stacks.Mode {
	for _, o := range m.Cells {
		if o.ID != c.ID && o.Label == c.Label && o.State == OK && sameCluster(o.ID, c.ID, m) {
			return stacks.Off
		}
	}
	return mode
}

// sameCluster reports whether two cells run on the same cluster (always,
// without a block design: cell ids then carry no cluster).
func sameCluster(a, b string, m *Matrix) bool {
	if m.Design == nil {
		return true
	}
	return m.Design.ClusterOf(a) == m.Design.ClusterOf(b)
}

// runCell brings the cluster to the cell's configuration and runs it.
func runCell(ctx context.Context, m *Matrix, c *Cell, cfg ExecConfig) (State, error) {
	interrupted := func(err error) (State, error) {
		if ctx.Err() != nil || errors.Is(err, runner.ErrInterrupted) {
			return Interrupted, err
		}
		return Failed, err
	}
	if err := settleAttempt(ctx, m, c, cfg); err != nil {
		return interrupted(err)
	}
	desired := server.Desired{Engine: c.Engine, Knobs: c.ServerKnobs()}
	// Restarts take a while: say which host is at which step meanwhile.
	tracker := &up.Tracker{}
	stop := runner.Heartbeat(ctx, runner.WaitEvery, func(el time.Duration) {
		if cfg.Logf != nil {
			cfg.Logf("matrix: bringing the cluster to %s: %s (%s)", c.Label, el, strings.Join(tracker.Unfinished(), "; "))
		}
	})
	upStart := time.Now()
	rep, err := up.Up(ctx, cfg.Cluster, up.Options{Desired: desired, Tracker: tracker})
	upTook := time.Since(upStart)
	stop()
	if err != nil {
		return interrupted(fmt.Errorf("up: %w", err))
	}
	// An existing server gets its own values back after each cell.
	defer up.PutBack(context.WithoutCancel(ctx), cfg.Cluster, rep)
	w, err := cfg.Workload(c.Engine)
	if err != nil {
		return Failed, err
	}
	path, err := m.CellDir(c.ID)
	if err != nil {
		return Failed, err
	}
	d, err := rundir.Open(path)
	if err != nil {
		return Failed, err
	}
	out, err := runner.Run(ctx, runner.Config{
		Cluster: cfg.Cluster, Workload: w, Engine: c.Engine, Knobs: desired.Knobs, Dir: d, UpTook: upTook,
		Command: cfg.Command, Version: cfg.Version, StallLimit: cfg.StallLimit, KeepRemote: cfg.KeepRemote, Stacks: cfg.Stacks,
		Progress: cfg.Progress, Logf: cfg.Logf,
	})
	if err != nil {
		return interrupted(err)
	}
	switch out.Status {
	case rundir.StatusOK:
		return OK, nil
	case rundir.StatusInterrupted:
		// Ctrl-C: the cell is redone by --resume, not counted as failed.
		return Interrupted, fmt.Errorf("run %s", out.Status)
	}
	return Failed, fmt.Errorf("run %s", out.Status)
}
