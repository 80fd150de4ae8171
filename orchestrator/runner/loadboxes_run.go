package runner

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// runPhase is the run phase on every client, one or several.
func (r *run) runPhase(ctx context.Context) (int, error) {
	return r.phaseOn(ctx, bench.PhaseRun, r.clients)
}

// preparer is the benchmark host as the one client of prepare or cleanup:
// the whole workload, once, its output in benchmark/<phase>.txt.
func (r *run) preparer(p bench.Phase) *client {
	return &client{name: r.bhost, exec: r.bexec, remote: r.remote, driver: r.driver, local: path.Join("benchmark", string(p)+".txt")}
}

// phaseOn runs a phase on clients, one or several, by one path: launched
// detached (several behind a barrier, their clocks read first), every
// output followed into its own file; stopped on Ctrl-C or a full disk.
// The run phase (on every client) is the measured load: it marks the
// load's start for the monitors, feeds the live display and reads when
// each client began; prepare and cleanup run on the preparer. It returns
// the first non-zero exit status (exitError names them all).
func (r *run) phaseOn(ctx context.Context, phase bench.Phase, clients []*client) (int, error) {
	together := len(clients) > 1 // a barrier of one waits for nobody
	measured := phase == bench.PhaseRun
	if together {
		errs := orchestrator.ForEach(ctx, 0, clients, func(ctx context.Context, _ int, c *client) error {
			var err error
			c.offset, err = clockOffset(ctx, c.exec)
			return err
		})
		if err := orchestrator.Aggregate(errs); err != nil {
			return -1, err
		}
	}
	target := r.target()
	steps := make([]bench.Step, len(clients))
	var shares []string
	for i, c := range clients {
		step, err := c.driver.Step(phase, target)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", c.name, err)
		}
		steps[i] = step
		if err := r.dir.AppendCommand(string(phase), c.name, step.String(), step.Env, r.secrets...); err != nil {
			r.logf("run: %v", err) // evidence lost, not a reason to stop
		}
		if together {
			shares = append(shares, fmt.Sprintf("%s %d threads (clock %+.1f ms)", c.name, *c.driver.Workload().Options.Threads, ms(c.offset)))
		}
	}
	// Never two benchmarks on one database (their random ids collide); the
	// run's marker is on record before anything carries it, so a crash of
	// orch right after the launch still leaves the benchmark findable.
	tname := targetOf(target)
	errs := orchestrator.ForEach(ctx, 0, clients, func(ctx context.Context, _ int, c *client) error {
		return checkAlone(ctx, c.exec, tname)
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return -1, err
	}
	if err := r.recordClients(phase, clients, time.Time{}); err != nil {
		return -1, err
	}
	at := time.Now().Add(launchMargin(len(clients)))
	if together {
		r.logf("run: %d load boxes start together at %s: %s", len(clients), at.UTC().Format("15:04:05.000"), strings.Join(shares, ", "))
	} else if r.cfg.Verbose {
		r.logf("%s: %s (%s)", clients[0].name, steps[0].Name, steps[0].String())
	} else {
		r.logf("%s: %s (the command is in %s)", clients[0].name, steps[0].Name, rundir.BenchmarkCommands)
	}
	if measured && r.loadStartsAt != nil {
		r.loadStartsAt(at)
	}
	errs = orchestrator.ForEach(ctx, 0, clients, func(ctx context.Context, i int, c *client) error {
		before := ""
		if together {
			before = barrier(at.Add(c.offset), c.remote)
		}
		rem, err := launch(ctx, c.exec, c.remote, marked(steps[i], r.marker, tname), before)
		c.rem = rem
		return err
	})
	if err := r.recordClients(phase, clients, at); err != nil {
		r.logf("run: %v", err)
	}
	if err := orchestrator.Aggregate(errs); err != nil {
		// All together or not at all: a client alone is not the workload.
		r.stopClients(phase, clients)
		return -1, err
	}
	prog := newClientProgress(r.cfg.Progress, len(clients))
	if measured && r.cfg.Progress != nil {
		r.cfg.Progress.SetPercentile(r.cfg.Workload.LatencyPercentile())
		r.cfg.Progress.Start(at)
		defer r.cfg.Progress.Done()
	}
	errs = orchestrator.ForEach(ctx, 0, clients, func(ctx context.Context, _ int, c *client) error {
		f, err := r.dir.Create(c.local + rundir.PartSuffix)
		if err != nil {
			return err
		}
		defer f.Close()
		var onLine func(string)
		if measured {
			onLine = func(line string) {
				if iv, ok := c.driver.Progress(line); ok {
					prog.add(iv)
				}
			}
		}
		c.code, err = c.rem.Follow(ctx, f, onLine, r.cfg.Reattach, r.logf)
		if err == nil && ctx.Err() == nil {
			err = r.complete(f, c.local)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		return nil
	})
	if ctx.Err() != nil {
		// Ctrl-C: stop the benchmarks (they keep running otherwise) and
		// let the caller collect what is there.
		r.stopClients(phase, clients)
		if measured {
			r.readStarts(at, together)
		}
		return -1, ErrInterrupted
	}
	if measured {
		r.readStarts(at, together)
	}
	if err := orchestrator.Aggregate(errs); err != nil {
		if rundir.IsNoSpace(err) {
			// Nothing more can be kept here: stop the load rather than
			// let it run on unrecorded.
			r.stopClients(phase, clients)
		}
		return -1, err
	}
	for _, c := range clients {
		if c.code != 0 {
			return c.code, nil
		}
	}
	return 0, nil
}

// recordClients saves every launched client's process and output file in
// the manifest, so collect finds them after a crash of orch; with several,
// the common start they are aligned on.
func (r *run) recordClients(phase bench.Phase, clients []*client, at time.Time) error {
	startAt := at.UTC()
	if len(clients) < 2 {
		startAt = time.Time{} // no common start to align on
	}
	return r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		for i, c := range clients {
			if at.IsZero() { // before the launch: the marker alone
				rem := &rundir.Remote{Host: c.name, Dir: c.remote, Marker: r.marker}
				if i == 0 {
					m.Remote = rem
				}
				setClientRemote(m, rem)
				continue
			}
			if c.rem == nil {
				continue
			}
			rem := &rundir.Remote{Host: c.name, Dir: c.remote, PID: c.rem.PID, StartAt: startAt, Marker: r.marker}
			if i == 0 {
				m.Remote = rem
			}
			setClientRemote(m, rem)
			if err := m.Expect(rundir.ExpectedFile{Host: c.name, Remote: path.Join(c.remote, phase.Output()),
				Local: c.local, Kind: rundir.KindFile}); err != nil {
				return err
			}
		}
		return nil
	})
}

