package monitor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// Defaults for Config.
const (
	DefaultInterval   = time.Second
	DefaultStallAfter = 5 * time.Second
	DefaultStallLimit = 60 * time.Second
)

// Config says where the series go and when a stall matters.
type Config struct {
	// Dir is the run directory: timeseries/<host>-mysql.csv,
	// timeseries/<host>-os.csv and events.jsonl are written under it.
	Dir string
	// Interval between samples (default 1s).
	Interval time.Duration
	// SampleTimeout bounds one sample (default 5 intervals, at least 2s).
	SampleTimeout time.Duration
	// StallAfter is how long the master may make no progress while the
	// load runs before a "stall" event (default 5s, at most StallLimit).
	StallAfter time.Duration
	// StallLimit is how long a stall may last before OnStall (default 60s).
	StallLimit time.Duration
	// OnStall is called once per stall that reaches StallLimit, on its own
	// goroutine; the runner stops the benchmark and collects.
	OnStall func(Event)
	// NoStallWatch turns the stall watchdog off: the load does not go
	// through the master (PerconaFT's db-insert benchmarks a library), so
	// a master without commits is not a stall.
	NoStallWatch bool
	// Now is the clock for timestamps (tests); default time.Now.
	Now func() time.Time
}

func (c Config) withDefaults() (Config, error) {
	if c.Dir == "" {
		return c, errors.New("monitor: no run directory")
	}
	if c.Interval < 0 || c.SampleTimeout < 0 || c.StallAfter < 0 || c.StallLimit < 0 {
		return c, errors.New("monitor: negative duration in config")
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	if c.SampleTimeout == 0 {
		c.SampleTimeout = max(5*c.Interval, 2*time.Second)
	}
	if c.StallLimit == 0 {
		c.StallLimit = DefaultStallLimit
	}
	if c.StallAfter == 0 {
		c.StallAfter = DefaultStallAfter
	}
	c.StallAfter = min(c.StallAfter, c.StallLimit)
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// Monitor samples every target until Stop.
type Monitor struct {
	cfg       Config
	start     time.Time
	events    *EventLog
	det       *detector
	masterPos atomic.Pointer[masterPosition]
	hosts     []*hostMon
	// loadStart is the last load_start's time: a load that ends before
	// the instant its clients were to be released (interrupted while they
	// waited) ends there, so the load is empty, never negative.
	loadStart time.Time

	cancel context.CancelFunc
	// last is closed by Stop: each stream takes one last sample and ends,
	// so the series reach the load's end (streams counts them).
	last     chan struct{}
	streams  sync.WaitGroup
	wg       sync.WaitGroup
	stopOnce sync.Once
	summary  *Summary
	stopErr  error
}

// hostMon is one target's streams and processors.
type hostMon struct {
	name   string
	role   topology.Role
	mysql  *stream[mysqlRaw]
	mysqlP *mysqlProc
	os     *stream[string]
	osP    *osProc
}

// spec is a target with its sources: the real ones, or fakes in tests.
type spec struct {
	name    string
	role    topology.Role
	srv     flavor.Server
	datadir string
	// mysql reads the server (nil: no mysql series).
	mysql func(ctx context.Context) (mysqlRaw, error)
	// exec reads /proc through a procSource; proc, when set instead,
	// returns /proc text directly.
	exec executor.Executor
	proc func(ctx context.Context) (string, error)
	// pidFile finds the server's pid file (nil: no server_* columns);
	// sudo runs the /proc session as root; box samples the host's
	// processes (a load box).
	pidFile func(ctx context.Context) (string, error)
	sudo    bool
	box     bool
}

// Start validates the hosts, creates the files and starts sampling: the
// database sessions' servers and hosts, and the load boxes' hosts (their OS
// series only). It does no network I/O: each host's first sample runs on
// its own goroutine. ctx bounds the monitors' life; Stop ends them and
// flushes. The connections stay the caller's: the monitor never dials.
func Start(ctx context.Context, cfg Config, dbs []*server.Node, boxes []cluster.LoadBox) (*Monitor, error) {
	specs := make([]spec, 0, len(dbs)+len(boxes))
	for i, n := range dbs {
		if n == nil || n.Host == nil {
			return nil, fmt.Errorf("monitor: database host %d has no host", i)
		}
		if n.DB == nil || n.Server.Flavor == "" {
			return nil, fmt.Errorf("monitor: %s: no open database session with a detected server", n.Host)
		}
		sp := spec{name: n.Host.Name, role: n.Host.Role, srv: n.Server, datadir: n.Host.MySQL.Datadir, sudo: n.Host.SSH.Sudo, exec: n.Exec}
		names := namesFor(n.Server, sp.role)
		sp.mysql = newSQLSource(n.DB, n.Server, sp.role, &names).fetch
		db, datadir := n.DB, sp.datadir
		sp.pidFile = func(ctx context.Context) (string, error) { return pidFileOf(ctx, db, datadir) }
		specs = append(specs, sp)
	}
	for i, b := range boxes {
		if b.Host == nil || b.Exec == nil {
			return nil, fmt.Errorf("monitor: load box %d has no host or executor", i)
		}
		specs = append(specs, spec{name: b.Host.Name, role: topology.RoleLoadBox, box: true, exec: b.Exec, sudo: b.Host.SSH.Sudo})
	}
	return start(ctx, cfg, specs)
}

func start(ctx context.Context, cfg Config, specs []spec) (*Monitor, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	master := ""
	seen := map[string]bool{}
	for _, sp := range specs {
		if sp.name == "" || sp.name == "." || sp.name == ".." || strings.ContainsAny(sp.name, `/\`) {
			return nil, fmt.Errorf("monitor: host name %q cannot name a file", sp.name)
		}
		if seen[sp.name] {
			return nil, fmt.Errorf("monitor: host %s listed twice", sp.name)
		}
		seen[sp.name] = true
		if sp.role == topology.RoleMaster && sp.mysql != nil {
			if master != "" {
				return nil, fmt.Errorf("monitor: two masters: %s and %s", master, sp.name)
			}
			master = sp.name
		}
	}
	m, err := newMonitor(cfg, master)
	if err != nil {
		return nil, err
	}
	ctx, m.cancel = context.WithCancel(ctx)
	for _, sp := range specs {
		h, err := m.newHost(ctx, filepath.Join(cfg.Dir, "timeseries"), sp)
		if err != nil {
			m.cancel()
			m.closeFiles()
			return nil, err
		}
		m.hosts = append(m.hosts, h)
	}
	m.spreadPhases()
	for _, h := range m.hosts {
		if h.mysql != nil {
			m.goStream(func() { h.mysql.run(ctx) })
		}
		if h.os != nil {
			m.goStream(func() { h.os.run(ctx) })
		}
	}
	m.goRun(func() { m.watch(ctx) })
	m.events.write(Event{T: m.start, Kind: KindMonitorStart, Detail: fmt.Sprintf(
		"%d host(s), interval %s, stall after %s, limit %s", len(specs), cfg.Interval, cfg.StallAfter, cfg.StallLimit)})
	return m, nil
}

// newMonitor makes the directory and event log, with no host yet.
func newMonitor(cfg Config, master string) (*Monitor, error) {
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "timeseries"), 0o755); err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	events, err := openEventLog(filepath.Join(cfg.Dir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	if cfg.NoStallWatch {
		master = "" // the detector judges nothing without a master
	}
	return &Monitor{cfg: cfg, start: cfg.Now(), events: events, last: make(chan struct{}),
		det: &detector{events: events, master: master, stallAfter: cfg.StallAfter, stallLimit: cfg.StallLimit, onStall: cfg.OnStall}}, nil
}

// spreadPhases spreads the os sides' ticks over the interval, clear of
// the mysql sides, which stay together at 0: a slave's lag is its position
// against the master's latest one, so those samples must stay close in
// time; the /proc samplers need not.
func (m *Monitor) spreadPhases() {
	var os []*time.Duration
	for _, h := range m.hosts {
		if h.os != nil {
			os = append(os, &h.os.phase)
		}
	}
	for i, p := range os {
		*p = m.cfg.Interval * time.Duration(i+1) / time.Duration(len(os)+1)
	}
}

// goStream runs a stream, which Stop waits for (a little) to take its
// last sample.
func (m *Monitor) goStream(f func()) {
	m.streams.Add(1)
	m.goRun(func() {
		defer m.streams.Done()
		f()
	})
}

func (m *Monitor) goRun(f func()) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		f()
	}()
}

// newHost creates a host's files and streams; ctx is the monitor's, for
// the /proc sessions.
func (m *Monitor) newHost(ctx context.Context, dir string, sp spec) (*hostMon, error) {
	h := &hostMon{name: sp.name, role: sp.role}
	if sp.mysql != nil {
		c, err := createCSV(filepath.Join(dir, sp.name+"-mysql.csv"), MySQLColumns)
		if err != nil {
			return nil, err
		}
		h.mysqlP = newMySQLProc(m, sp.name, sp.role, sp.srv)
		h.mysql = &stream[mysqlRaw]{m: m, host: sp.name, kind: "mysql", csv: c, fetch: sp.mysql, handle: h.mysqlP.handle}
	}
	if sp.exec != nil || sp.proc != nil {
		c, err := createCSV(filepath.Join(dir, sp.name+"-os.csv"), OSColumns)
		if err != nil {
			if h.mysql != nil {
				h.mysql.close()
			}
			return nil, err
		}
		h.osP = &osProc{m: m, host: sp.name, datadir: sp.datadir}
		fetch := sp.proc
		if sp.exec != nil {
			fetch = (&procSource{ex: sp.exec, proc: h.osP, ctx: ctx, wg: &m.wg, sudo: sp.sudo, pidFile: sp.pidFile, box: sp.box}).fetch
		}
		h.os = &stream[string]{m: m, host: sp.name, kind: "os", csv: c, fetch: fetch, handle: h.osP.handle}
	}
	return h, nil
}

// watch is the stall watchdog, on its own ticker.
func (m *Monitor) watch(ctx context.Context) {
	t := time.NewTicker(min(m.cfg.Interval, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.det.check(m.now())
		}
	}
}

func (m *Monitor) now() time.Time { return m.cfg.Now() }

// SetLoadActive tells the monitor whether the benchmark is running: a
// master that makes no progress is a stall only while it is. It writes a
// load_start or load_end event and returns its time: the measured load is
// [load_start, load_end] in the monitor's clock.
func (m *Monitor) SetLoadActive(active bool) time.Time {
	return m.setLoad(active, m.now())
}

// LoadStartsAt marks the load's start at an instant the runner fixed
// ahead, for clients released together by their clocks seconds after
// they are launched: marked at the launch, those seconds of no commits
// would open the measured window and count toward a stall.
func (m *Monitor) LoadStartsAt(at time.Time) { m.setLoad(true, at) }

func (m *Monitor) setLoad(active bool, at time.Time) time.Time {
	if active {
		m.loadStart = at
	} else if at.Before(m.loadStart) {
		at = m.loadStart
	}
	m.det.setLoad(active, at)
	kind := KindLoadEnd
	if active {
		kind = KindLoadStart
	}
	m.events.write(Event{T: at, Kind: kind})
	return at
}
