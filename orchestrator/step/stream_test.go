package step

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStreamEveryConsumerSameOrder: hosts worked on at once emit
// concurrently; every consumer sees every event, in one order, and a late
// consumer's replay is that order too, nothing lost or repeated between
// the replay and what follows.
func TestStreamEveryConsumerSameOrder(t *testing.T) {
	s := &Stream{}
	var a, b []string
	s.Subscribe(func(e Event) { a = append(a, e.Host+" "+e.Step) })
	s.Subscribe(func(e Event) { b = append(b, e.Host+" "+e.Step) })
	var late []string
	var wg sync.WaitGroup
	for h := 0; h < 4; h++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				s.Begin(fmt.Sprintf("db%d", h), fmt.Sprintf("step%d", i))
				if h == 0 && i == 25 {
					go s.Replay(func(e Event) { late = append(late, e.Host+" "+e.Step) })
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(10 * time.Millisecond) // the replaying subscriber's goroutine
	s.Emit(Event{Host: "db0", Step: "last", Kind: Noted})
	if len(a) != 201 || strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("consumers disagree or lost events: %d and %d events", len(a), len(b))
	}
	if strings.Join(late, ",") != strings.Join(a, ",") {
		t.Errorf("the replay and what followed (%d events) are not the stream (%d)", len(late), len(a))
	}
}

// TestStreamCancelAndNil: a cancelled consumer hears nothing more; a nil
// stream takes events and subscriptions and does nothing.
func TestStreamCancelAndNil(t *testing.T) {
	s := &Stream{}
	n := 0
	cancel := s.Subscribe(func(Event) { n++ })
	s.Note("master", "one")
	cancel()
	s.Note("master", "two")
	if n != 1 {
		t.Errorf("heard %d events, want 1", n)
	}
	var none *Stream
	none.Begin("master", "x")
	none.Subscribe(func(Event) { t.Error("a nil stream delivered") })()
}

// TestTrackerFollowsSteps: the tracker lists the hosts still mid-step, the
// way a second Ctrl-C reports them: a step is the host's until it ends or
// another begins; the end of an earlier step, or a message, changes
// nothing.
func TestTrackerFollowsSteps(t *testing.T) {
	s := &Stream{}
	tr := &Tracker{}
	s.Subscribe(tr.Consume)
	s.Begin("db2", "restart")
	s.Begin("db1", "write /etc/mysql/conf.d/99-orch.cnf")
	s.Begin("db1", "roll back")
	s.End("db1", "write /etc/mysql/conf.d/99-orch.cnf", time.Second)
	s.Begin("db3", "verify")
	s.Note("db2", "started the server, which was down")
	s.End("db3", "verify", time.Second)
	s.End("db4", "connect", time.Millisecond)
	if got := strings.Join(tr.Unfinished(), "; "); got != "db1: roll back; db2: restart" {
		t.Errorf("unfinished %q", got)
	}
}