// setClientRemote replaces the entry of rem's load box in ClientRemotes
// (the first load box is Remote and has none).
func setClientRemote(m *rundir.Manifest, rem *rundir.Remote) {
	for j, old := range m.ClientRemotes {
		if old.Host == rem.Host {
			m.ClientRemotes[j] = rem
		}
	}
}

// stopClients stops phase on every client. It finds each from its working
// directory's files (Attach), not from the launch's result: the monitors'
// stall stop calls it while the launch may still run.
func (r *run) stopClients(phase bench.Phase, clients []*client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	errs := orchestrator.ForEach(ctx, 0, clients, func(ctx context.Context, _ int, c *client) error {
		rem, err := Attach(ctx, c.exec, c.remote, phase)
		if err != nil {
			return nil // never launched: nothing runs
		}
		if err := rem.Stop(ctx, 5*time.Second); err != nil {
			return fmt.Errorf("%s: stop benchmark: %w", c.name, err)
		}
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		r.logf("run: %v", err)
	}
}

// readStarts fetches when each client passed the barrier; a client that
// did not say is taken to have started at the barrier instant, as one
// client, launched with no barrier, is.
func (r *run) readStarts(at time.Time, together bool) {
	if !together {
		for _, c := range r.clients {
			c.start = at
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	orchestrator.ForEach(ctx, 0, r.clients, func(ctx context.Context, _ int, c *client) error {
		start, err := c.readStart(ctx)
		if err != nil {
			r.logf("run: %s: when it started: %v (taking the barrier instant)", c.name, err)
			start = at
		}
		if late := start.Sub(at); late > time.Second {
			r.logf("run: %s started %.1f s after the barrier instant: its first intervals ran without the others", c.name, late.Seconds())
		}
		c.start = start
		return nil
	})
}

// parse reads every client's output into the run's result: one client's
// result is the run's, several are merged (per-client figures stay inside
// the merge: Merged.Clients).
func (r *run) parse(res *schema.Results) {
	res.Workload, res.Tool, res.Engine = r.cfg.Workload.Name, string(r.cfg.Workload.Tool), r.cfg.Engine
	outs := make([]clientFile, len(r.clients))
	for i, c := range r.clients {
		outs[i] = clientFile{name: c.name, local: c.local, start: c.start, parse: c.driver.Parse}
	}
	out, problem := mergeClients(r.dir, outs)
	if out != nil {
		res.Benchmark = schema.Benchmark{Result: out}
	}
	res.ParseError = problem
}

// cleanClients removes the other load boxes' working directories once
// their output is in the run directory (the first one's is cleanWorkdir's).
func (r *run) cleanClients(ctx context.Context) {
	m, err := r.dir.LoadManifest()
	if err != nil {
		r.logf("run: %v", err)
		return
	}
	hosts := map[string]executor.Executor{}
	for _, c := range r.clients {
		hosts[c.name] = c.exec
	}
	if err := cleanClientWorkdirs(ctx, r.dir, hosts, m); err != nil {
		r.logf("run: %v", err)
	}
}

// clientProgress shows the clients' summed throughput once every client
// has printed the same report (a display only: the result is merged by
// time, not by report number).
type clientProgress struct {
	p     *Progress
	n     int
	mu    sync.Mutex
	slots map[int64][]bench.Interval
}

func newClientProgress(p *Progress, n int) *clientProgress {
	return &clientProgress{p: p, n: n, slots: map[int64][]bench.Interval{}}
}

func (cp *clientProgress) add(iv bench.Interval) {
	if cp.p == nil {
		return
	}
	cp.mu.Lock()
	cp.slots[iv.T] = append(cp.slots[iv.T], iv)
	ivs := cp.slots[iv.T]
	if len(ivs) == cp.n {
		delete(cp.slots, iv.T)
	}
	cp.mu.Unlock()
	if len(ivs) == cp.n {
		cp.p.Interval(bench.SumIntervals(ivs), time.Now())
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
