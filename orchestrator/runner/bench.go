package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/history"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

// BenchOptions is one `orch run`: the cluster, the workload and the
// configuration to run it in, as the user gave them.
type BenchOptions struct {
	Inventory *topology.Inventory // loaded and prepared by the caller
	Workload  string              // an embedded name or a YAML file
	// Engine is the engine profile for the cluster and the tables; ""
	// is the inventory's profile.engine.
	Engine string
	Knobs  []string // server variable overrides NAME=VALUE
	// AllowUnsafe names refused settings set anyway (see UpOptions).
	AllowUnsafe []string
	Overrides   map[string]string // workload option overrides
	// NoUp runs on the cluster as it is (its network paths checked)
	// instead of bringing it to Engine and Knobs first.
	NoUp       bool
	Root       string // directory of run directories
	StallLimit time.Duration
	KeepRemote bool
	Stacks     stacks.Mode
	NoMonitors bool
	// Connect opens the cluster's sessions (the caller's SSH settings).
	Connect func(ctx context.Context, inv *topology.Inventory) *cluster.Cluster
	Version string
	Command []string
	// Err takes progress, warnings and up's steps; Terminal says it is a
	// terminal (the progress then redraws one status line).
	Err      io.Writer
	Terminal bool
	// Verbose prints every step as it starts and every client command.
	Verbose bool
	// Store and StoreConfig name the results store the run is recorded
	// in (history.Where: default Root/history.sqlite; Store "off": none).
	Store, StoreConfig string
}

// Bench is `orch run`: check the input before any host, connect and lock
// the cluster, bring it to the engine and knobs (as up does) or check its
// network paths, then Run the benchmark into a new run directory. Bad
// input is an orchestrator.InputError; an up stopped by Ctrl-C is
// ErrInterrupted (without an Outcome).
func Bench(ctx context.Context, o BenchOptions) (*Outcome, error) {
	desired, w, err := o.plan()
	if err != nil {
		return nil, err
	}
	WarnWeakSecrets(o.Err, o.Inventory)
	c := o.Connect(ctx, o.Inventory)
	defer c.Close()
	if err := c.ConnectErr(); err != nil {
		return nil, err
	}
	if err := c.Lock(ctx, "orch run"); err != nil {
		return nil, err
	}
	// The command's one stream: up's steps and the run's phases, on the
	// console and in the run directory.
	events := &step.Stream{}
	if o.NoUp {
		if err := preflight.PathsErr(preflight.Paths(ctx, c)); err != nil {
			return nil, err
		}
	} else {
		start := time.Now()
		events.Begin("", "up")
		rep, err := o.up(ctx, c, desired, events)
		events.End("", "up", time.Since(start))
		defer o.putBack(ctx, c, rep)
		if err != nil {
			return nil, err
		}
	}
	progress := &Progress{W: o.Err, Terminal: o.Terminal}
	if w.Options.TimeS != nil {
		progress.Total = time.Duration(*w.Options.TimeS) * time.Second
	}
	engine := desired.Engine
	if !w.UsesServer() {
		engine = w.Options.Engine // the library is what the run compares
	}
	return Run(ctx, Config{
		Cluster: c, Workload: w, Engine: engine, Knobs: desired.Knobs, Root: o.Root, Events: events,
		Command: o.Command, Version: o.Version, StallLimit: o.StallLimit, KeepRemote: o.KeepRemote, Stacks: o.Stacks,
		NoMonitors: o.NoMonitors, Progress: progress, Logf: func(f string, a ...any) { fmt.Fprintf(o.Err, f+"\n", a...) },
		Verbose: o.Verbose, History: &history.Where{Root: o.Root, File: o.Store, ConfigFile: o.StoreConfig},
	})
}

