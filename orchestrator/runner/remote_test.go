package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/executor"
)

// TestLaunchFollowExit runs a step detached through the local executor (the
// same shell commands as on a load box) and follows it to its exit status;
// the secret reaches the program's environment and nothing else.
func TestLaunchFollowExit(t *testing.T) {
	ex := executor.NewLocal("loadbox")
	dir := filepath.Join(t.TempDir(), "run")
	step := bench.Step{Phase: bench.PhaseRun, Name: "test run",
		Argv:      []string{"sh", "-c", `for i in 1 2 3; do echo "line $i"; sleep 0.2; done; echo "pwd-len ${#MYSQL_PWD}"; echo oops >&2; exit 3`},
		SecretEnv: map[string]string{"MYSQL_PWD": "s3cr3t-pw"}}
	r, err := Launch(context.Background(), ex, dir, step)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var mu sync.Mutex
	var lines []string
	code, err := r.Follow(context.Background(), &out, func(l string) { mu.Lock(); lines = append(lines, l); mu.Unlock() }, 5*time.Second, t.Logf)
	if err != nil || code != 3 {
		t.Fatalf("Follow = %d, %v", code, err)
	}
	want := "line 1\nline 2\nline 3\npwd-len 9\noops\n"
	if out.String() != want || len(lines) != 5 {
		t.Fatalf("followed %q (%d lines), want %q", out.String(), len(lines), want)
	}
	for _, f := range []string{"run.sh", "run.out", "run.exit", "run.pid"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "s3cr3t-pw") {
			t.Errorf("%s holds the password", f)
		}
	}
}

// TestFollowResumesAndStop: following from an offset picks up where a broken
// follow ended; Stop ends the whole session.
func TestFollowResumesAndStop(t *testing.T) {
	ex := executor.NewLocal("loadbox")
	dir := filepath.Join(t.TempDir(), "run")
	step := bench.Step{Phase: bench.PhaseRun, Name: "long", Argv: []string{"sh", "-c", `echo started; sleep 30 & wait`}}
	r, err := Launch(context.Background(), ex, dir, step)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	var first bytes.Buffer
	n, _ := r.follow(ctx, 0, &first, nil)
	cancel()
	if first.String() != "started\n" || n != 8 {
		t.Fatalf("first follow read %q (%d)", first.String(), n)
	}
	if err := r.Stop(context.Background(), time.Second); err != nil {
		t.Fatal(err)
	}
	var rest bytes.Buffer
	code, err := r.Follow(context.Background(), &rest, nil, 5*time.Second, t.Logf)
	if err != nil {
		t.Fatalf("Follow after Stop: %v", err)
	}
	if code == 0 {
		t.Errorf("a stopped step exited 0")
	}
}
