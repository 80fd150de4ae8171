package integration

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/preflight"
)

func checkJSON(t *testing.T, r result) []preflight.Facts {
	t.Helper()
	var doc struct {
		Hosts []preflight.Facts `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("check --json output: %v", err)
	}
	return doc.Hosts
}

// TestCheckPassesOnLab: every preflight check passes on all four hosts, and
// the facts are the lab's real ones.
func TestCheckPassesOnLab(t *testing.T) {
	l := needLab(t)
	facts := checkJSON(t, l.mustOK(t, "check", "-i", l.inventory, "--json"))
	if len(facts) != 4 {
		t.Fatalf("check reported %d hosts, want 4", len(facts))
	}
	for _, f := range facts {
		if f.Blocking() {
			t.Errorf("%s: blocking problems: %+v", f.Host, f.Problems)
		}
		if !strings.HasPrefix(f.SSH, "ok") || f.Sudo != "root" || f.CPUs < 1 || f.MemoryMB < 100 || f.Kernel == "" {
			t.Errorf("%s: implausible facts: %+v", f.Host, f)
		}
		switch f.Role {
		case "master", "slave":
			if !strings.HasPrefix(f.Server, "MariaDB 10.") || f.MySQL != "up" {
				t.Errorf("%s: server %q, mysql %q", f.Host, f.Server, f.MySQL)
			}
			if !contains(f.Engines, "innodb") || !contains(f.Engines, "rocksdb") {
				t.Errorf("%s: engines %v, want innodb and rocksdb", f.Host, f.Engines)
			}
			if f.DiskFreeMB <= 0 || f.DiskPath != "/var/lib/mysql" {
				t.Errorf("%s: disk %d MB on %q", f.Host, f.DiskFreeMB, f.DiskPath)
			}
		case "loadbox":
			if !strings.HasPrefix(f.Clients["sysbench"], "sysbench 1.") || f.Clients["mysqlslap"] == "" {
				t.Errorf("loadbox clients: sysbench %q, mysqlslap %q", f.Clients["sysbench"], f.Clients["mysqlslap"])
			}
			if f.RTTToMasterMs <= 0 {
				t.Errorf("loadbox: no round trip to master measured")
			}
		}
		// Same machine, same clock: the offset is measurement noise only.
		if f.ClockOffsetMs > 500 || f.ClockOffsetMs < -500 {
			t.Errorf("%s: clock offset %.1f ms", f.Host, f.ClockOffsetMs)
		}
	}
	// The table form names every host and the checks.
	r := l.mustOK(t, "check", "-i", l.inventory)
	for _, want := range []string{"master", "slave1", "slave2", "loadbox", "engines", "rtt to master"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check table lacks %q", want)
		}
	}
}

// TestMySQLOnlyThroughSSH: the servers listen on 127.0.0.1 only, so the
// successful logins in check went through the SSH connections. orch down
// first puts back the lab's own config (orch up, run by earlier tests,
// makes the servers listen on every address for replication).
func TestMySQLOnlyThroughSSH(t *testing.T) {
	l := needLab(t)
	l.mustOK(t, "down", "-i", l.inventory)
	addr := hostAddress(t, l.inventoryDoc(t, "lab.yaml"), "master")
	if c, err := net.DialTimeout("tcp", net.JoinHostPort(addr, "3306"), 2*time.Second); err == nil {
		c.Close()
		t.Fatalf("master's MySQL port is reachable directly from the control machine")
	}
	facts := checkJSON(t, l.mustOK(t, "check", "-i", l.inventory, "--json"))
	if facts[0].MySQL != "up" {
		t.Fatalf("master: mysql login through SSH: %q", facts[0].MySQL)
	}
}

// TestPasswordAuthAndSudo: the lab's non-root user logs in with a password
// and becomes root through sudo -S; the password is in no process's argv.
func TestPasswordAuthAndSudo(t *testing.T) {
	l := needLab(t)
	pwInv := filepath.Join(filepath.Dir(l.inventory), "lab-password.yaml")
	facts := checkJSON(t, l.mustOK(t, "check", "-i", pwInv, "--json"))
	for _, f := range facts {
		if f.Sudo != "ok" {
			t.Errorf("%s: sudo %q, want ok", f.Host, f.Sudo)
		}
	}
	r := l.mustOK(t, "exec", "-i", pwInv, "--sudo", "--", "id", "-u")
	for _, h := range []string{"master", "slave1", "slave2", "loadbox"} {
		if !containsLine(r.stdout, h, "0") {
			t.Errorf("%s: sudo id -u did not print 0:\n%s", h, r.stdout)
		}
	}

	// While a sudo command runs, read every argv on the master.
	doc := l.inventoryDoc(t, "lab-password.yaml")
	pwFile := doc["defaults"].(map[string]any)["ssh"].(map[string]any)["password"].(map[string]any)["file"].(string)
	pw, err := os.ReadFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() { done <- l.orchCtx(t, ctx, "exec", "-i", pwInv, "--role", "master", "--sudo", "--", "sleep 3") }()
	time.Sleep(1500 * time.Millisecond)
	argv := l.mustOK(t, "exec", "-i", l.inventory, "--role", "master", "--", `for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f"; echo; done`)
	if !strings.Contains(argv.stdout, "sleep 3") {
		t.Fatalf("the sudo command was not running while argv was read:\n%s", argv.stdout)
	}
	if strings.Contains(argv.stdout, strings.TrimSpace(string(pw))) {
		t.Fatalf("the SSH/sudo password appears in a process argv on master")
	}
	if r := <-done; r.code != 0 {
		t.Fatalf("sudo sleep failed: %s", r.stderr)
	}
}

// TestExecPerHostOutput: output is prefixed per host; each host is its own
// machine (hostname from its UTS namespace); a failure on one host fails the
// command and names that host while the others still print.
func TestExecPerHostOutput(t *testing.T) {
	l := needLab(t)
	r := l.mustOK(t, "exec", "-i", l.inventory, "--", "hostname")
	for _, h := range []string{"master", "slave1", "slave2", "loadbox"} {
		if !containsLine(r.stdout, h, h) {
			t.Errorf("no line %q | %q in:\n%s", h, h, r.stdout)
		}
	}
	r = l.mustOK(t, "exec", "-i", l.inventory, "--role", "slave", "--", "hostname")
	if strings.Contains(r.stdout, "master") || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("--role slave ran elsewhere:\n%s", r.stdout)
	}
	r = l.orch(t, "exec", "-i", l.inventory, "--", `echo "on $(hostname)"; test "$(hostname)" != slave1`)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	if !strings.Contains(r.stderr, "slave1 ") || strings.Contains(r.stderr, "master ") {
		t.Errorf("stderr should name slave1 only:\n%s", r.stderr)
	}
	for _, h := range []string{"master", "slave2", "loadbox"} {
		if !containsLine(r.stdout, h, "on "+h) {
			t.Errorf("%s's output missing:\n%s", h, r.stdout)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// containsLine reports whether out has a line "host | text" (padding allowed).
func containsLine(out, host, text string) bool {
	for _, line := range strings.Split(out, "\n") {
		name, rest, ok := strings.Cut(line, " | ")
		if ok && strings.TrimSpace(name) == host && strings.TrimSpace(rest) == text {
			return true
		}
	}
	return false
}
