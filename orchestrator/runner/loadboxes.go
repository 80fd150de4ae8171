package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// Every phase runs through the same functions (phaseOn): the run phase on
// the run's clients, one or several, prepare and cleanup on the first alone.
// The first is the run's benchmark host (r.bhost, r.bexec, r.remote): the
// load box (or the master, for a workload that runs there), which prepares
// the dataset, once. A cluster with several load boxes is
// driven from all of them at once: each runs its share of the workload
// (bench.ClientWorkloads) in its own private working directory, released
// together by a barrier, and the results are merged (bench.MergeSysbench):
// throughput summed per interval aligned by time, percentiles from the
// summed histograms. One client is the case N = 1: its share is the whole
// workload, nobody to wait for, and the merge of one result is itself.

// client is one host the run phase runs on.
type client struct {
	name   string // its host's name (rundir.LocalHost: this machine)
	exec   executor.Executor
	remote string       // its private working directory (makeWorkdir)
	driver bench.Driver // the workload with this client's share of threads
	local  string       // its raw output in the run directory (clientLocal)
	// offset is the load box's clock minus this machine's, measured just
	// before the start: the barrier instant is given to each box in its
	// own clock.
	offset time.Duration
	rem    *Remote
	code   int
	start  time.Time // when its benchmark began, in this machine's clock
}

// startFile is where a client notes (in its own clock) when it passed the
// barrier: the merge aligns its interval lines from there.
const startFile = "run.start"

// CheckClients tells, before any host is contacted, whether w can run on
// all of inv's load boxes at once (bad input otherwise: a workload that
// cannot be split or merged, or fewer threads than load boxes).
func CheckClients(inv *topology.Inventory, w *bench.Workload) error {
	_, err := bench.ClientWorkloads(w, len(clientHosts(inv, w, "")), 0)
	return err
}

// clientHosts names the hosts the run phase runs on: the master for a
// workload that runs there, else every load box (bhost, the benchmark
// host, when the inventory has none: this machine).
func clientHosts(inv *topology.Inventory, w *bench.Workload, bhost string) []string {
	var names []string
	if w.RunOn != topology.RoleMaster {
		for _, h := range inv.LoadBoxes() {
			names = append(names, h.Name)
		}
	}
	if len(names) == 0 {
		names = []string{bhost}
	}
	return names
}

// clientLocal is where a client's output goes in the run directory: the
// run's benchmark output when it is the only one, else a file of its own.
func clientLocal(name string, n int) string {
	if n == 1 {
		return rundir.BenchmarkRun
	}
	return rundir.ClientRun(name)
}

