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
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// Stack sampling events: the window a host's stacks were sampled in (a
// gdb snapshot stops the server, so the report shades it on the plots).
const (
	KindStacksStart = "stacks_start"
	KindStacksEnd   = "stacks_end"
	// KindStacksError: sampling could not run on a host (no tool, no
	// pid); the run goes on.
	KindStacksError = "stacks_error"
)

// StacksDir holds the raw tool output and the aggregated profiles:
// stacks/<host>-<mode>.txt and stacks/<host>-<mode>.json.
const StacksDir = "stacks"

// StackConfig is when and how to sample thread stacks, once per run, on
// the master and the first slave.
type StackConfig struct {
	// Mode: Off (or "") samples nothing; Auto picks per host from the
	// tools it has (gdb, else perf).
	Mode stacks.Mode
	// At is how long after the load starts (SetLoadActive) to sample:
	// the middle of the steady state. Until, when set, is when the load
	// ends: no snapshot starts that would not finish by then.
	At, Until time.Duration
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

// stackHost is a host whose stacks can be sampled.
type stackHost struct {
	name    string
	role    topology.Role
	exec    executor.Executor
	sudo    bool
	pidFile func(ctx context.Context) (string, error)
}

// stackState holds what sampling found, for the summary.
type stackState struct {
	once     sync.Once
	mu       sync.Mutex
	hosts    []stackHost
	profiles []*stacks.Profile
}

// startStacks arms the sampler when the load starts (once per monitor).
func (m *Monitor) startStacks() {
	c := m.cfg.Stacks
	if c.Mode == "" || c.Mode == stacks.Off || len(m.stacks.hosts) == 0 || m.ctx == nil {
		return
	}
	m.stacks.once.Do(func() {
		ctx := m.ctx
		loadStart := m.now()
		m.goRun(func() {
			select {
			case <-ctx.Done():
				return
			case <-time.After(c.At):
			}
			var wg sync.WaitGroup
			for _, h := range m.stacks.hosts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					m.sampleHost(ctx, h, c.withDefaults(), loadStart)
				}()
			}
			wg.Wait()
		})
	})
}

// sampleHost takes one host's stacks and stores them; failures are
// events, never the run's end.
func (m *Monitor) sampleHost(ctx context.Context, h stackHost, c StackConfig, loadStart time.Time) {
	fail := func(format string, args ...any) {
		m.events.write(Event{T: m.now(), Host: h.name, Kind: KindStacksError, Detail: fmt.Sprintf(format, args...)})
	}
	pf, err := h.pidFile(ctx)
	if err != nil {
		fail("pid file: %v", err)
		return
	}
	mode := c.Mode
	if mode == stacks.Auto || mode == stacks.GDB || mode == stacks.Perf {
		res, err := h.exec.Run(ctx, executor.Command{Script: stacks.ProbeScript, Timeout: 30 * time.Second})
		if err != nil {
			fail("probe tools: %v", err)
			return
		}
		if mode = stacks.Pick(c.Mode, strings.Fields(string(res.Stdout))); mode == "" || mode == stacks.Off {
			what := string(c.Mode) + " is not installed"
			if c.Mode == stacks.Auto {
				what = "neither gdb nor perf is installed"
			}
			fail("--stacks=%s: %s", c.Mode, what)
			return
		}
	}
	plan := fmt.Sprintf("up to %d gdb snapshots %s apart", c.Snapshots, c.Gap)
	if mode == stacks.Perf {
		plan = fmt.Sprintf("perf record -g for %s", c.PerfFor)
	}
	start := m.now()
	m.events.write(Event{T: start, Host: h.name, Kind: KindStacksStart, Detail: plan})
	out, err := m.takeStacks(ctx, h, c, mode, pf, loadStart)
	end := m.now()
	if err != nil && len(out) == 0 {
		m.events.write(Event{T: end, Host: h.name, Kind: KindStacksEnd, Detail: "failed: " + err.Error()})
		return
	}
	base := filepath.Join(m.cfg.Dir, StacksDir, h.name+"-"+string(mode))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err == nil {
		err = os.WriteFile(base+".txt", out, 0o644)
		if err != nil {
			fail("save raw stacks: %v", err)
		}
	}
	raw := stacks.ParseGDB(string(out))
	if mode == stacks.Perf {
		raw = stacks.ParsePerf(string(out))
	}
	if err != nil {
		raw.Errors = append(raw.Errors, err.Error())
	}
	p := stacks.NewProfile(h.name, string(h.role), mode, start, end, raw)
	if b, err := json.MarshalIndent(p, "", "  "); err == nil {
		if err := os.WriteFile(base+".json", b, 0o644); err != nil {
			fail("save profile: %v", err)
		}
	}
	m.stacks.mu.Lock()
	m.stacks.profiles = append(m.stacks.profiles, p)
	m.stacks.mu.Unlock()
	m.events.write(Event{T: end, Host: h.name, Kind: KindStacksEnd, Detail: profileLine(p)})
}

