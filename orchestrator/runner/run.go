package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/history"
	"github.com/orch-bench/orch/orchestrator/monitor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// Config is one `orch run`.
type Config struct {
	Cluster  *cluster.Cluster // connected to every host of the inventory
	Workload *bench.Workload  // overrides applied
	// Engine is the cluster's engine profile (recorded; the tables are
	// created with it).
	Engine string
	Knobs  []server.KV
	Root   string // runs directory (default "runs")
	// Dir, when set, is the run directory to use (a matrix cell's) instead
	// of a new one under Root.
	Dir *rundir.Dir
	// Events is the command's stream (package step): the steps of the up
	// just before the run, if any, with its whole time as the step "up"
	// on host "", are in it already. The run adds its own phases (host
	// "": connect, snapshot, prepare, run, checks, profile); the run
	// directory's events.jsonl gets all of it, and results.json's
	// phases_s are its phase ends. nil: a stream of the run's own.
	Events  *step.Stream
	Command []string // orch's argv, redacted before it is saved
	Version string   // orch's version
	// StallLimit stops a run whose master makes no progress this long.
	StallLimit time.Duration
	// Reattach is how long to keep trying to re-attach to the benchmark's
	// output after the connection to its host breaks (default 5m).
	Reattach time.Duration
	// KeepRemote keeps the benchmark's working directory on its host after
	// a complete collect (it is removed by default).
	KeepRemote bool
	Progress   *Progress
	Logf       func(format string, args ...any)
	// Stacks is --stacks: how to sample the servers' thread stacks in the
	// profiling tail after the run ("" is auto: perf where it works).
	Stacks stacks.Mode
	// NoMonitors (--monitor=off) runs without the per-second series and
	// the stall watchdog: only for measuring what watching costs.
	NoMonitors bool
	// History, when set, is the results store the run is recorded in
	// when it ends (orchestrator/history).
	History *history.Where
	// Verbose prints each client command in full on the console (it is
	// always in benchmark/commands.txt); otherwise only the step's name.
	Verbose bool
}

// Outcome is how a run ended.
type Outcome struct {
	Dir     *rundir.Dir
	Status  rundir.Status
	Results *schema.Results
}

// ErrInterrupted is returned when the run was stopped by the user.
var ErrInterrupted = errors.New("interrupted")

// run is the state of one run while it goes.
type run struct {
	cfg     Config
	inv     *topology.Inventory
	dir     *rundir.Dir
	db      *cluster.Sessions // the cluster's, shared with the command
	bexec   executor.Executor
	bhost   string         // name of the host the benchmark runs on
	remote  string         // the benchmark's directory there
	stale   *rundir.Remote // an earlier attempt's directory, removed at connect
	clients []*client      // the hosts the run phase runs on, r.bhost first (loadboxes.go)
	// staleClients are an earlier attempt's directories on the other load boxes.
	staleClients []*rundir.Remote
	marker       string // in every benchmark process's environment (marker.go)
	driver       bench.Driver
	secrets      []string
	logf         func(string, ...any)

	mu      sync.Mutex
	stopped string // why the benchmark was stopped early ("" if it was not)
	// measured is set once the run's load and checks are complete: what
	// follows (the profiling tail) cannot make it interrupted or failed.
	measured bool
	// snappedAfter: the "after" snapshot is taken (before the tail, so
	// that it shows the run's servers, not the tail's).
	snappedAfter bool
	// journals are where the journal stood at the start, per host whose
	// server logs there (log_error unset under systemd).
	journals     map[string]server.LogMark
	loadStartsAt func(time.Time) // marks the load's start (monitor.LoadStartsAt)
}

