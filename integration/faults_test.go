package integration

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// badPasswordInventory writes a copy of the lab inventory in which host's
// MySQL password is wrong (every other setting, and every other host, as in
// the lab).
func (l *lab) badPasswordInventory(t *testing.T, host string) string {
	t.Helper()
	dir := t.TempDir()
	pw := filepath.Join(dir, "wrong-password")
	if err := os.WriteFile(pw, []byte("not-the-lab-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := l.inventoryDoc(t, filepath.Base(l.inventory))
	found := false
	for _, h := range doc["hosts"].([]any) {
		m := h.(map[string]any)
		if m["name"] == host {
			m["mysql"] = map[string]any{"password": map[string]any{"file": pw}}
			found = true
		}
	}
	if !found {
		t.Fatalf("no host %s in the lab inventory", host)
	}
	inv := filepath.Join(dir, "bad-password.yaml")
	writeYAML(t, inv, doc)
	return inv
}

// errorLines are the lines orch printed as its error ("orch: ...").
func errorLines(stderr string) []string {
	var out []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "orch: ") {
			out = append(out, line)
		}
	}
	return out
}

// assertOneLineError: the command failed with exit 1, printed its error on
// one line naming host and containing want, did not panic and printed no
// line of the MySQL driver's own.
func assertOneLineError(t *testing.T, r result, host string, want ...string) {
	t.Helper()
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if strings.Contains(r.stderr, "panic") || strings.Contains(r.stderr, "goroutine ") {
		t.Fatalf("orch panicked:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "[mysql]") {
		t.Errorf("the driver's own log lines reached stderr:\n%s", r.stderr)
	}
	lines := errorLines(r.stderr)
	if len(lines) != 1 {
		t.Fatalf("%d error lines, want one:\n%s", len(lines), r.stderr)
	}
	if !strings.Contains(lines[0], host+" ") {
		t.Errorf("error does not name %s: %s", host, lines[0])
	}
	for _, w := range want {
		if !strings.Contains(lines[0], w) {
			t.Errorf("error lacks %q: %s", w, lines[0])
		}
	}
}

// assertRunFailed: the run directory under runs exists and its manifest
// ended failed (never left running), with the error recorded.
func assertRunFailed(t *testing.T, runs, host string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatalf("no run directory: %v", err)
	}
	m := readJSON(t, filepath.Join(dir, "manifest.json"))
	if m["status"] != "failed" {
		t.Errorf("manifest status %v, want failed", m["status"])
	}
	if e, _ := m["error"].(string); !strings.Contains(e, host) {
		t.Errorf("manifest error %q does not name %s", e, host)
	}
	if m["end"] == nil {
		t.Errorf("manifest has no end time")
	}
}

var shortRun = []string{"--workload", "pure-random-writes", "--tables", "1", "--threads", "1", "--time", "2", "--table-size", "100"}

// TestFaultRunWithAServerDown (fault 1): `run --no-up` with slave2's server
// killed fails with one line naming slave2, and the run directory ends
// failed; the next up starts the server again.
func TestFaultRunWithAServerDown(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)
	l.fault(t, "slave2", "kill-mysqld")
	runs := t.TempDir()
	r := l.orch(t, append([]string{"run", "-i", l.inventory, "--no-up", "--runs", runs}, shortRun...)...)
	assertOneLineError(t, r, "slave2")
	assertRunFailed(t, runs, "slave2")

	r = l.mustOK(t, "up", "-i", l.inventory)
	if !strings.Contains(r.stderr, "started the server, which was down") {
		t.Errorf("up did not start slave2's server again:\n%s", r.stderr)
	}
	assertReplicating(t, l.status(t), "innodb")
}

// TestFaultWrongPassword (faults 1 and 3): a wrong MySQL password on slave2.
// `run --no-up` fails with one line naming slave2 and the refused login, the
// run directory ends failed; `up` fails the same way without starting (or
// restarting) the running server.
func TestFaultWrongPassword(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)
	bad := l.badPasswordInventory(t, "slave2")
	before := l.uptimes(t)

	t.Run("run", func(t *testing.T) {
		runs := t.TempDir()
		r := l.orch(t, append([]string{"run", "-i", bad, "--no-up", "--runs", runs}, shortRun...)...)
		assertOneLineError(t, r, "slave2", "Access denied", "refuses this login")
		assertRunFailed(t, runs, "slave2")
	})
	t.Run("up", func(t *testing.T) {
		r := l.orch(t, "up", "-i", bad)
		assertOneLineError(t, r, "slave2", "Access denied", "refuses this login")
		if strings.Contains(r.stderr, "started the server") {
			t.Errorf("up started a running server:\n%s", r.stderr)
		}
		t.Logf("up with a wrong password failed in %s", r.elapsed)
	})
	for h, up := range l.uptimes(t) {
		if up < before[h] {
			t.Errorf("%s restarted (uptime %d -> %d) for a wrong password", h, before[h], up)
		}
	}
}

// TestFaultLinkDropDuringUp (fault 4): slave2's link goes down a second into
// `up --engine rocksdb`, while the servers restart. The error names every
// host and where it was left, slave2 as unreachable; no line of the MySQL
// driver's own reaches stderr; once the link is back, up converges.
func TestFaultLinkDropDuringUp(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)
	done := make(chan result, 1)
	go func() { done <- l.orch(t, "up", "-i", l.inventory, "--engine", "rocksdb") }()
	time.Sleep(time.Second)
	l.fault(t, "slave2", "link-down")
	linkUp := sync.OnceFunc(func() { l.fault(t, "slave2", "link-up") })
	defer linkUp()
	r := <-done
	linkUp()
	if r.code != 1 {
		t.Errorf("exit %d, want 1", r.code)
	}
	if strings.Contains(r.stderr, "[mysql]") || strings.Contains(r.stderr, "panic") {
		t.Errorf("stray driver lines or a panic on stderr:\n%s", r.stderr)
	}
	i := strings.Index(r.stderr, "where the hosts were left:")
	if i < 0 {
		t.Fatalf("the error does not say where the hosts were left:\n%s", r.stderr)
	}
	left := r.stderr[i:]
	for _, h := range []string{"master 10.99.0.11: ", "slave1 10.99.0.12: ", "slave2 10.99.0.13: "} {
		if !strings.Contains(left, h) {
			t.Errorf("the error does not say what was done on %s", h)
		}
	}
	for _, line := range strings.Split(left, "\n") {
		if strings.Contains(line, "slave2 10.99.0.13: ") && !strings.Contains(line, "unreachable") {
			t.Errorf("slave2 not reported unreachable: %s", line)
		}
	}
	t.Logf("up with slave2's link dropped failed after %s", r.elapsed)
	l.waitReachable(t, "slave2")
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "rocksdb")
	assertReplicating(t, l.status(t), "rocksdb")
}

// waitReachable waits until host answers over SSH again: right after a
// link comes back, the neighbour cache may still say "no route to host".
func (l *lab) waitReachable(t *testing.T, host string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := l.orch(t, "exec", "-i", l.inventory, "--role", host, "--", "true")
		if r.code == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s unreachable 30 s after its link came back", host)
		}
		time.Sleep(time.Second)
	}
}
