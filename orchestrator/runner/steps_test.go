package runner

import (
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"
)

// lockedBuffer is an io.Writer the Steps' timers may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

// A quick step is one line, when it ends; a slow one says it began; a
// message is printed at once; a start that never ends is printed
// by Flush; -v prints starts.
func TestStepsOneLinePerStep(t *testing.T) {
	var out lockedBuffer
	s := NewSteps(&out, "up", false)
	s.slow = 50 * time.Millisecond
	s.Consume(step.Event{Host: "master", Step: "accounts orch@localhost", Kind: step.Noted})
	s.Consume(step.Event{Host: "master", Step: "check config", Kind: step.Began})
	s.Consume(step.Event{Host: "master", Step: "check config", Kind: step.Ended, Took: 27 * time.Millisecond})
	s.Consume(step.Event{Host: "slave1", Step: "restart", Kind: step.Began})
	time.Sleep(120 * time.Millisecond) // past slow: the start is printed
	s.Consume(step.Event{Host: "slave1", Step: "restart", Kind: step.Ended, Took: 1612 * time.Millisecond})
	s.Consume(step.Event{Host: "slave2", Step: "write /etc/mysql/conf.d/99-orch.cnf", Kind: step.Began}) // cut short: no end
	s.Flush()
	got := out.lines()
	want := []string{`^up \S+: master   accounts orch@localhost$`, `^up \S+: master   check config \(27ms\)$`, `^up \S+: slave1   restart$`,
		`^up \S+: slave1   restart \(1\.61s\)$`, `^up \S+: slave2   write /etc/mysql/conf\.d/99-orch\.cnf$`}
	if len(got) != len(want) {
		t.Fatalf("lines:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !regexp.MustCompile(w).MatchString(got[i]) {
			t.Errorf("line %d %q, want %s", i, got[i], w)
		}
	}
	var v lockedBuffer
	sv := NewSteps(&v, "down", true)
	sv.Consume(step.Event{Host: "master", Step: "restore config", Kind: step.Began})
	sv.Consume(step.Event{Host: "master", Step: "restore config", Kind: step.Ended, Took: time.Second})
	sv.Flush()
	if got := v.lines(); len(got) != 2 || !strings.HasSuffix(got[0], "master   restore config") {
		t.Errorf("verbose: %q", got)
	}
}
