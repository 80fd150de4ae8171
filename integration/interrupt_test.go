package integration

import (
	"bufio"
	"context"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// interruptedUp runs `orch up -v ARGS...` and sends it SIGINT as soon as it
// says a server restarts (-v prints each step as it starts), then again
// after second (when second > 0). It returns the exit status and
// everything orch printed on stderr.
func (l *lab) interruptedUp(t *testing.T, second time.Duration, args ...string) (int, string) {
	t.Helper()
	return l.interruptAt(t, func(line string) bool { return strings.HasSuffix(line, " restart") }, 0, second,
		append([]string{"up", "-v", "-i", l.inventory}, args...)...)
}

// interruptAt runs orch ARGS... and sends it SIGINT wait after the first
// stderr line that at accepts, then again after second (when second > 0).
// It returns the exit status and everything orch printed on stderr.
func (l *lab) interruptAt(t *testing.T, at func(string) bool, wait, second time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	seen := make(chan struct{})
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		once := sync.Once{}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if at(sc.Text()) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	select {
	case <-seen:
	case <-scanned:
		cmd.Wait()
		t.Fatalf("orch %s ended before the line to interrupt it at:\n%s", args[0], strings.Join(lines, "\n"))
	}
	time.Sleep(wait)
	cmd.Process.Signal(syscall.SIGINT)
	start := time.Now()
	if second > 0 {
		time.Sleep(second)
		cmd.Process.Signal(syscall.SIGINT)
	}
	<-scanned
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	out := strings.Join(lines, "\n")
	t.Logf("interrupted %s: exit %d, %s after the first SIGINT:\n%s", args[0], code, time.Since(start).Round(time.Millisecond), out)
	return code, out
}

// assertServersRunning: every database server answers, on innodb or rocksdb
// (its old or its new config), never stopped.
func (l *lab) assertServersRunning(t *testing.T) {
	t.Helper()
	r := l.orch(t, "exec", "-i", l.inventory, "--role", "db", "--", `mariadb -N -e 'SELECT @@default_storage_engine'`)
	if r.code != 0 {
		t.Fatalf("a server does not answer after the interrupted up:\n%s%s", r.stdout, r.stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		_, engine, _ := strings.Cut(line, " | ")
		if e := strings.ToLower(strings.TrimSpace(engine)); e != "innodb" && e != "rocksdb" {
			t.Errorf("server on neither config: %q", line)
		}
	}
}

// TestFaultInterruptedUp (fault 2): SIGINT while `up --engine rocksdb`
// restarts the servers. The undo completes: every server runs, on its old
// or its new config; orch exits 130 saying where each host was left; the
// next up converges. A second SIGINT during the rollback exits at once,
// saying what was left, and the next up converges from there too.
func TestFaultInterruptedUp(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)

	t.Run("one interrupt", func(t *testing.T) {
		code, out := l.interruptedUp(t, 0, "--engine", "rocksdb")
		if code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
		if !strings.Contains(out, "where the hosts were left") {
			t.Errorf("the exit does not say where the hosts were left")
		}
		for _, h := range []string{"master", "slave1", "slave2"} {
			if !strings.Contains(out, h+" 10.99.0.") {
				t.Errorf("the exit does not name %s", h)
			}
		}
		l.assertServersRunning(t)
		l.mustOK(t, "up", "-i", l.inventory, "--engine", "rocksdb")
		assertReplicating(t, l.status(t), "rocksdb")
	})

	t.Run("second interrupt", func(t *testing.T) {
		code, out := l.interruptedUp(t, 300*time.Millisecond, "--engine", "innodb")
		if code != 130 {
			t.Errorf("exit %d, want 130", code)
		}
		if !strings.Contains(out, "second interrupt") || !strings.Contains(out, "left unfinished: ") {
			t.Errorf("the second interrupt did not say what it left")
		}
		l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
		assertReplicating(t, l.status(t), "innodb")
	})
}
