package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// localCluster is a one-master cluster whose master is this machine, run
// by a real shell with real flock(1), in a fresh home.
func localCluster(t *testing.T) *Cluster {
	t.Helper()
	hosts := []*topology.Host{{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1"}}
	dial := func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		return executor.NewLocal(h.Name), nil
	}
	c := Connect(context.Background(), &topology.Inventory{Hosts: hosts}, hosts, Options{Dialer: dial})
	t.Cleanup(func() { c.Close() })
	return c
}

// TestLockOneCommandAtATime: while one command holds the cluster, another
// is refused, told what holds it; once the first closes, the second gets it.
// The lock file is private to the SSH user.
func TestLockOneCommandAtATime(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ctx := context.Background()
	first, second := localCluster(t), localCluster(t)
	if err := first.Lock(ctx, "orch up"); err != nil {
		t.Fatal(err)
	}
	err := second.Lock(ctx, "orch run")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "orch up, pid "+strconv.Itoa(os.Getpid())) ||
		!strings.HasPrefix(err.Error(), "master 10.0.0.1: ") {
		t.Fatalf("second command's lock: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(home, ".orch")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("~/.orch: %v %v, want a 0700 directory", fi.Mode(), err)
	}
	start := time.Now()
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("released in %s", time.Since(start))
	if err := second.Lock(ctx, "orch run"); err != nil {
		t.Fatalf("after the first closed: %v", err)
	}
}

// holdLock starts a holder as an orch that lost its session would leave
// one: the lock script with owner's record, its input kept open. The
// channel hears its end (it is reaped at once, as sshd reaps it).
func holdLock(t *testing.T, o owner) <-chan error {
	t.Helper()
	cmd := exec.Command("sh", "-c", lockScript)
	cmd.Env = append(os.Environ(), "ORCH_LOCK_OWNER="+o.String())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 7)
	if _, err := out.Read(b); err != nil || string(b) != "locked\n" {
		t.Fatalf("holder: %q %v", b, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill() })
	return done
}

// TestLockClearsAHolderWhoseOrchIsGone: a holder whose orch ran here and
// exited (its PID now names nothing, or another process) is ended and the
// lock taken; one whose orch ran on another machine is only reported.
func TestLockClearsAHolderWhoseOrchIsGone(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := self("orch matrix")
	gone.pid = dead.Process.Pid
	holder := holdLock(t, gone)
	c := localCluster(t)
	if err := c.Lock(context.Background(), "orch up"); err != nil {
		t.Fatalf("lock over a gone orch's holder: %v", err)
	}
	select {
	case err := <-holder:
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			t.Errorf("the gone orch's holder ended with %v, want SIGTERM", err)
		}
	default:
		t.Error("the gone orch's holder still runs")
	}
	c.Close()

	t.Setenv("HOME", t.TempDir())
	elsewhere := self("orch matrix")
	elsewhere.host = "control2"
	holdLock(t, elsewhere)
	err := localCluster(t).Lock(context.Background(), "orch up")
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "(orch matrix, pid "+strconv.Itoa(os.Getpid())+" on control2)") {
		t.Fatalf("lock beside another machine's orch: %v", err)
	}
}

func TestParseOwner(t *testing.T) {
	for rec, ok := range map[string]bool{
		"4242 ctl 17 9000 orch up": true, "4242 ctl 17 9000 machine=ab.cd orch up": true, "4242 ctl 17 orch up": false, "": false, "x ctl 17 9000 orch": false,
	} {
		h, o, got := parseOwner(rec)
		if got != ok {
			t.Errorf("parseOwner(%q) ok = %v", rec, got)
		}
		if ok && (h != 4242 || o.host != "ctl" || o.pid != 17 || o.start != 9000 || o.purpose != "orch up") {
			t.Errorf("parseOwner(%q) = %d %+v", rec, h, o)
		}
	}
}
