package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// launchMarked starts script detached in a fresh working directory of run
// d, with a marker, as a run's benchmark phase starts, and records it in
// d's manifest as a run that orch left running.
func launchMarked(t *testing.T, ex executor.Executor, d *rundir.Dir, host, target, script string) *rundir.Remote {
	t.Helper()
	ctx := context.Background()
	wd, err := makeWorkdir(ctx, ex, filepath.Base(d.Path()))
	if err != nil {
		t.Fatal(err)
	}
	marker, err := newMarker()
	if err != nil {
		t.Fatal(err)
	}
	step := bench.Step{Phase: bench.PhaseRun, Name: "test run", Argv: []string{"sh", "-c", script}}
	r, err := Launch(ctx, ex, wd, marked(step, marker, target))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stopMarked(context.Background(), ex, marker, time.Second) })
	rem := &rundir.Remote{Host: host, Dir: wd, PID: r.PID, Marker: marker}
	m := &rundir.Manifest{Start: time.Now().UTC(), Status: rundir.StatusRunning, Remote: rem}
	if err := m.Expect(rundir.ExpectedFile{Host: host, Remote: filepath.Join(wd, "run.out"), Local: rundir.BenchmarkRun, Kind: rundir.KindFile}); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	return rem
}

// TestMarkedProcesses: a detached benchmark is found by its run's marker
// and by its target, not by another run's; a PID that now belongs to some
// other process does not count as the benchmark; the stop ends every
// process of it.
func TestMarkedProcesses(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	ex := executor.NewLocal("lb")
	ctx := context.Background()
	d, err := rundir.Create(t.TempDir(), "marked", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	rem := launchMarked(t, ex, d, "lb", "192.0.2.11:3306", `echo started; sleep 30`)
	// The wrapper, the step's shell and the sleep it runs (once forked).
	var procs []Proc
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		procs, err = RunningProcs(ctx, ex, rem)
		if err != nil {
			t.Fatal(err)
		}
		sleeps := 0
		for _, p := range procs {
			if p.Marker != rem.Marker {
				t.Errorf("%v carries marker %q, want %q", p, p.Marker, rem.Marker)
			}
			if strings.HasPrefix(p.Cmd, "sleep 30") {
				sleeps++
			}
		}
		if len(procs) >= 2 && sleeps == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("found %v, want the session with its one sleep", procs)
		}
	}
	other, _ := newMarker()
	if d := describe(procs); !strings.Contains(d, ": sleep 30, ") {
		t.Errorf("describe = %q, want the sleep named, not its shells", d)
	}
	if procs, err := RunningProcs(ctx, ex, &rundir.Remote{Marker: other, PID: rem.PID}); err != nil || len(procs) != 0 {
		t.Errorf("another run's marker (same PID) found %v, %v", procs, err)
	}
	// This test's own process is alive, but it is not the benchmark.
	if procs, err := RunningProcs(ctx, ex, &rundir.Remote{Marker: other, PID: os.Getpid()}); err != nil || len(procs) != 0 {
		t.Errorf("a reused PID counted as the benchmark: %v, %v", procs, err)
	}
	if err := checkAlone(ctx, ex, "192.0.2.11:3306"); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "192.0.2.11:3306") {
		t.Errorf("checkAlone on the busy target = %v", err)
	}
	if err := checkAlone(ctx, ex, "192.0.2.21:3306"); err != nil {
		t.Errorf("checkAlone on another cluster's master = %v", err)
	}
	if err := stopMarked(ctx, ex, rem.Marker, time.Second); err != nil {
		t.Fatal(err)
	}
	if procs, err := RunningProcs(ctx, ex, rem); err != nil || len(procs) != 0 {
		t.Fatalf("after the stop: %v, %v", procs, err)
	}
	if running, _, err := remoteState(ctx, ex, rem); err != nil || running {
		t.Errorf("remoteState after the stop: running %v, %v", running, err)
	}
	if err := stopMarked(ctx, ex, "../../etc", time.Second); err == nil {
		t.Error("a marker orch does not make was used")
	}
}

func mustProcs(t *testing.T, ex executor.Executor, rem *rundir.Remote) []Proc {
	t.Helper()
	procs, err := RunningProcs(context.Background(), ex, rem)
	if err != nil {
		t.Fatal(err)
	}
	return procs
}

