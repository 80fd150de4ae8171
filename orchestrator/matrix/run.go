package matrix

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/history"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// Options is one `orch matrix`: what to plan (or which matrix to resume),
// the clusters it runs on, and how its cells run. One cluster is the same
// use case as several: the plan is then a matrix without a design.
type Options struct {
	// Clusters are the inventories, loaded and prepared by the caller;
	// with more than one the matrix is a randomised block design.
	Clusters []*topology.Inventory
	Spec     Spec   // the plan of a new matrix
	Root     string // directory of run directories (--runs)
	// Resume continues the matrix in ResumeDir ("" the latest under Root).
	Resume    bool
	ResumeDir string
	// Seed orders a block design's cells; nil draws one (printed and
	// recorded in matrix.json).
	Seed *int64
	// NoiseFloor is the A/A matrix the report holds verdicts against: a
	// directory, NoiseFloorAuto or NoiseFloorNone.
	NoiseFloor     string
	AllowAsymmetry bool
	// AllowMixed runs clusters whose servers differ in flavour or
	// major.minor version, and reports across them labelled NOT
	// COMPARABLE, instead of refusing (mixed.go).
	AllowMixed bool
	// AllowUnsafe names settings orch refuses (server.CheckUnsafe) that
	// the plan's knobs set anyway (--allow-unsafe-knob), with a warning.
	AllowUnsafe []string
	DryRun      bool // print the plan and stop
	FailFast    bool
	KeepRemote  bool
	WaitRunning bool
	StallLimit  time.Duration
	Stacks      stacks.Mode
	// Connect opens a cluster's sessions (the caller's SSH settings).
	Connect func(ctx context.Context, inv *topology.Inventory) *cluster.Cluster
	Version string
	Command []string
	// Out takes the plan, the closing count and the report's verdicts;
	// Err the progress and log lines. Terminal says Err is one (the
	// progress of one cluster then redraws a status line).
	Out, Err io.Writer
	Terminal bool
	// Verbose prints each cell's client commands in full (-v).
	Verbose bool
	// Store and StoreConfig name the results store each cell is recorded
	// in when it ends (history.Where: default Root/history.sqlite).
	Store, StoreConfig string
}

// --noise-floor values besides a directory.
const (
	NoiseFloorAuto = "auto"
	NoiseFloorNone = "none"
)

// Run is `orch matrix`: plan (or load for resume), check everything that
// can be checked before any host, connect and lock every cluster, validate
// the plan on the servers, create the matrix directory, run its cells
// (execute) and write the report. Bad input is an orchestrator.InputError.
func Run(ctx context.Context, o Options) error {
	u := &useCase{Options: o, multi: len(o.Clusters) > 1, linted: map[string]bool{}}
	u.logf = func(f string, a ...any) { fmt.Fprintf(o.Err, f+"\n", a...) }
	m, w, err := u.plan()
	if err != nil || o.DryRun {
		return err
	}
	targets, closeAll, err := u.connect(ctx)
	defer closeAll()
	if err != nil {
		return err
	}
	if !o.Resume {
		if err := u.validate(ctx, m, targets); err != nil {
			return err
		}
		if _, err := Create(o.Root, m, time.Now()); err != nil {
			return err
		}
		u.logf("matrix: %s", m.Dir())
	}
	progress := &runner.Progress{W: o.Err, Terminal: o.Terminal}
	if w.Options.TimeS != nil {
		progress.Total = time.Duration(*w.Options.TimeS) * time.Second
	}
	var secrets []string
	for _, inv := range o.Clusters {
		secrets = append(secrets, runner.Secrets(inv)...)
	}
	err = execute(ctx, m, targets, ExecConfig{
		Workload: m.CellWorkload, Version: o.Version, Command: o.Command, Costs: PlanCosts(o.Root, w),
		FailFast: o.FailFast, StallLimit: o.StallLimit, KeepRemote: o.KeepRemote, WaitRunning: o.WaitRunning, Stacks: o.Stacks,
		Progress: progress, Logf: u.logf, Secrets: secrets, Judge: judge.JudgeMatrix, Verbose: o.Verbose,
		History: &history.Where{Root: o.Root, File: o.Store, ConfigFile: o.StoreConfig},
	})
	u.writeEnd(m)
	if rerr := u.writeReport(m.Dir()); rerr != nil && err == nil {
		err = rerr
	}
	if rerr := u.writeDBInsert(m); rerr != nil && err == nil {
		err = rerr
	}
	return err
}

// useCase is Run's state.
type useCase struct {
	Options
	multi bool
	logf  func(string, ...any)
	// linted names the clusters whose plan was linted for fairness
	// before any host (their inventory names the flavour).
	linted map[string]bool
}

// named is err about inv, naming the cluster when there are several.
func (u *useCase) named(inv *topology.Inventory, err error) error {
	if u.multi {
		return orchestrator.BadInputf("cluster %s: %v", inv.Name, err)
	}
	return orchestrator.BadInput(err)
}