// Run performs the whole run; the returned Outcome's Dir holds everything
// that happened, also when err is not nil.
func Run(ctx context.Context, cfg Config) (*Outcome, error) {
	r, err := start(cfg)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Dir: r.dir}
	phases, stopEvents := r.followEvents()
	// Everything sent to the hosts while this run goes is in its
	// hosts/<name>/commands.jsonl (the cluster's connections outlive it).
	cmds := r.dir.CommandLog(r.secrets...)
	restore := cfg.Cluster.LogCommands(cmds)
	res, runErr := r.execute(ctx)
	out.Status = rundir.StatusOK
	switch {
	case runErr == nil && r.measured:
	case errors.Is(runErr, ErrInterrupted) || ctx.Err() != nil:
		out.Status = rundir.StatusInterrupted
	case runErr != nil:
		out.Status = rundir.StatusFailed
	}
	// Whatever happened, finish the run directory with a fresh context: an
	// interrupted run still collects what it can.
	fctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := r.finish(fctx, out.Status, runErr); err != nil {
		r.logf("run: %v", err)
		if rundir.IsNoSpace(err) && runErr == nil {
			runErr = err // what was collected is not all there
		}
	}
	if res == nil {
		res = schema.NewResults()
	}
	if res.Benchmark.Result == nil {
		r.parse(res) // the output is complete only now (interrupted runs)
	}
	res.Phases = phases()
	out.Results = res
	if err := r.writeResults(res); err != nil && runErr == nil {
		runErr = err
	}
	restore()
	if err := cmds.Close(); err != nil {
		r.logf("run: %v", err)
	}
	if err := stopEvents(); err != nil {
		r.logf("run: %v", err)
	}
	found, err := rundir.ScanForSecrets(r.dir.Path(), r.secrets)
	if err == nil && len(found) > 0 {
		err = fmt.Errorf("run directory: a password was found in %v; remove these files before sharing the run", found)
	}
	manifestErr := runErr
	if err != nil {
		out.Status, manifestErr = rundir.StatusFailed, err
		if runErr == nil {
			runErr = err
		}
	}
	// A run that could not keep what it found (results.json on a full
	// disk) failed; the manifest's last update says so, also on a full
	// disk (FinishManifest spends the space the run directory reserved).
	if runErr != nil && out.Status == rundir.StatusOK {
		out.Status = rundir.StatusFailed
	}
	if err := r.dir.FinishManifest(out.Status, manifestErr); err != nil {
		r.logf("run: %v", err)
	}
	if cfg.History != nil {
		cfg.History.Record(fctx, r.dir.Path(), r.logf)
	}
	return out, runErr
}

func start(cfg Config) (*run, error) {
	c := cfg.Cluster
	inv := c.Inventory
	if cfg.Root == "" {
		cfg.Root = "runs"
	}
	if cfg.Reattach == 0 {
		cfg.Reattach = 5 * time.Minute
	}
	if cfg.Events == nil {
		cfg.Events = &step.Stream{}
	}
	logf := cfg.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	driver, err := bench.NewDriver(cfg.Workload)
	if err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	name := cfg.Workload.Name
	if cfg.Engine != "" {
		name += "-" + cfg.Engine
	}
	dir := cfg.Dir
	if dir == nil {
		if dir, err = rundir.Create(cfg.Root, name, now); err != nil {
			return nil, err
		}
	}
	marker, err := newMarker()
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, inv: inv, dir: dir, driver: driver, logf: logf, marker: marker}
	if old, err := dir.LoadManifest(); err == nil && old.Remote != nil && !old.Remote.Removed {
		r.stale = old.Remote // a redone matrix cell: the last attempt's working directory
	}
	if old, err := dir.LoadManifest(); err == nil {
		r.staleClients = old.ClientRemotes // and the other load boxes' (loadboxes.go)
	}
	r.secrets = Secrets(inv)
	m := &rundir.Manifest{
		SchemaVersion: rundir.SchemaVersion,
		OrchVersion:   cfg.Version,
		Command:       rundir.RedactArgs(cfg.Command, r.secrets...),
		Engine:        cfg.Engine,
		Start:         now,
		Status:        rundir.StatusRunning,
	}
	if len(cfg.Knobs) > 0 {
		m.Knobs = map[string]string{}
		for _, k := range cfg.Knobs {
			m.Knobs[k.Name] = k.Value
		}
	}
	if err := m.SetInventory(inv); err != nil {
		return nil, err
	}
	if err := m.SetWorkload(cfg.Workload); err != nil {
		return nil, err
	}
	if err := dir.SaveManifest(m); err != nil {
		return nil, err
	}
	dir.Reserve() // spent by FinishManifest if the disk fills
	logf("run: %s", dir.Path())
	return r, nil
}

// Secrets resolves every password the inventory refers to, so a run
// directory (or a matrix's state) can be proven free of them.
func Secrets(inv *topology.Inventory) []string {
	var out []string
	add := func(s topology.Secret) {
		if v, err := s.Resolve(); err == nil && v != "" {
			out = append(out, v)
		}
	}
	add(inv.Replication.Password)
	add(inv.Benchmark.Password)
	for _, h := range inv.Hosts {
		add(h.SSH.Password)
		add(h.SSH.SudoPassword)
		add(h.SSH.Passphrase)
		add(h.MySQL.Password)
	}
	return out
}

