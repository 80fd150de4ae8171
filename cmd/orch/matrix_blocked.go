package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/matrix"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// blockedArgs are the matrix command's flags, for a matrix over several
// clusters.
type blockedArgs struct {
	engines, workload, root, baseline, resume string
	knobs                                     []string
	over                                      map[string]string
	repeat, warmup                            int
	resuming, dryRun, failFast                bool
	stallLimit                                time.Duration
	seed                                      int64
	seedSet                                   bool
	keepRemote, allowAsymmetry, aa            bool
	noiseFloor                                string
	stacks                                    stacks.Mode
}

// cellWorkload returns, for m, a fresh workload per cell engine with the
// matrix's overrides applied (the runner changes a workload: never shared).
func cellWorkload(m *matrix.Matrix) func(engine string) (*bench.Workload, error) {
	return func(engine string) (*bench.Workload, error) {
		w, err := bench.LoadWorkload(m.Workload)
		if err != nil {
			return nil, err
		}
		over := map[string]string{}
		for k, v := range m.Overrides {
			over[k] = v
		}
		if _, set := over["engine"]; !set && w.Tool != bench.DriverCustom {
			over["engine"] = engine
		}
		return w, w.Override(over)
	}
}

// runBlockedMatrix is `orch matrix` over several clusters: a randomised
// block design (matrix.NewBlocked), run by matrix.ExecuteBlocked.
func runBlockedMatrix(cmd *cobra.Command, g *globalOptions, invs []*topology.Inventory, a blockedArgs) error {
	stderr := cmd.ErrOrStderr()
	logf := func(f string, args ...any) { fmt.Fprintf(stderr, f+"\n", args...) }
	if err := validateClusters(invs); err != nil {
		return err
	}
	var names []string
	for _, inv := range invs {
		names = append(names, inv.Name)
	}
	m, err := blockedMatrix(a, names)
	if err != nil {
		return err
	}
	if !a.resuming {
		if err := planNoiseFloor(cmd, m, a.noiseFloor, a.root); err != nil {
			return err
		}
	}
	if a.resuming {
		logf("matrix: resuming %s: %d of %d cells left", m.Dir(), len(m.Remaining()), len(m.Cells))
	}
	makeWorkload := cellWorkload(m)
	w, err := makeWorkload(m.Engines[0])
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if err := matrix.WriteDesign(cmd.OutOrStdout(), m, m.Design, planCosts(w)); err != nil {
		return err
	}
	// Every cluster's profiles are checked, and linted for fairness, before
	// any host is contacted (each cluster's inventory may differ).
	for _, inv := range invs {
		for _, e := range m.Engines {
			if err := server.CheckDesired(inv, server.Desired{Engine: e}, "--engines"); err != nil {
				return usagef("cluster %s: %v", inv.Name, err)
			}
		}
		if _, err := lintPlan(cmd, inv, m, "", a.allowAsymmetry); err != nil {
			return err
		}
	}
	if a.dryRun {
		return nil
	}
	ctx := cmd.Context()
	var targets []matrix.Target
	var secrets []string
	for _, inv := range invs {
		c := g.connect(ctx, inv, inv.Hosts)
		defer c.Close()
		targets = append(targets, matrix.Target{Name: inv.Name, Cluster: c, Probe: g.prober(inv)})
		secrets = append(secrets, runner.Secrets(inv)...)
	}
	if !a.resuming {
		if err := validateOnReachable(cmd, targets, m); err != nil {
			return err
		}
		if _, err := matrix.Create(a.root, m, time.Now()); err != nil {
			return err
		}
		logf("matrix: %s", m.Dir())
	}
	progress := &runner.Progress{W: stderr}
	if w.Options.TimeS != nil {
		progress.Total = time.Duration(*w.Options.TimeS) * time.Second
	}
	err = matrix.ExecuteBlocked(ctx, m, targets, matrix.ExecConfig{
		Workload: makeWorkload, Version: buildVersion(), Command: os.Args,
		FailFast: a.failFast, StallLimit: a.stallLimit, KeepRemote: a.keepRemote, Stacks: a.stacks, Costs: planCosts(w),
		Progress: progress, Logf: logf, Secrets: secrets,
	})
	fmt.Fprintf(cmd.OutOrStdout(), "matrix %s: %d ok, %d failed, %d not run on %d clusters (seed %d)\n", m.Dir(),
		m.Count(matrix.OK), m.Count(matrix.Failed), len(m.Remaining()), len(invs), m.Design.Seed)
	for _, b := range m.Design.Blocks {
		if b.Failed != "" {
			fmt.Fprintf(cmd.OutOrStdout(), "matrix: cluster %s was taken out: %s\n", b.Cluster, b.Failed)
		}
	}
	if rerr := writeMatrixReport(cmd, m.Dir()); rerr != nil && err == nil {
		err = rerr
	}
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: err}
	}
	return err
}

// blockedMatrix plans the design, or loads it for --resume and checks it
// still matches the inventory's clusters.
func blockedMatrix(a blockedArgs, names []string) (*matrix.Matrix, error) {
	if a.resuming {
		dir := a.resume
		if dir == "" {
			var err error
			if dir, err = matrix.FindLatest(a.root); err != nil {
				return nil, &usageError{msg: err.Error()}
			}
		}
		m, err := matrix.Load(dir)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		if m.Design == nil {
			return nil, usagef("matrix %s ran on one cluster: resume it on that cluster (--cluster NAME)", m.Dir())
		}
		if err := m.Design.Check(m, names); err != nil {
			return nil, usagef("matrix %s: %v", m.Dir(), err)
		}
		return m, nil
	}
	// newMatrix validates every flag as for one cluster; the design then
	// replaces its cells.
	one, err := newMatrix(a.engines, a.knobs, a.workload, a.repeat, a.warmup, a.baseline, a.over, a.aa)
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	seed := a.seed
	if !a.seedSet {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		seed = int64(binary.LittleEndian.Uint64(b[:]) >> 1)
	}
	var m *matrix.Matrix
	if one.AA {
		m, _, err = matrix.NewBlockedAA(one.Workload, one.Engines[0], one.Knobs, one.Repeat, names, seed)
	} else {
		m, _, err = matrix.NewBlocked(one.Workload, one.Engines, one.Knobs, one.Repeat, names, seed, true)
	}
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	m.Overrides, m.WarmupS = one.Overrides, one.WarmupS
	if err := m.SetBaseline(one.Baseline); err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return m, nil
}

// validateOnReachable checks the plan's knobs against every cluster that
// answers (ExecuteBlocked takes the others out, or stops with
// --fail-fast).
func validateOnReachable(cmd *cobra.Command, targets []matrix.Target, m *matrix.Matrix) error {
	checked := 0
	for _, t := range targets {
		if t.Cluster.ConnectErr() != nil {
			continue
		}
		if _, err := validatePlan(cmd, t.Cluster, m); err != nil {
			return fmt.Errorf("cluster %s: %w", t.Name, err)
		}
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("matrix: no cluster can be reached: %w", targets[0].Cluster.ConnectErr())
	}
	return nil
}

// prober dials every host of inv afresh: after a failed cell, it tells a
// cluster that went away from a configuration that failed.
func (g *globalOptions) prober(inv *topology.Inventory) func(context.Context) error {
	return func(ctx context.Context) error {
		c := g.connect(ctx, inv, inv.Hosts)
		defer c.Close()
		return c.ConnectErr()
	}
}
