package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

func slapWorkload(t *testing.T) *bench.Workload {
	t.Helper()
	w, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestRunWithASlaveDownFailsNamingIt: `run --no-up` on a cluster whose
// slave crashed fails naming that slave, starts no server, and ends the run
// directory failed.
func TestRunWithASlaveDownFailsNamingIt(t *testing.T) {
	f := newFakeLab(t)
	f.Lab.Hosts[2].Crash()
	// The crash breaks db3's session; the others' stay as up left them.
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "db3 192.0.2.13") {
		t.Fatalf("run with db3 down: %v", err)
	}
	if strings.Contains(err.Error(), "db2 192.0.2.12") {
		t.Errorf("error blames a healthy host: %v", err)
	}
	if f.Lab.Hosts[2].Running() {
		t.Error("a run started a server")
	}
	m, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != rundir.StatusFailed || !strings.Contains(m.Error, "db3") {
		t.Errorf("manifest: status %s, error %q", m.Status, m.Error)
	}
	if _, err := os.Stat(f.Argv); err == nil {
		t.Error("the benchmark ran on a broken cluster")
	}
}

// TestRunWhoseClientFailsEndsFailed: a client that exits 1 fails the run,
// which says so and keeps the client's output.
func TestRunWhoseClientFailsEndsFailed(t *testing.T) {
	f := newFakeLab(t)
	f.ClientMode(t, "fail")
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "lb: benchmark exited 1") {
		t.Fatalf("run: %v", err)
	}
	if out.Status != rundir.StatusFailed {
		t.Errorf("status %s", out.Status)
	}
	b, err := os.ReadFile(filepath.Join(out.Dir.Path(), "benchmark", "run.txt"))
	if err != nil || !strings.Contains(string(b), "2013 Lost connection") {
		t.Errorf("benchmark output %q, %v", b, err)
	}
}

