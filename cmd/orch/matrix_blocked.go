package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/matrix"
	"github.com/orch-bench/orch/orchestrator/report"
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
	repeat                                    int
	warmup                                    *int
	resuming, dryRun, failFast                bool
	stallLimit                                time.Duration
	seed                                      int64
	seedSet                                   bool
	keepRemote, waitRunning, allowAsymmetry   bool
	aa                                        bool
	noiseFloor                                string
	stacks                                    stacks.Mode
	until                                     *matrix.Until
	repeatSet                                 bool
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
	makeWorkload := m.CellWorkload
	w, err := makeWorkload(m.Engines[0])
	if err != nil {
		return &usageError{msg: err.Error()}
	}
	if err := matrix.WriteDesign(cmd.OutOrStdout(), m, m.Design, matrix.CostsOf(w)); err != nil {
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
		if err := runner.CheckClients(inv, w); err != nil {
			return usagef("cluster %s: %v", inv.Name, err)
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
		// An unreachable cluster is not locked (nothing reaches it); the
		// matrix treats it as unreachable.
		if err := c.Lock(ctx, "orch matrix"); err != nil {
			return err
		}
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
		FailFast: a.failFast, StallLimit: a.stallLimit, KeepRemote: a.keepRemote, WaitRunning: a.waitRunning, Stacks: a.stacks, Costs: matrix.CostsOf(w),
		Progress: progress, Logf: logf, Secrets: secrets, Judge: report.JudgeMatrix,
	})
	fmt.Fprintf(cmd.OutOrStdout(), "matrix: %d clusters (seed %d)\n", len(invs), m.Design.Seed)
	writeMatrixEnd(cmd, m)
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
		m, err := matrix.LoadResume(a.root, a.resume, names)
		if err != nil {
			return nil, &usageError{msg: err.Error()}
		}
		return m, nil
	}
	seed := a.seed
	if !a.seedSet {
		var err error
		if seed, err = matrix.NewSeed(); err != nil {
			return nil, err
		}
	}
	spec := matrix.Spec{Engines: a.engines, Knobs: a.knobs, Workload: a.workload, Repeat: a.repeat, WarmupS: a.warmup, Baseline: a.baseline, Overrides: a.over, AA: a.aa,
		Until: a.until, RepeatSet: a.repeatSet}
	m, err := matrix.BuildBlocked(spec, names, seed)
	if err != nil {
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
