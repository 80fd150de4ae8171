package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// Stack sampling events: the window a host's stacks were sampled in, and
// the profiling tail around them (host ""). Both lie after load_end: no
// figure of the run reads them.
const (
	KindStacksStart = "stacks_start"
	KindStacksEnd   = "stacks_end"
	// KindStacksError: sampling could not run on a host (no tool, no
	// pid); the run goes on.
	KindStacksError = "stacks_error"
	// KindProfileStart and KindProfileEnd bracket the profiling tail: the
	// extra load after the run's checks that the stacks are taken under.
	KindProfileStart = "profile_start"
	KindProfileEnd   = "profile_end"
)

// StacksDir holds the raw tool output and the aggregated profiles:
// stacks/<host>-<mode>.txt and stacks/<host>-<mode>.json.
const StacksDir = "stacks"

// StackConfig is how to sample thread stacks, once per run, on the master
// and the first slave.
type StackConfig struct {
	// Mode: Off (or "") samples nothing; Auto is perf where it works.
	Mode stacks.Mode
	// Snapshots (gdb, default 3) are taken Gap apart (default 2s); perf
	// records for PerfFor (default 3s).
	Snapshots int
	Gap       time.Duration
	PerfFor   time.Duration
}

func (c StackConfig) withDefaults() StackConfig {
	if c.Snapshots <= 0 {
		c.Snapshots = 3
	}
	if c.Gap <= 0 {
		c.Gap = 2 * time.Second
	}
	if c.PerfFor <= 0 {
		c.PerfFor = 3 * time.Second
	}
	return c
}

// gdbSnapshotGuess is what one gdb snapshot of a loaded server takes
// (1.3 s on the lab), for sizing the tail before the first one is timed.
const gdbSnapshotGuess = 2 * time.Second

// stackHost is a host whose stacks can be sampled, and what Resolve found.
type stackHost struct {
	name    string
	role    topology.Role
	exec    executor.Executor
	sudo    bool
	pidFile func(ctx context.Context) (string, error)

	pf   string
	mode stacks.Mode // Off until Resolve finds a sampler
}

// Profiler takes the servers' stacks in the run's profiling tail: after
// the measured load and the run's checks, under a short extra load that
// no figure reads. A gdb snapshot stops the server and even perf costs it
// some throughput, so neither may run inside the measured window. Its
// events go to the run's events.jsonl, its files to stacks/.
type Profiler struct {
	dir    string
	cfg    StackConfig
	hosts  []*stackHost
	events *EventLog
	now    func() time.Time
}

// NewProfiler prepares sampling on the master and the first slave of dbs
// (the hosts with a connection to run the tools through). It does no I/O
// but opening events.jsonl for appending.
func NewProfiler(dir string, cfg StackConfig, dbs []*server.Node) (*Profiler, error) {
	events, err := openEventLog(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	p := &Profiler{dir: dir, cfg: cfg.withDefaults(), events: events, now: time.Now}
	for _, n := range dbs {
		if n == nil || n.Host == nil || n.Exec == nil || n.DB == nil {
			continue
		}
		p.addHost(n.Host.Name, n.Host.Role, n.Exec, n.Host.SSH.Sudo, func(ctx context.Context) (string, error) {
			return pidFileOf(ctx, n.DB, n.Host.MySQL.Datadir)
		})
	}
	return p, nil
}

// addHost keeps the master and the first slave.
func (p *Profiler) addHost(name string, role topology.Role, ex executor.Executor, sudo bool, pidFile func(context.Context) (string, error)) {
	if role != topology.RoleMaster && role != topology.RoleSlave {
		return
	}
	for _, h := range p.hosts {
		if h.role == role {
			return
		}
	}
	p.hosts = append(p.hosts, &stackHost{name: name, role: role, exec: ex, sudo: sudo, pidFile: pidFile, mode: stacks.Off})
}

// Close closes events.jsonl.
func (p *Profiler) Close() error {
	_, err := p.events.close()
	return err
}

// Mark writes a profile_start or profile_end event.
func (p *Profiler) Mark(kind, detail string) {
	p.events.write(Event{T: p.now(), Kind: kind, Detail: detail})
}

func (p *Profiler) fail(h *stackHost, format string, args ...any) {
	p.events.write(Event{T: p.now(), Host: h.name, Kind: KindStacksError, Detail: fmt.Sprintf(format, args...)})
}

// Resolve finds each host's server and the sampler that works on it (a
// stacks_error event for a host without one) and returns the run's mode:
// the master's, else the slave's, else Off.
func (p *Profiler) Resolve(ctx context.Context) stacks.Mode {
	if p.cfg.Mode == "" || p.cfg.Mode == stacks.Off {
		return stacks.Off
	}
	var wg sync.WaitGroup
	for _, h := range p.hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.resolveHost(ctx, h)
		}()
	}
	wg.Wait()
	for _, h := range p.hosts {
		if h.mode != stacks.Off {
			return h.mode
		}
	}
	return stacks.Off
}

