package preflight

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// How Paths waits out a port that refuses (a server restarting) or a
// route not there yet (a link just back), and what it does not wait for.
// slave1 dials through a toolHost whose dial hook plays the moment.

// existingLab is a lab whose server is never rebound (so a refused port
// is not explained away by ss), with a dial hook on slave1.
func existingLab(t *testing.T, port int, hook func(n int32, addr string) error) (*pathLab, *toolHost) {
	l := newPathLab(t, "127.0.0.1", port)
	l.inv.Existing = true
	s1 := l.ex["slave1"].(*toolHost)
	s1.dial = hook
	return l, s1
}

func retried(t *testing.T, l *pathLab, ctx context.Context) []Path {
	return Paths(ctx, connect(t, l.inv, l.inv.Hosts, l.ex))
}

// TestPathsWaitsForAStartingServer: the master's port refuses slave1's
// first connect and a server listens there just after: Paths tries
// again and finds every path working.
func TestPathsWaitsForAStartingServer(t *testing.T) {
	var srv atomic.Pointer[wireServer]
	l, s1 := existingLab(t, closedPort(t), func(n int32, addr string) error {
		if n != 1 {
			return nil
		}
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return errors.New("the port was not closed")
		}
		if ln, lerr := net.Listen("tcp", addr); lerr == nil {
			srv.Store(serveWire(t, ln, wireGreets))
		}
		return err // the real refusal
	})
	ps := retried(t, l, context.Background())
	if srv.Load() == nil {
		t.Fatal("the server could not start on the refused port")
	}
	for _, from := range []string{"slave1", "lb"} {
		if p := pathFrom(t, ps, from); !p.OK {
			t.Errorf("%s: %v", from, p)
		}
	}
	if n := s1.dials.Load(); n != 2 {
		t.Errorf("slave1 dialled %d times: want the refused connect and one more", n)
	}
}

// TestPathsWaitsForARoute: the tunnel says no route to the master (its
// neighbour entry not resolved again yet), then connects.
func TestPathsWaitsForARoute(t *testing.T) {
	srv := startWire(t, "127.0.0.1:0", wireGreets)
	l, s1 := existingLab(t, srv.Port, func(n int32, addr string) error {
		if n == 1 {
			return errors.New(`slave1 127.0.0.3: tunnel to tcp ` + addr + `: ssh: rejected: connect failed ("No route to host")`)
		}
		return nil
	})
	if p := pathFrom(t, retried(t, l, context.Background()), "slave1"); !p.OK {
		t.Errorf("slave1: %v", p)
	}
	if n := s1.dials.Load(); n != 2 {
		t.Errorf("slave1 dialled %d times, want 2", n)
	}
}

// A server that answers with an error is up: trying again would only
// wait.
func TestPathsDoesNotRetryAnAnswer(t *testing.T) {
	srv := startWire(t, "127.0.0.1:0", wireTooMany)
	l, s1 := existingLab(t, srv.Port, nil)
	p := pathFrom(t, retried(t, l, context.Background()), "slave1")
	if p.OK || !strings.Contains(p.Detail, "Too many connections") {
		t.Errorf("slave1: %v", p)
	}
	if n := s1.dials.Load(); n != 1 {
		t.Errorf("slave1 dialled %d times, want 1", n)
	}
}

// A cancelled command stops waiting and keeps the failure.
func TestPathsStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	l, s1 := existingLab(t, closedPort(t), func(n int32, addr string) error {
		_, err := net.Dial("tcp", addr) // refused
		cancel()
		return err
	})
	p := pathFrom(t, retried(t, l, ctx), "slave1")
	if p.OK || !strings.Contains(p.Detail, "connection refused") {
		t.Errorf("slave1: %v", p)
	}
	if n := s1.dials.Load(); n != 1 {
		t.Errorf("slave1 dialled %d times after the cancel, want 1", n)
	}
}

// A port that keeps refusing is broken after a few tries, not waited on
// forever.
func TestPathsGivesUp(t *testing.T) {
	l, s1 := existingLab(t, closedPort(t), nil)
	p := pathFrom(t, retried(t, l, context.Background()), "slave1")
	if p.OK || !strings.Contains(p.Detail, "connection refused") {
		t.Errorf("slave1: %v", p)
	}
	if n := s1.dials.Load(); n < 2 {
		t.Errorf("slave1 dialled %d times: a refused port is tried again", n)
	}
}