// plan checks everything that can be checked before any host: the
// cluster's shape, the workload, the knobs, the profile, the load boxes'
// clients. It decides the engine: the inventory's unless given, and the
// tables are created with it unless an override names another (a custom
// workload has no table engine).
func (o BenchOptions) plan() (server.Desired, *bench.Workload, error) {
	var none server.Desired
	inv := o.Inventory
	// A cluster, or one existing server benchmarked as it is (dynamic
	// knobs): what orch inventory refuses too.
	if err := inv.ValidateUse(); err != nil {
		return none, nil, orchestrator.BadInput(err)
	}
	if o.Workload == "" {
		return none, nil, orchestrator.BadInputf("run: --workload is required (%s, or a YAML file)", strings.Join(bench.BuiltinWorkloads(), ", "))
	}
	w, err := bench.LoadWorkload(o.Workload)
	if err != nil {
		return none, nil, orchestrator.BadInput(err)
	}
	kv, err := server.ParseKnobs(o.Knobs)
	if err != nil {
		return none, nil, orchestrator.BadInput(err)
	}
	desired := server.Desired{Engine: o.Engine, Knobs: kv}
	if err := warnUnsafe(o.Err, inv, kv, o.AllowUnsafe); err != nil {
		return none, nil, err
	}
	library := !w.UsesServer()
	if library {
		// --engine names the library db-insert is built against (tokudb,
		// bdb); the servers keep the inventory's profile: the load does not
		// go through them.
		desired.Engine = ""
	}
	if !o.NoUp {
		if err := server.CheckDesired(inv, desired, "--engine"); err != nil {
			return none, nil, orchestrator.BadInput(err)
		}
	}
	if desired.Engine == "" {
		desired.Engine = inv.Profile.Engine
	}
	over := map[string]string{}
	for k, v := range o.Overrides {
		over[k] = v
	}
	if _, set := over["engine"]; !set {
		switch {
		case library && o.Engine != "":
			over["engine"] = o.Engine
		case !library && w.Spec().EngineOption:
			over["engine"] = desired.Engine // tables are created with the cluster's engine
		}
	}
	if err := w.Override(over); err != nil {
		return none, nil, orchestrator.BadInput(err)
	}
	if err := CheckClients(inv, w); err != nil {
		return none, nil, orchestrator.BadInput(err)
	}
	return desired, w, nil
}

// up brings the cluster to desired, printing each step and, while a step
// takes long, which host is at which.
func (o BenchOptions) up(ctx context.Context, c *cluster.Cluster, desired server.Desired, events *step.Stream) (*up.Report, error) {
	stop := Watch(ctx, events, &step.Tracker{}, o.Err, "up", o.Verbose)
	rep, err := up.Up(ctx, c, up.Options{Desired: desired, CheckPaths: true, Events: events})
	stop()
	if rep != nil {
		for _, warn := range rep.Warnings {
			fmt.Fprintf(o.Err, "up: WARNING %s\n", warn)
		}
	}
	var intr *up.Interrupted
	if errors.As(err, &intr) {
		return rep, interruptedErr{err}
	}
	return rep, err
}

// interruptedErr is an up stopped by Ctrl-C: its own message, and
// ErrInterrupted to errors.Is.
type interruptedErr struct{ error }

func (e interruptedErr) Unwrap() error        { return e.error }
func (e interruptedErr) Is(target error) bool { return target == ErrInterrupted }

// putBack restores the variables up set at run time on an existing server.
func (o BenchOptions) putBack(ctx context.Context, c *cluster.Cluster, rep *up.Report) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := up.PutBack(ctx, c, rep); err != nil {
		fmt.Fprintf(o.Err, "run: WARNING could not put the server's variables back: %v\n", err)
	}
}

// Watch shows a command's stream on w while its steps run: each step as
// it ends (Steps), and every WaitEvery which host is at which step
// (tracker, which a second Ctrl-C reads too): a restart that takes a
// minute (a large buffer pool, a crash recovery) would otherwise be a
// silent minute after its first line. stop ends both and prints what is
// still held back.
func Watch(ctx context.Context, events *step.Stream, tracker *step.Tracker, w io.Writer, prefix string, verbose bool) (stop func()) {
	steps := NewSteps(w, prefix, verbose)
	unsubscribe := events.Subscribe(func(e step.Event) {
		tracker.Consume(e)
		steps.Consume(e)
	})
	beat := Heartbeat(ctx, WaitEvery, func(el time.Duration) {
		if doing := tracker.Unfinished(); len(doing) > 0 {
			fmt.Fprintf(w, "%s: still at it, %s (%s)\n", prefix, el, strings.Join(doing, "; "))
		}
	})
	return func() {
		beat()
		unsubscribe()
		steps.Flush()
	}
}