// execute is the run proper: snapshot, prepare, benchmark under monitors,
// checks. Its error decides the run's status.
func (r *run) execute(ctx context.Context) (*schema.Results, error) {
	res := schema.NewResults()
	// Each phase is a step of the run (host ""): where orch's own time per
	// run goes, beside the benchmark's (make bench reads phases_s).
	cur, since := "", time.Time{}
	next := func(name string) {
		now := time.Now()
		if cur != "" {
			r.cfg.Events.End("", cur, now.Sub(since))
		}
		if name != "" {
			r.cfg.Events.Begin("", name)
		}
		cur, since = name, now
	}
	defer next("")
	next("connect")
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	lock, err := lockServer(ctx, r.db.Master, benchLockName(r.cfg.Cluster.Inventory))
	if err != nil {
		return nil, err
	}
	defer func() {
		if err := lock.Release(); err != nil {
			r.logf("run: %s: release the benchmark lock: %v", r.db.Master, err)
		}
	}()
	next("snapshot")
	if err := r.snapshot(ctx, "before"); err != nil {
		return nil, err
	}
	next("prepare")
	if err := r.prepare(ctx); err != nil {
		return nil, err
	}
	if err := r.checkPrepared(ctx); err != nil {
		return nil, err
	}
	next("run")
	mon, err := r.startMonitors(ctx)
	if err != nil {
		return nil, err
	}
	// The clients start at an instant runPhase fixes (seconds later when
	// several start together) and mark it then.
	r.loadStartsAt = mon.LoadStartsAt
	code, runErr := r.runPhase(ctx)
	loadEnd := mon.SetLoadActive(false)
	// The slaves' catch-up is timed from the load's end: the wait starts
	// now, while the monitors stop.
	catchUp := r.startCatchUp(ctx, loadEnd, runErr == nil && code == 0 && r.stoppedWhy() == "")
	defer catchUp.cancel()
	summary, monErr := mon.Stop()
	if !r.cfg.NoMonitors {
		res.Monitor = summary
	}
	res.Instruments = &schema.Instruments{Monitors: !r.cfg.NoMonitors, Stacks: string(stacks.Off)}
	if monErr != nil {
		r.logf("run: monitors: %v", monErr)
	}
	r.parse(res)
	if runErr != nil {
		return res, runErr
	}
	if why := r.stoppedWhy(); why != "" {
		return res, fmt.Errorf("benchmark stopped: %s", why)
	}
	if code != 0 {
		return res, r.exitError()
	}
	next("checks")
	if err := r.checks(ctx, res, catchUp); err != nil {
		return res, err
	}
	// Figures the client printed that cannot be read (NaN, a negative
	// count, an overflow) leave nothing a report could stand on: the run
	// fails, saying so, instead of ending "ok" without figures.
	if res.ParseError != "" {
		return res, fmt.Errorf("cannot read the client's figures (%s)", res.ParseError)
	}
	r.measured = true
	if err := r.snapshot(ctx, "after"); err != nil {
		r.logf("run: %v", err)
	}
	r.snappedAfter = true
	next("profile")
	r.profileTail(ctx, res)
	return res, nil
}

func (r *run) stoppedWhy() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopped
}

// stopBenchmark is the monitors' OnStall: the master is stuck, so waiting
// for the benchmark's own end could take an hour.
func (r *run) stopBenchmark(why string) {
	r.mu.Lock()
	if r.stopped != "" {
		r.mu.Unlock()
		return
	}
	r.stopped = why
	r.mu.Unlock()
	r.logf("run: stopping the benchmark: %s", why)
	r.stopClients(bench.PhaseRun, r.clients)
}

// startMonitors starts the per-second series and the stall watchdog; with
// NoMonitors, a monitor of no host, which only writes the events
// (load_start, load_end) that bracket the measured load.
func (r *run) startMonitors(ctx context.Context) (*monitor.Monitor, error) {
	dbs, boxes := r.db.DB(), r.clientBoxes() // the clients' CPU: client-bound runs
	if r.cfg.NoMonitors {
		dbs, boxes = nil, nil
		r.logf("run: --monitor=off: no time series and no stall watchdog")
	}
	return monitor.Start(ctx, monitor.Config{
		Dir:          r.dir.Path(),
		StallLimit:   r.cfg.StallLimit,
		NoStallWatch: !r.cfg.Workload.UsesServer(),
		OnStall: func(e monitor.Event) {
			r.stopBenchmark(e.Detail)
		},
	}, dbs, boxes)
}

// writeFile saves a small file into the run directory, logging failures
// instead of failing the run: a missing snapshot is evidence lost, not a
// reason to stop a benchmark.
func (r *run) writeFile(rel string, data []byte) {
	if err := r.dir.WriteFile(rel, data); err != nil {
		r.logf("run: %v", err)
	}
}

// complete turns a fully followed .part file into the final file.
func (r *run) complete(f *os.File, local string) error {
	if err := f.Close(); err != nil {
		return err
	}
	final, err := r.dir.Abs(local)
	if err != nil {
		return err
	}
	if err := os.Rename(final+rundir.PartSuffix, final); err != nil {
		return err
	}
	return r.dir.UpdateManifest(func(m *rundir.Manifest) error { m.MarkDone(local); return nil })
}
