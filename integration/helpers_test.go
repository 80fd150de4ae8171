// Package integration runs the orch binary against the local lab (four hosts
// in namespaces, real sshd and MariaDB). The tests need ORCH_LAB_INVENTORY
// (the lab.yaml written by `orch lab up`) and ORCH_BIN; without them they
// skip, unless ORCH_REQUIRE_LAB is set (as in CI), where skipping is failure.
package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

type lab struct {
	inventory string // lab.yaml
	bin       string // orch binary
	// asGiven runs run and matrix with the instruments their arguments
	// name (else --stacks=off is added, see withoutStacks).
	asGiven bool
}

func needLab(t *testing.T) *lab {
	t.Helper()
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		if os.Getenv("ORCH_REQUIRE_LAB") != "" {
			t.Fatal("ORCH_REQUIRE_LAB is set but ORCH_LAB_INVENTORY/ORCH_BIN are not")
		}
		t.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN (make test does)")
	}
	return &lab{inventory: inv, bin: bin}
}

// result is one orch invocation.
type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

func (l *lab) orch(t *testing.T, args ...string) result {
	t.Helper()
	return l.orchCtx(t, context.Background(), args...)
}

func (l *lab) orchCtx(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	r := l.run(t, ctx, args...)
	t.Logf("orch %s -> exit %d in %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
	return r
}

// cleanup runs orch in a test's cleanup and logs it only when it fails:
// a failed test's log then ends with its cause, not with the teardown's
// progress lines (CI shows the lines before "--- FAIL").
func (l *lab) cleanup(t *testing.T, args ...string) {
	t.Helper()
	if r := l.run(t, context.Background(), args...); r.code != 0 {
		t.Logf("cleanup: orch %s -> exit %d in %s\nstderr:\n%s", strings.Join(args, " "), r.code, r.elapsed.Round(time.Millisecond), r.stderr)
	}
}

// run runs orch (five minutes at most) and returns what it printed.
func (l *lab) run(t *testing.T, ctx context.Context, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	if !l.asGiven {
		args = withoutStacks(args)
	}
	cmd := exec.CommandContext(ctx, l.bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("orch %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// withoutStacks adds --stacks=off to a run or matrix that does not name
// --stacks itself: the profiling tail (stack samples after each
// configuration's checks, about 8 s) is the subject of the tests that name
// it, and only costs time in the others.
func withoutStacks(args []string) []string {
	if len(args) == 0 || (args[0] != "run" && args[0] != "matrix") {
		return args
	}
	for _, a := range args {
		if a == "--stacks" || strings.HasPrefix(a, "--stacks=") || a == "--" {
			return args
		}
	}
	return append(append([]string(nil), args...), "--stacks=off")
}

// mustOK runs orch and fails the test on a non-zero exit.
func (l *lab) mustOK(t *testing.T, args ...string) result {
	t.Helper()
	r := l.orch(t, args...)
	if r.code != 0 {
		// The whole output is logged above; the failure says the end of it.
		t.Fatalf("orch %s: exit %d; its last lines:\n%s", strings.Join(args, " "), r.code, lastLines(r.stderr, 12))
	}
	return r
}

// fault injects a lab fault (orch lab fault HOST KIND) into the lab under
// test; ORCH_LAB_STATE_DIR names a lab other than the default one.
func (l *lab) fault(t *testing.T, host, kind string) {
	t.Helper()
	args := []string{"lab", "fault", host, kind}
	if dir := os.Getenv("ORCH_LAB_STATE_DIR"); dir != "" {
		args = append(args, "--state-dir", dir)
	}
	l.mustOK(t, args...)
}

// inventoryDoc reads the lab inventory as a generic YAML document so a test
// can derive variants of it.
func (l *lab) inventoryDoc(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(l.inventory), name))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func writeYAML(t *testing.T, path string, doc map[string]any) {
	t.Helper()
	b, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// hostAddress returns the address of the named host in a lab inventory doc.
func hostAddress(t *testing.T, doc map[string]any, name string) string {
	t.Helper()
	for _, h := range doc["hosts"].([]any) {
		m := h.(map[string]any)
		if m["name"] == name {
			return m["address"].(string)
		}
	}
	t.Fatalf("no host %s in lab inventory", name)
	return ""
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