// profileLine is the stacks_end event's detail.
func profileLine(p *stacks.Profile) string {
	s := fmt.Sprintf("%s: %d snapshot(s), %d stacks, %d distinct", p.Mode, p.Snapshots, p.Samples, len(p.Stacks))
	if p.MaxPauseMs != nil {
		s += fmt.Sprintf("; longest server pause %.0f ms", *p.MaxPauseMs)
	}
	if len(p.Errors) > 0 {
		s += "; " + strings.Join(p.Errors, "; ")
	}
	return s
}

// stackSummaries are the profiles for results.json, cut to their top
// stacks (the whole ones are in stacks/).
func (m *Monitor) stackSummaries() []*stacks.Profile {
	m.stacks.mu.Lock()
	defer m.stacks.mu.Unlock()
	var out []*stacks.Profile
	for _, p := range m.stacks.profiles {
		q := *p
		q.Stacks = p.Top(10)
		out = append(out, &q)
	}
	return out
}

// takeStacks runs the tool: gdb one snapshot per command, so that the
// snapshots taken are kept when the load ends early and none starts
// that would outlast the load (the previous one's duration is the
// estimate); perf once, for at most the load's remaining time.
func (m *Monitor) takeStacks(ctx context.Context, h stackHost, c StackConfig, mode stacks.Mode, pidFile string, loadStart time.Time) ([]byte, error) {
	left := func() time.Duration {
		if c.Until <= 0 {
			return time.Hour
		}
		return loadStart.Add(c.Until).Sub(m.now())
	}
	run := func(script string) ([]byte, error) {
		res, err := h.exec.Run(ctx, executor.Command{Script: script, Sudo: h.sudo, Timeout: 2 * time.Minute})
		return res.Stdout, err
	}
	if mode == stacks.Perf {
		d := min(c.PerfFor, left()-time.Second)
		if d < time.Second {
			return nil, fmt.Errorf("the load ends in %s: no time to record", left().Round(time.Second))
		}
		return run(stacks.PerfScript(pidFile, d))
	}
	var out []byte
	var last time.Duration
	for i := 0; i < c.Snapshots; i++ {
		if i > 0 {
			select {
			case <-ctx.Done():
				return out, ctx.Err()
			case <-time.After(c.Gap):
			}
			if !m.det.loadActive() || left() < last {
				break
			}
		}
		t0 := m.now()
		if h.role == topology.RoleMaster {
			m.det.hold(true, t0)
		}
		b, err := run(stacks.GDBScript(pidFile, 1, 0))
		if h.role == topology.RoleMaster {
			m.det.hold(false, m.now())
		}
		out = append(out, b...)
		if err != nil {
			return out, err
		}
		last = m.now().Sub(t0)
	}
	return out, nil
}