// connectClients sets up the run phase's clients: the first is the
// benchmark host, already connected with its working directory made; the
// others get a connection and a private working directory; each gets the
// workload share it runs.
func (r *run) connectClients(ctx context.Context) error {
	names := clientHosts(r.inv, r.cfg.Workload, r.bhost)
	if names[0] != r.bhost {
		return fmt.Errorf("run: the benchmark host %s is not the first client %s", r.bhost, names[0])
	}
	ws, err := bench.ClientWorkloads(r.cfg.Workload, len(names), uint32(time.Now().UnixNano()))
	if err != nil {
		return err
	}
	clients := make([]*client, len(names))
	for i, name := range names {
		d := r.driver
		if i > 0 || ws[i] != r.cfg.Workload {
			if d, err = bench.NewDriver(ws[i]); err != nil {
				return err
			}
		}
		clients[i] = &client{name: name, driver: d, local: clientLocal(name, len(names)), exec: r.bexec, remote: r.remote}
		if i > 0 {
			box, ok := r.db.LoadBox(name)
			if !ok {
				return fmt.Errorf("%s: load box not connected", name)
			}
			clients[i].exec = box.Exec
		}
	}
	runID := path.Base(r.dir.Path())
	errs := orchestrator.ForEach(ctx, 0, clients[1:], func(ctx context.Context, _ int, c *client) error {
		for _, old := range r.staleClients {
			r.removeStaleOn(ctx, c.name, c.exec, old)
		}
		var err error
		c.remote, err = makeWorkdir(ctx, c.exec, runID)
		return err
	})
	// Record every directory made, also when another failed: finish
	// removes them.
	r.clients = clients
	if err := r.dir.UpdateManifest(func(m *rundir.Manifest) error {
		m.ClientRemotes = nil
		for _, c := range clients[1:] {
			if c.remote != "" {
				m.ClientRemotes = append(m.ClientRemotes, &rundir.Remote{Host: c.name, Dir: c.remote})
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return orchestrator.Aggregate(errs)
}

// exitError says which benchmarks exited other than 0.
func (r *run) exitError() error {
	var failed []string
	for _, c := range r.clients {
		if c.code != 0 {
			failed = append(failed, fmt.Sprintf("%s: benchmark exited %d (see %s)", c.name, c.code, c.local))
		}
	}
	return errors.New(topology.CapJoin(failed, topology.MaxListedHosts, "; "))
}

// clientBoxes are the load boxes the monitors watch for client-bound
// runs: every client that is a connected load box (not the master, nor
// this machine).
func (r *run) clientBoxes() []cluster.LoadBox {
	var out []cluster.LoadBox
	for _, c := range r.clients {
		if b, ok := r.db.LoadBox(c.name); ok {
			out = append(out, b)
		}
	}
	return out
}

// launchMargin is how far ahead of now the common start is set: long
// enough for every load box to receive its script and reach the barrier
// on a busy control machine (two SSH commands per box, in parallel). One
// client waits for nobody: it starts as it is launched.
func launchMargin(n int) time.Duration {
	if n < 2 {
		return 0
	}
	return 3*time.Second + time.Duration(n)*500*time.Millisecond
}

// barrier is the shell text that holds a client until at (seconds since
// the epoch in the load box's own clock), then notes when it passed in
// $dir/run.start. It goes before the step's own script.
//
// Why a wall-clock instant and not a release file orch touches: once
// launched, each client is released by its own clock, with no further
// round trip from orch; a release file would be only as simultaneous as
// orch's N SSH commands (hundreds of ms apart on a busy control machine),
// and a connection lost between launch and release would leave a client
// waiting or the others running alone. The clocks' differences are
// measured first (clockOffset) and each box gets the instant in its own
// clock, so NTP-level agreement is not even needed; each client records
// when it really passed, which is what the merge aligns on.
func barrier(at time.Time, dir string) string {
	epoch := strconv.FormatInt(at.Unix(), 10) + "." + fmt.Sprintf("%06d", at.Nanosecond()/1000)
	return "# orch: every load box starts at the same instant (see orch's runner/loadboxes.go)\n" +
		"orch_wait=$(awk -v t=" + shell.Quote(epoch) + ` -v n="$(date +%s.%N)" 'BEGIN { d = t - n; if (d > 0) printf "%.6f", d; else print 0 }')` + "\n" +
		`[ "$orch_wait" = 0 ] || sleep "$orch_wait"` + "\n" +
		"date +%s.%N > " + shell.Quote(path.Join(dir, startFile)) + "\n"
}

// MaxClockOffset bounds how far a load box's clock may be from this
// machine's: the barrier waits until an instant in this machine's time and
// the intervals are aligned by it, so a clock hours (or centuries) off
// would make one box start late or never, or its intervals land in
// another run's window. Clocks kept by NTP are milliseconds apart.
const MaxClockOffset = 5 * time.Minute

// clockOffset measures a load box's clock against this machine's: the
// best of three round trips, the host's reading taken as made half way.
// The error is at most half the round trip. A clock more than
// MaxClockOffset away is an error naming the box.
func clockOffset(ctx context.Context, ex executor.Executor) (time.Duration, error) {
	off, err := measureOffset(ctx, ex)
	if err == nil && (off > MaxClockOffset || off < -MaxClockOffset) {
		way := "ahead of"
		if off < 0 {
			way = "behind"
		}
		return off, fmt.Errorf("%s: its clock is %s %s this machine's, more than %s: the load boxes start together by the clock; set its time (NTP) and run again (nothing was started on it)",
			ex.Name(), offsetWords(off), way, MaxClockOffset)
	}
	return off, err
}

// offsetWords is an offset's size: "2h0m3s", or in years when absurd.
func offsetWords(d time.Duration) string {
	if d < 0 {
		d = -d
	}
	if d > 365*24*time.Hour {
		return fmt.Sprintf("%.0f years", d.Hours()/24/365.25)
	}
	return d.Round(time.Second).String()
}

func measureOffset(ctx context.Context, ex executor.Executor) (time.Duration, error) {
	var best, bestRTT time.Duration = 0, -1
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		res, err := ex.Run(ctx, executor.Command{Script: "date +%s.%N", Timeout: 30 * time.Second})
		t1 := time.Now()
		if err != nil {
			return 0, fmt.Errorf("%s: read its clock: %w", ex.Name(), err)
		}
		at, err := parseEpoch(string(res.Stdout))
		if err != nil {
			return 0, fmt.Errorf("%s: read its clock: %w", ex.Name(), err)
		}
		if rtt := t1.Sub(t0); bestRTT < 0 || rtt < bestRTT {
			best, bestRTT = at.Sub(t0.Add(rtt/2)), rtt
		}
	}
	return best, nil
}

// parseEpoch reads `date +%s.%N`.
func parseEpoch(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	secs, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("not a time: %q", s)
	}
	ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	return time.Unix(sec, ns), nil
}

// readStart is when the client passed the barrier, in this machine's clock.
func (c *client) readStart(ctx context.Context) (time.Time, error) {
	var b bytes.Buffer
	if _, err := c.exec.Download(ctx, path.Join(c.remote, startFile), &b, false); err != nil {
		return time.Time{}, err
	}
	at, err := parseEpoch(b.String())
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %s: %w", c.name, startFile, err)
	}
	return at.Add(-c.offset), nil
}