func (p *Profiler) resolveHost(ctx context.Context, h *stackHost) {
	pf, err := h.pidFile(ctx)
	if err != nil {
		p.fail(h, "pid file: %v", err)
		return
	}
	res, err := h.exec.Run(ctx, executor.Command{Script: stacks.ServerProbeScript(pf), Sudo: h.sudo, Timeout: 30 * time.Second})
	if err != nil {
		p.fail(h, "probe samplers: %v", err)
		return
	}
	have := strings.Fields(string(res.Stdout))
	for _, w := range have {
		if w == "@error" {
			p.fail(h, "%s", strings.TrimSpace(string(res.Stdout)))
			return
		}
	}
	mode := stacks.Pick(p.cfg.Mode, have)
	if mode == "" || mode == stacks.Off {
		why := fmt.Sprintf("--stacks=%s: %s is not installed", p.cfg.Mode, p.cfg.Mode)
		switch p.cfg.Mode {
		case stacks.Auto:
			why = "--stacks=auto: perf does not work here (not installed, or refused); gdb, which stops the server, is used only with --stacks=gdb"
		case stacks.Perf:
			why = "--stacks=perf: perf record does not work on the server here (not installed, or refused)"
		}
		p.fail(h, "%s", why)
		return
	}
	h.pf, h.mode = pf, mode
}

// Budget is how long Sample needs, for sizing the tail's load.
func (p *Profiler) Budget() time.Duration {
	c := p.cfg
	var d time.Duration
	for _, h := range p.hosts {
		switch h.mode {
		case stacks.Perf:
			d = max(d, c.PerfFor+time.Second)
		case stacks.GDB:
			d = max(d, time.Duration(c.Snapshots)*gdbSnapshotGuess+time.Duration(c.Snapshots-1)*c.Gap)
		}
	}
	return d
}

