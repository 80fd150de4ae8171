package matrix

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/history"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/orchestrator/up"
)

// ExecConfig is how a matrix runs its cells.
type ExecConfig struct {
	// Cluster is the cluster a cell runs on; execute sets it from the
	// cell's Target.
	Cluster *cluster.Cluster
	// Workload returns a fresh workload for a cell's engine, overrides
	// applied (a workload is changed by the runner, so never shared).
	Workload func(engine string) (*bench.Workload, error)
	Version  string
	Command  []string
	// FailFast stops at the first failed cell (or unreachable cluster); by
	// default a failed cell is recorded with its reason and the matrix goes on.
	FailFast   bool
	StallLimit time.Duration
	// KeepRemote keeps each cell's working directory on the load box.
	KeepRemote bool
	Stacks     stacks.Mode // --stacks, for every cell's run
	Verbose    bool        // -v: every client command in full on the console
	Progress   *runner.Progress
	// Costs are the plan's static estimate, which the running ETA uses
	// until cells have been measured (eta.go).
	Costs Costs
	Logf  func(format string, args ...any)
	// Secrets are masked out of cell errors saved in matrix.json.
	Secrets []string

	// History records each cell when it ends, once matrix.json says how
	// (schedule.go; nil: not recorded).
	History *history.Where

	// Judge judges each complete round of a matrix with a stopping rule
	// (m.Until); nil runs every cell.
	Judge Judge

	// WaitRunning lets a benchmark an interrupted cell left running end
	// before the cell is redone; by default it is stopped (settleAttempt).
	WaitRunning bool
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

// runCellFunc is runCell; tests of the schedule replace it.
var runCellFunc = runCell

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
	desired := m.Desired(c)
	// Restarts take a while: say which host is at which step meanwhile.
	// The cell's one stream: up's steps (followed for the heartbeat) and
	// the run's phases, all in the cell's events.jsonl.
	events, tracker := &step.Stream{}, &step.Tracker{}
	unfollow := events.Subscribe(tracker.Consume)
	stop := runner.Heartbeat(ctx, runner.WaitEvery, func(el time.Duration) {
		if cfg.Logf != nil {
			cfg.Logf("matrix: bringing the cluster to %s: %s (%s)", c.Label, el, strings.Join(tracker.Unfinished(), "; "))
		}
	})
	path, err := m.CellDir(c.ID)
	if err != nil {
		return Failed, err
	}
	d, err := rundir.Open(path)
	if err != nil {
		return Failed, err
	}
	// The cell's up is in its hosts/<name>/commands.jsonl too.
	upLog := d.CommandLog(cfg.Secrets...)
	restore := cfg.Cluster.LogCommands(upLog)
	upStart := time.Now()
	events.Begin("", "up")
	rep, err := up.Up(ctx, cfg.Cluster, up.Options{Desired: desired, Events: events})
	events.End("", "up", time.Since(upStart))
	stop()
	unfollow()
	restore()
	if cerr := upLog.Close(); cerr != nil && cfg.Logf != nil {
		cfg.Logf("matrix: %s: command log: %v", c.ID, cerr)
	}
	if err != nil {
		return interrupted(fmt.Errorf("up: %w", err))
	}
	// An existing server gets its own values back after each cell.
	defer up.PutBack(context.WithoutCancel(ctx), cfg.Cluster, rep)
	w, err := cfg.Workload(c.Engine)
	if err != nil {
		return Failed, err
	}
	out, err := runner.Run(ctx, runner.Config{
		Cluster: cfg.Cluster, Workload: w, Engine: c.Engine, Knobs: desired.Knobs, Dir: d, Events: events,
		Command: cfg.Command, Version: cfg.Version, StallLimit: cfg.StallLimit, KeepRemote: cfg.KeepRemote, Stacks: cfg.Stacks,
		Progress: cfg.Progress, Logf: cfg.Logf, Verbose: cfg.Verbose,
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