// TestInterruptedRunStopsTheClient: Ctrl-C while the client runs stops it
// on the load box and ends the run interrupted, collected.
func TestInterruptedRunStopsTheClient(t *testing.T) {
	f := newFakeLab(t)
	f.ClientMode(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(f.Argv); err == nil {
				time.Sleep(200 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	start := time.Now()
	out, err := Run(ctx, Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if err == nil || out == nil || out.Status != rundir.StatusInterrupted {
		t.Fatalf("interrupted run: %v, %+v", err, out)
	}
	if took := time.Since(start); took > 45*time.Second {
		t.Errorf("the run waited for the client (%s)", took)
	}
	m, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != rundir.StatusInterrupted || m.End.IsZero() {
		t.Errorf("manifest: status %s, end %v", m.Status, m.End)
	}
}

// TestCollectFetchesAgainWhatWasLost: after a run that kept its working
// directory, collect fetches a deleted output file again, rewrites the
// results from it, and then removes the working directory.
func TestCollectFetchesAgainWhatWasLost(t *testing.T) {
	f := newFakeLab(t)
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test", KeepRemote: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := out.Dir.LoadManifest()
	if err != nil || m.Remote == nil {
		t.Fatalf("manifest remote: %v", err)
	}
	remote := m.Remote.Dir
	if _, err := os.Stat(remote); err != nil {
		t.Fatalf("working directory not kept: %v", err)
	}
	run := filepath.Join(out.Dir.Path(), "benchmark", "run.txt")
	want, _ := os.ReadFile(run)
	os.Remove(run)
	os.Remove(filepath.Join(out.Dir.Path(), rundir.FileResults))
	res, err := Collect(context.Background(), out.Dir, f.C, false)
	if err != nil {
		t.Fatalf("collect: %v", err)
	}
	got, err := os.ReadFile(run)
	if err != nil || !bytes.Equal(got, want) || !strings.Contains(string(got), "Average number of seconds to run all queries: 4.890 seconds") {
		t.Errorf("fetched again %q, %v", got, err)
	}
	if !res.Parsed || !res.RemovedRemote || res.StillRunning {
		t.Errorf("collect: %+v", res)
	}
	if _, err := os.Stat(remote); !os.IsNotExist(err) {
		t.Errorf("working directory still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out.Dir.Path(), rundir.FileResults)); err != nil {
		t.Errorf("results not rewritten: %v", err)
	}
}

// TestStalledRunIsStopped: a run whose master commits nothing for the
// stall limit (a client hung on a lock, here one that never sends) is
// stopped by the watchdog instead of waiting for the client's own end,
// and the run directory says why it stopped.
func TestStalledRunIsStopped(t *testing.T) {
	f := newFakeLab(t)
	f.ClientMode(t, "hang")
	var logs []string
	var mu sync.Mutex
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	start := time.Now()
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test",
		StallLimit: 2 * time.Second, Logf: logf})
	if took := time.Since(start); took > 45*time.Second {
		t.Errorf("the run waited for the client (%s)", took)
	}
	if out == nil {
		t.Fatalf("no outcome: %v", err)
	}
	mu.Lock()
	said := strings.Join(logs, "\n")
	mu.Unlock()
	if !strings.Contains(said, "run: stopping the benchmark: ") {
		t.Errorf("the run did not say it stopped the benchmark:\n%s", said)
	}
	m, merr := out.Dir.LoadManifest()
	if merr != nil {
		t.Fatal(merr)
	}
	if m.Status == rundir.StatusOK || !strings.Contains(m.Error, "stall") {
		t.Errorf("manifest: status %s, error %q (err %v)", m.Status, m.Error, err)
	}
}

// TestRunWithUnreadableFiguresEndsFailed: a client whose figures cannot be
// read (NaN, a negative time, an overflow) fails the run, saying so, the
// manifest failed (the review's ended "run ok", exit 0).
func TestRunWithUnreadableFiguresEndsFailed(t *testing.T) {
	good, err := os.ReadFile("testdata/mariadb-slap-write-innodb.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"nan", "-4.890", "1e999"} {
		sample := filepath.Join(t.TempDir(), "slap.txt")
		text := strings.Replace(string(good), "all queries: 4.890 seconds", "all queries: "+bad+" seconds", 1)
		if text == string(good) {
			t.Fatal("the sample changed: no average line to corrupt")
		}
		if err := os.WriteFile(sample, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f := fakeLabOf(t, "testdata/fakelab.yaml", "mariadb-slap", sample)
		out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test"})
		if err == nil || !strings.HasPrefix(err.Error(), "cannot read the client's figures (") {
			t.Fatalf("%s: run: %v", bad, err)
		}
		m, lerr := out.Dir.LoadManifest()
		if out.Status != rundir.StatusFailed || lerr != nil || m.Status != rundir.StatusFailed || !strings.Contains(m.Error, "cannot read the client's figures") {
			t.Errorf("%s: status %s, manifest %+v %v", bad, out.Status, m, lerr)
		}
	}
}

// TestRunOnAFullDiskEndsFailed: the local disk fills while the client's
// output comes in; the run ends failed naming the cause, and the manifest
// says so rather than stay "running" (the review's full disk). The run
// directory is on a 1 MiB tmpfs, the client prints 4 MiB.
func TestRunOnAFullDiskEndsFailed(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mount("tmpfs", root, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatalf("mount a small tmpfs (the test runs as root, as make test does): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(root, syscall.MNT_DETACH) })
	good, err := os.ReadFile("testdata/mariadb-slap-write-innodb.txt")
	if err != nil {
		t.Fatal(err)
	}
	sample := filepath.Join(t.TempDir(), "slap.txt")
	big := append(good, bytes.Repeat([]byte(strings.Repeat("x", 1023)+"\n"), 4096)...)
	if err := os.WriteFile(sample, big, 0o644); err != nil {
		t.Fatal(err)
	}
	f := fakeLabOf(t, "testdata/fakelab.yaml", "mariadb-slap", sample)
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: root, Version: "test"})
	if err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("run on a full disk: %v", err)
	}
	if out == nil {
		t.Fatal("no run directory")
	}
	m, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != rundir.StatusFailed || m.Status != rundir.StatusFailed || !strings.Contains(m.Error, "no space left on device") {
		t.Errorf("status %s, manifest %s %q", out.Status, m.Status, m.Error)
	}
	if _, err := os.Stat(filepath.Join(out.Dir.Path(), ".orch-reserve")); err == nil {
		t.Error("the reserve outlived the run")
	}
}