// plan checks the clusters' shapes, plans the matrix (or loads it for
// resume), prints it, and checks and lints it against every inventory,
// all before any host is contacted.
func (u *useCase) plan() (*Matrix, *bench.Workload, error) {
	var names []string
	for _, inv := range u.Clusters {
		if inv.Existing && !u.multi {
			continue // one existing server: benchmarked as it is
		}
		if err := inv.ValidateCluster(); err != nil {
			return nil, nil, u.named(inv, err)
		}
	}
	if u.multi {
		for _, inv := range u.Clusters {
			names = append(names, inv.Name)
		}
		if !u.AllowMixed {
			if err := checkSameFlavor(u.Clusters); err != nil {
				return nil, nil, err
			}
		}
	}
	m, err := u.build(names)
	if err != nil {
		return nil, nil, err
	}
	// A resumed matrix keeps the choice it was started with.
	m.AllowMixed = m.AllowMixed || u.AllowMixed
	u.AllowMixed = m.AllowMixed
	if u.Resume {
		u.logf("matrix: resuming %s: %d of %d cells left", m.Dir(), len(m.Remaining()), len(m.Cells))
	} else if err := u.planNoiseFloor(m); err != nil {
		return nil, nil, err
	}
	w, err := m.CellWorkload(m.Engines[0])
	if err != nil {
		return nil, nil, orchestrator.BadInput(err)
	}
	if err := u.checkOffline(m); err != nil {
		return nil, nil, err
	}
	for _, inv := range u.Clusters {
		if err := runner.CheckClients(inv, w); err != nil {
			return nil, nil, u.named(inv, err)
		}
	}
	if m.Design != nil {
		err = WriteDesign(u.Out, m, m.Design, PlanCosts(u.Root, w))
	} else {
		err = WritePlan(u.Out, m, PlanCosts(u.Root, w))
	}
	if err != nil {
		return nil, nil, err
	}
	// Linted before any host when the inventory names the flavour, else
	// once the servers have said what they are (validate).
	for _, inv := range u.Clusters {
		ok, err := u.lint(inv, m, "")
		if err != nil {
			return nil, nil, err
		}
		u.linted[inv.Name] = ok
	}
	return m, w, nil
}

// build plans the matrix, or loads it for --resume and checks it still
// matches the clusters (names: nil for one cluster).
func (u *useCase) build(names []string) (*Matrix, error) {
	if u.Resume {
		m, err := LoadResume(u.Root, u.ResumeDir, names)
		return m, orchestrator.BadInput(err)
	}
	if u.Spec.Engines == "" {
		u.Spec.Engines = defaultEngines(u.Clusters)
	}
	if names == nil {
		m, err := Build(u.Spec)
		return m, orchestrator.BadInput(err)
	}
	var seed int64
	if u.Seed != nil {
		seed = *u.Seed
	} else {
		var err error
		if seed, err = NewSeed(); err != nil {
			return nil, err
		}
	}
	m, err := BuildBlocked(u.Spec, names, seed)
	return m, orchestrator.BadInput(err)
}

// defaultEngines are the engines of a matrix given none: the clusters'
// profile.engine, when they agree ("" when not: Build then asks for
// --engines).
func defaultEngines(invs []*topology.Inventory) string {
	engine := ""
	for i, inv := range invs {
		if i > 0 && inv.Profile.Engine != engine {
			return ""
		}
		engine = inv.Profile.Engine
	}
	return engine
}

// connect opens and locks every cluster. One cluster that cannot be
// reached stops the matrix; one of several is taken out by execute (an
// unreachable cluster is not locked: nothing reaches it).
func (u *useCase) connect(ctx context.Context) (targets []Target, closeAll func(), err error) {
	var opened []*cluster.Cluster
	closeAll = func() {
		for _, c := range opened {
			c.Close()
		}
	}
	for _, inv := range u.Clusters {
		runner.WarnWeakSecrets(u.Err, inv)
		c := u.Connect(ctx, inv)
		opened = append(opened, c)
		if !u.multi {
			if err := c.ConnectErr(); err != nil {
				return nil, closeAll, err
			}
		}
		if err := c.Lock(ctx, "orch matrix"); err != nil {
			return nil, closeAll, err
		}
		t := Target{Name: inv.Name, Cluster: c}
		if u.multi {
			t.Probe = u.prober(inv)
		}
		targets = append(targets, t)
	}
	return targets, closeAll, nil
}

// prober dials every host of inv afresh: after a failed cell, it tells a
// cluster that went away from a configuration that failed.
func (u *useCase) prober(inv *topology.Inventory) func(context.Context) error {
	return func(ctx context.Context) error {
		c := u.Connect(ctx, inv)
		defer c.Close()
		return c.ConnectErr()
	}
}

// validate checks the plan's knobs against every cluster that answers,
// says which have no effect, lints the plan for fairness where the
// inventory did not name the flavour, and refuses clusters of different
// servers (unless AllowMixed).
func (u *useCase) validate(ctx context.Context, m *Matrix, targets []Target) error {
	checked := 0
	var names []string
	var servers []flavor.Server
	for i, t := range targets {
		if t.Cluster.ConnectErr() != nil {
			continue
		}
		srv, err := Validate(ctx, t.Cluster, m)
		if err != nil {
			if u.multi {
				return fmt.Errorf("cluster %s: %w", t.Name, err)
			}
			return err
		}
		if !u.linted[t.Name] {
			if _, err := u.lint(u.Clusters[i], m, string(srv.Flavor)+":"+srv.Version.String()); err != nil {
				return err
			}
		}
		names, servers = append(names, t.Name), append(servers, srv)
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("matrix: no cluster can be reached: %w", targets[0].Cluster.ConnectErr())
	}
	if !u.AllowMixed {
		return checkSameServers(names, servers)
	}
	return nil
}