func TestParseProcs(t *testing.T) {
	out := "812 0123456789abcdef0123456789abcdef sh -c trap : INT TERM; sh \"$1\" orch-bench /h/run.sh \n" +
		"813 - sysbench oltp_insert run\n" +
		"garbage\n1 - init\n\n"
	got := parseProcs(out)
	want := []Proc{
		{PID: 812, Marker: "0123456789abcdef0123456789abcdef", Cmd: `sh -c trap : INT TERM; sh "$1" orch-bench /h/run.sh`},
		{PID: 813, Marker: "-", Cmd: "sysbench oltp_insert run"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("parseProcs = %v, want %v", got, want)
	}
}

// localCluster is the refused.yaml inventory (password runner-test-pw),
// every host this machine reached without SSH.
func localCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	t.Setenv("ORCH_RUNNER_TEST_PW", "runner-test-pw")
	inv, err := topology.Load("testdata/refused.yaml", topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c := cluster.Connect(context.Background(), inv, inv.Hosts, cluster.Options{
		Dialer: func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
			return executor.NewLocal(h.Name), nil
		}})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSettle: the benchmark an interrupted run left running is stopped (or
// waited for), said in one line, and the run directory collected: the
// output fetched, the manifest finished, the working directory removed.
func TestSettle(t *testing.T) {
	for _, tc := range []struct {
		wait       bool
		script     string
		want       Settled
		says, text string
	}{
		{false, `echo started; sleep 30`, SettledStopped, "stopping it", "started\n"},
		// The waited-for step ends when the test says so, after Settle has
		// said it waits (its sleep's pid in a file): no race with a clock.
		{true, `echo started; sleep 600 & echo $! > "$RELEASE"; wait; echo finished`, SettledWaited, "waiting for it to end", "started\nfinished\n"},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			c := localCluster(t)
			d, err := rundir.Create(t.TempDir(), "settle", time.Now())
			if err != nil {
				t.Fatal(err)
			}
			ex := executor.NewLocal("lb")
			release := filepath.Join(t.TempDir(), "sleep.pid")
			script := strings.ReplaceAll(tc.script, `"$RELEASE"`, shell.Quote(release))
			rem := launchMarked(t, ex, d, "lb", "192.0.2.11:3306", script)
			for deadline := time.Now().Add(10 * time.Second); !strings.Contains(describe(mustProcs(t, ex, rem)), ": sleep "); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the step's sleep never started")
				}
			}
			var lines []string
			logf := func(f string, a ...any) {
				line := fmt.Sprintf(f, a...)
				lines = append(lines, line)
				if strings.Contains(line, "waiting for it to end") {
					releaseSleep(t, release)
				}
			}
			got, err := Settle(context.Background(), d, c, tc.wait, logf)
			if err != nil || got != tc.want {
				t.Fatalf("Settle = %q, %v; want %q", got, err, tc.want)
			}
			if len(lines) == 0 || !strings.Contains(lines[0], tc.says) || !strings.Contains(lines[0], "sleep") {
				t.Errorf("Settle said %q, want one line with %q and the pid", lines, tc.says)
			}
			if procs, _ := RunningProcs(context.Background(), ex, rem); len(procs) != 0 {
				t.Errorf("still running: %v", procs)
			}
			b, err := os.ReadFile(filepath.Join(d.Path(), rundir.BenchmarkRun))
			if err != nil || !strings.HasPrefix(string(b), tc.text) {
				t.Errorf("collected %q, %v; want %q", b, err, tc.text)
			}
			m, err := d.LoadManifest()
			if err != nil {
				t.Fatal(err)
			}
			if m.Status != rundir.StatusInterrupted || !m.Remote.Removed {
				t.Errorf("manifest: status %s, remote removed %v", m.Status, m.Remote.Removed)
			}
			if _, err := os.Lstat(rem.Dir); !os.IsNotExist(err) {
				t.Errorf("working directory %s left: %v", rem.Dir, err)
			}
			// Idempotent: a second settle finds nothing to do.
			if got, err := Settle(context.Background(), d, c, tc.wait, logf); err != nil || got != SettledNone {
				t.Errorf("second Settle = %q, %v", got, err)
			}
		})
	}
}

// releaseSleep ends the sleep whose pid the waited-for step wrote.
func releaseSleep(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("the step's sleep pid: %v", err)
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Errorf("the step's sleep pid %q: %v", b, err)
		return
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Errorf("end the step's sleep %d: %v", pid, err)
	}
}