// Sample takes every resolved host's stacks at once, none past until (the
// tail's load ends then), and returns the profiles. Failures are events,
// never the run's end.
func (p *Profiler) Sample(ctx context.Context, until time.Time) []*stacks.Profile {
	var (
		mu  sync.Mutex
		out []*stacks.Profile
		wg  sync.WaitGroup
	)
	for _, h := range p.hosts {
		if h.mode == stacks.Off {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if pr := p.sampleHost(ctx, h, until); pr != nil {
				mu.Lock()
				out = append(out, pr)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// sampleHost takes one host's stacks and stores them.
func (p *Profiler) sampleHost(ctx context.Context, h *stackHost, until time.Time) *stacks.Profile {
	c := p.cfg
	plan := fmt.Sprintf("up to %d gdb snapshots %s apart", c.Snapshots, c.Gap)
	if h.mode == stacks.Perf {
		plan = fmt.Sprintf("perf record -g for %s", c.PerfFor)
	}
	start := p.now()
	p.events.write(Event{T: start, Host: h.name, Kind: KindStacksStart, Detail: plan})
	out, err := p.takeStacks(ctx, h, until)
	end := p.now()
	if err != nil && len(out) == 0 {
		p.events.write(Event{T: end, Host: h.name, Kind: KindStacksEnd, Detail: "failed: " + err.Error()})
		return nil
	}
	base := filepath.Join(p.dir, StacksDir, h.name+"-"+string(h.mode))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err == nil {
		if err := os.WriteFile(base+".txt", out, 0o644); err != nil {
			p.fail(h, "save raw stacks: %v", err)
		}
	}
	raw := stacks.ParseGDB(string(out))
	if h.mode == stacks.Perf {
		raw = stacks.ParsePerf(string(out))
	}
	if err != nil {
		raw.Errors = append(raw.Errors, err.Error())
	}
	pr := stacks.NewProfile(h.name, string(h.role), h.mode, start, end, raw)
	if b, err := json.MarshalIndent(pr, "", "  "); err == nil {
		if err := os.WriteFile(base+".json", b, 0o644); err != nil {
			p.fail(h, "save profile: %v", err)
		}
	}
	p.events.write(Event{T: end, Host: h.name, Kind: KindStacksEnd, Detail: profileLine(pr)})
	return pr
}

// profileLine is the stacks_end event's detail.
func profileLine(p *stacks.Profile) string {
	s := fmt.Sprintf("%s: %d snapshot(s), %d stacks, %d distinct", p.Mode, p.Snapshots, p.Samples, len(p.Stacks))
	if p.MaxPauseMs != nil {
		s += fmt.Sprintf("; longest server stop %.0f ms", *p.MaxPauseMs)
	}
	if len(p.Errors) > 0 {
		s += "; " + strings.Join(p.Errors, "; ")
	}
	return s
}

// TopStacks are profiles for results.json, cut to their top stacks (the
// whole ones are in stacks/).
func TopStacks(ps []*stacks.Profile) []*stacks.Profile {
	var out []*stacks.Profile
	for _, p := range ps {
		q := *p
		q.Stacks = p.Top(10)
		out = append(out, &q)
	}
	return out
}

// takeStacks runs the tool: gdb one snapshot per command, so that the
// snapshots taken are kept when the tail ends early and none starts that
// would outlast its load (the previous one's duration is the estimate);
// perf once, for at most the load's remaining time.
func (p *Profiler) takeStacks(ctx context.Context, h *stackHost, until time.Time) ([]byte, error) {
	c := p.cfg
	left := func() time.Duration { return until.Sub(p.now()) }
	run := func(script string) ([]byte, error) {
		res, err := h.exec.Run(ctx, executor.Command{Script: script, Sudo: h.sudo, Timeout: 2 * time.Minute})
		return res.Stdout, err
	}
	if h.mode == stacks.Perf {
		d := min(c.PerfFor, left()-time.Second)
		if d < time.Second {
			return nil, fmt.Errorf("the tail's load ends in %s: no time to record", left().Round(time.Second))
		}
		return run(stacks.PerfScript(h.pf, d))
	}
	var out []byte
	var last time.Duration
	defer func() {
		if ctx.Err() == nil {
			return
		}
		// Interrupted: a gdb killed while attached leaves the server
		// stopped (stacks.ResumeScript). On a context of its own.
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		res, err := h.exec.Run(rctx, executor.Command{Script: stacks.ResumeScript(h.pf), Sudo: h.sudo, Timeout: 50 * time.Second})
		switch {
		case err != nil:
			p.fail(h, "resume the server after an interrupted gdb: %v", err)
		case strings.Contains(string(res.Stdout), "@resumed"):
			p.events.write(Event{T: p.now(), Host: h.name, Kind: KindStacksEnd, Detail: "the server was left stopped by the interrupted gdb: continued (SIGCONT)"})
		}
	}()
	for i := 0; i < c.Snapshots; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(c.Gap):
			}
			if left() < last {
				break
			}
		}
		t0 := p.now()
		b, err := run(stacks.GDBScript(h.pf, 1, 0))
		out = append(out, b...)
		if err != nil {
			return out, err
		}
		last = p.now().Sub(t0)
	}
	return out, nil
}
