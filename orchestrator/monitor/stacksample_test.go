package monitor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// sleeper is a sleeping child standing in for the server, with its pid file.
func sleeper(t *testing.T, dir string) string {
	t.Helper()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	pf := filepath.Join(dir, "server.pid")
	if err := os.WriteFile(pf, []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return pf
}

func testProfiler(t *testing.T, dir string, mode stacks.Mode, pf string) *Profiler {
	t.Helper()
	p, err := NewProfiler(dir, StackConfig{Mode: mode, Snapshots: 2, Gap: 100 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.addHost("master", topology.RoleMaster, executor.NewLocal("local"), false, func(context.Context) (string, error) { return pf, nil })
	return p
}

// The profiler, for real, through the local executor and gdb: asked for
// gdb, it finds it, the events bracket the window, raw and aggregated
// files land in stacks/, the profile has the measured stop.
func TestProfilerWithGDB(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed here")
	}
	dir := t.TempDir()
	p := testProfiler(t, dir, stacks.GDB, sleeper(t, dir))
	ctx := context.Background()
	if got := p.Resolve(ctx); got != stacks.GDB {
		t.Fatalf("resolved %q", got)
	}
	if p.Budget() <= 0 {
		t.Errorf("budget %v", p.Budget())
	}
	p.Mark(KindProfileStart, "test")
	ps := p.Sample(ctx, time.Now().Add(time.Minute))
	p.Mark(KindProfileEnd, "test")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 {
		t.Fatalf("%d profiles", len(ps))
	}
	pr := ps[0]
	if pr.Mode != stacks.GDB || pr.Snapshots != 2 || pr.Samples < 2 || pr.MaxPauseMs == nil || *pr.MaxPauseMs <= 0 || len(pr.PausesMs) != 2 {
		t.Errorf("profile %+v", pr)
	}
	for _, f := range []string{"master-gdb.txt", "master-gdb.json"} {
		if st, err := os.Stat(filepath.Join(dir, StacksDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var kinds []string
	for _, e := range readEvents(t, dir) {
		kinds = append(kinds, e.Kind)
	}
	want := []string{KindProfileStart, KindStacksStart, KindStacksEnd, KindProfileEnd}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Errorf("events %v, want %v", kinds, want)
	}
	if top := TopStacks(ps); len(top) != 1 || len(top[0].Stacks) > 10 {
		t.Errorf("top stacks %+v", top)
	}
}

// A host without the sampler asked for gets a stacks_error event naming
// the flag, and the run's mode is off; off probes nothing.
func TestProfilerWithoutSampler(t *testing.T) {
	dir := t.TempDir()
	p := testProfiler(t, dir, stacks.GDB, filepath.Join(dir, "no.pid"))
	if got := p.Resolve(context.Background()); got != stacks.Off {
		t.Errorf("resolved %q without a pid", got)
	}
	off := testProfiler(t, dir, stacks.Off, filepath.Join(dir, "no.pid"))
	if got := off.Resolve(context.Background()); got != stacks.Off || off.Budget() != 0 {
		t.Errorf("off resolved %q, budget %v", got, off.Budget())
	}
	p.Close()
	off.Close()
	evs := readEvents(t, dir)
	if len(evs) != 1 || evs[0].Kind != KindStacksError || evs[0].Host != "master" || !strings.Contains(evs[0].Detail, "no pid") {
		t.Errorf("events %+v", evs)
	}
}
