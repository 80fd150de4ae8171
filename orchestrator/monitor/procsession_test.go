package monitor

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// countingExec counts the commands run through it.
type countingExec struct {
	executor.Executor
	runs atomic.Int32
}

func (c *countingExec) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	c.runs.Add(1)
	return c.Executor.Run(ctx, cmd)
}

func newProcSource(t *testing.T, ex executor.Executor) (*procSource, context.CancelFunc, *sync.WaitGroup) {
	ctx, cancel := context.WithCancel(context.Background())
	wg := &sync.WaitGroup{}
	p := &procSource{ex: ex, proc: &osProc{datadir: "/"}, ctx: ctx, wg: wg}
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return p, cancel, wg
}

// The real loop through /bin/sh on this machine: one command serves every
// sample, each of which parses.
func TestProcSessionServesManySamples(t *testing.T) {
	ex := &countingExec{Executor: executor.NewLocal("control")}
	p, cancel, wg := newProcSource(t, ex)
	for i := 0; i < 5; i++ {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := p.fetch(ctx)
		done()
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		s, err := parseProc(out)
		if err != nil {
			t.Fatalf("sample %d: %v\n%s", i, err, out)
		}
		if s.hasDev != (i == 0) || len(s.disks) == 0 {
			t.Errorf("sample %d: dev %v, %d disks", i, s.hasDev, len(s.disks))
		}
		p.proc.picked = true
	}
	if n := ex.runs.Load(); n != 1 {
		t.Errorf("%d commands for 5 samples", n)
	}
	// Stopping the monitor ends the loop: its stdin reaches EOF.
	cancel()
	ended := make(chan struct{})
	go func() {
		wg.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the session outlived the monitor")
	}
}

// stuckExec runs commands that never answer, until cancelled; then it
// takes a while to return, as an SSH kill does.
type stuckExec struct {
	executor.Executor
	runs    atomic.Int32
	release chan struct{}
}

func (s *stuckExec) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	s.runs.Add(1)
	go io.Copy(io.Discard, cmd.Stdin)
	<-ctx.Done()
	<-s.release
	return executor.Result{}, errors.New("killed")
}

func TestProcSessionThatStopsAnswering(t *testing.T) {
	ex := &stuckExec{Executor: executor.NewLocal("x"), release: make(chan struct{})}
	p, _, _ := newProcSource(t, ex)
	fetch := func() error {
		ctx, done := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer done()
		_, err := p.fetch(ctx)
		return err
	}
	if err := fetch(); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("first fetch: %v", err)
	}
	// Killed but not yet ended: no second session meanwhile.
	for i := 0; i < 3; i++ {
		if err := fetch(); err == nil || !strings.Contains(err.Error(), "still being stopped") {
			t.Fatalf("fetch while the last session dies: %v", err)
		}
	}
	if n := ex.runs.Load(); n != 1 {
		t.Fatalf("%d sessions started", n)
	}
	close(ex.release)
	deadline := time.Now().Add(5 * time.Second)
	for ex.runs.Load() < 2 && time.Now().Before(deadline) {
		fetch()
		time.Sleep(5 * time.Millisecond)
	}
	if n := ex.runs.Load(); n != 2 {
		t.Errorf("%d sessions after the first ended, want a second", n)
	}
}

// exitingExec's commands end at once, as when sshd is restarted.
type exitingExec struct {
	executor.Executor
	runs atomic.Int32
}

func (e *exitingExec) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	e.runs.Add(1)
	return executor.Result{}, errors.New("connection lost")
}

func TestProcSessionThatEnds(t *testing.T) {
	ex := &exitingExec{Executor: executor.NewLocal("x")}
	p, _, _ := newProcSource(t, ex)
	for i := 1; i <= 2; i++ {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := p.fetch(ctx)
		done()
		if err == nil || !strings.Contains(err.Error(), "/proc session ended: connection lost") {
			t.Fatalf("fetch %d: %v", i, err)
		}
		if n := ex.runs.Load(); n != int32(i) {
			t.Fatalf("after fetch %d: %d sessions", i, n)
		}
	}
}

func TestSampleSplitter(t *testing.T) {
	samples := make(chan string, 1)
	w := &sampleSplitter{samples: samples}
	// Output arrives in arbitrary chunks.
	for _, chunk := range []string{"@stat\ncpu 1", " 2 3 4 5 6\n@e", "nd\n@stat\ncpu 7 8 9 10 11 12\n@end", "\n"} {
		if _, err := w.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(chunk, "nd") {
			if got := <-samples; got != "@stat\ncpu 1 2 3 4 5 6\n" {
				t.Fatalf("first sample %q", got)
			}
		}
	}
	if got := <-samples; got != "@stat\ncpu 7 8 9 10 11 12\n" {
		t.Fatalf("second sample %q", got)
	}
	if w.buf.Len() != 0 {
		t.Errorf("%d bytes left over", w.buf.Len())
	}
	if _, err := w.Write([]byte(strings.Repeat("x", maxSample+1))); err == nil {
		t.Error("unbounded sample accepted")
	}
}

// A server that does not say where its pid file is (yet): the session
// samples the host without it, then, pidRetry samples later, is replaced
// by one that asks again and follows the server.
func TestProcSessionRetriesThePidFile(t *testing.T) {
	ex := &countingExec{Executor: executor.NewLocal("control")}
	p, _, _ := newProcSource(t, ex)
	pf := t.TempDir() + "/server.pid"
	if err := os.WriteFile(pf, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var asked atomic.Int32
	p.pidFile = func(context.Context) (string, error) {
		if asked.Add(1) == 1 {
			return "", errors.New("server not answering")
		}
		return pf, nil
	}
	p.proc.picked = true
	var withServer bool
	for i := 0; i < pidRetry+10 && !withServer; i++ {
		ctx, done := context.WithTimeout(context.Background(), 5*time.Second)
		out, err := p.fetch(ctx)
		done()
		if err != nil {
			time.Sleep(50 * time.Millisecond) // the replaced session ending
			continue
		}
		s, err := parseProc(out)
		if err != nil {
			t.Fatal(err)
		}
		withServer = s.srv.ok && s.srv.pid == int64(os.Getpid())
		if withServer && i < pidRetry {
			t.Errorf("sample %d has the server before the session was replaced", i)
		}
	}
	if !withServer || asked.Load() != 2 || ex.runs.Load() != 2 {
		t.Errorf("server sampled %v after %d lookups and %d sessions", withServer, asked.Load(), ex.runs.Load())
	}
}
