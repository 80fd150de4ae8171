package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// A client line far longer than MaxLine is handed on cut and counted, while
// the output file gets it whole: following holds one bounded line, not the
// whole line (the review's 1 GB line took 2.33 GB in orch run).
func TestFollowBoundsLongLines(t *testing.T) {
	ex := executor.NewLocal("loadbox")
	dir := filepath.Join(t.TempDir(), "run")
	const long = 5 * MaxLine
	step := bench.Step{Phase: bench.PhaseRun, Name: "long line",
		Argv: []string{"sh", "-c", `echo first; head -c ` + strconv.Itoa(long) + ` /dev/zero | tr '\0' x; echo; echo last`}}
	r, err := Launch(context.Background(), ex, dir, step)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var lines []string
	var logged []string
	code, err := r.Follow(context.Background(), &out, func(l string) { lines = append(lines, l) }, 5*time.Second,
		func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) })
	if err != nil || code != 0 {
		t.Fatalf("Follow = %d, %v", code, err)
	}
	if out.Len() != len("first\n")+long+1+len("last\n") {
		t.Errorf("output file %d bytes, want the whole line", out.Len())
	}
	if len(lines) != 3 || lines[0] != "first" || len(lines[1]) != MaxLine || lines[2] != "last" {
		t.Fatalf("%d lines, the long one %d bytes", len(lines), len(lines[1]))
	}
	if r.LongLines != 1 || len(logged) != 1 || !strings.Contains(logged[0], "1 output line(s) longer than 64 KiB") {
		t.Errorf("flag: %d long, logged %q", r.LongLines, logged)
	}
}
