package monitor

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

// The sampler, for real, through the local executor and gdb, on a
// sleeping child standing in for the server: events bracket the window,
// raw and aggregated files land in stacks/, the summary has the profile
// with its measured pause.
func TestStackSamplerWithGDB(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed here")
	}
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	dir := t.TempDir()
	pf := filepath.Join(dir, "server.pid")
	if err := os.WriteFile(pf, []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sp := spec{name: "master", role: topology.RoleMaster, exec: executor.NewLocal("local"),
		pidFile: func(context.Context) (string, error) { return pf, nil }}
	m, err := start(context.Background(), Config{Dir: dir, Stacks: StackConfig{Mode: stacks.Auto, At: 10 * time.Millisecond,
		Snapshots: 2, Gap: 100 * time.Millisecond}}, []spec{sp})
	if err != nil {
		t.Fatal(err)
	}
	m.SetLoadActive(true)
	deadline := time.Now().Add(60 * time.Second)
	for {
		m.stacks.mu.Lock()
		n := len(m.stacks.profiles)
		m.stacks.mu.Unlock()
		if n > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	m.SetLoadActive(false)
	sum, err := m.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Stacks) != 1 {
		t.Fatalf("%d profiles in the summary", len(sum.Stacks))
	}
	p := sum.Stacks[0]
	if p.Mode != stacks.GDB || p.Snapshots != 2 || p.Samples < 2 || p.MaxPauseMs == nil || *p.MaxPauseMs <= 0 {
		t.Errorf("profile %+v", p)
	}
	for _, f := range []string{"master-gdb.txt", "master-gdb.json"} {
		if st, err := os.Stat(filepath.Join(dir, StacksDir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	var kinds []string
	for _, e := range readEvents(t, dir) {
		if e.Host == "master" {
			kinds = append(kinds, e.Kind)
		}
	}
	want := []string{KindStacksStart, KindStacksEnd}
	if len(kinds) != 2 || kinds[0] != want[0] || kinds[1] != want[1] {
		t.Errorf("events %v, want %v", kinds, want)
	}
}
