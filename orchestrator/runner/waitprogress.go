package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/server"
)

// WaitEvery is how often a long wait (replicas catching up, prepare, the
// consistency check, a restart) says where it is: a person watching the
// console should never face a silent stretch longer than this.
const WaitEvery = 5 * time.Second

// Heartbeat calls say with the time elapsed since it started, every
// `every`, until the returned stop is called; stop waits for a say in
// progress, so nothing is printed after it returns. A wait shorter than
// `every` prints nothing.
func Heartbeat(ctx context.Context, every time.Duration, say func(elapsed time.Duration)) (stop func()) {
	start := time.Now()
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				say(time.Since(start).Round(time.Second))
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(quit) })
		wg.Wait()
	}
}

// waitCaughtUp is dataset.WaitCaughtUpSince with the lag shown shrinking
// every WaitEvery ("run: replicas catching up: slave1 lag 1234 tx, slave2
// lag 0 tx; 5s"), then how long each slave took from loadEnd. what names
// the wait in those lines; only the run's own ("") says how long it took.
func (r *run) waitCaughtUp(ctx context.Context, master *server.Node, slaves []*server.Node, loadEnd time.Time, what string) (*dataset.CatchUp, error) {
	label := what
	if label == "" {
		label = "replicas catching up"
	}
	stop := Heartbeat(ctx, WaitEvery, func(el time.Duration) {
		qctx, cancel := context.WithTimeout(ctx, WaitEvery)
		defer cancel()
		st, err := replication.GetStatus(qctx, master, slaves)
		r.logf("run: %s: %s; %s", label, lagLine(st, err), el)
	})
	cu, err := dataset.WaitCaughtUpSince(ctx, master, slaves, loadEnd, catchUpTimeout)
	stop()
	if cu != nil && err == nil && len(cu.Slaves) > 0 && what == "" {
		var parts []string
		for _, s := range cu.Slaves {
			took := s.Waited
			if s.CatchUpNs != nil {
				took = *s.CatchUpNs
			}
			parts = append(parts, fmt.Sprintf("%s %s", s.Host, took.Round(time.Millisecond)))
		}
		r.logf("run: replicas caught up (%s after the load's end)", strings.Join(parts, ", "))
	}
	return cu, err
}

// lagLine is "slave1 lag 1234 tx, slave2 lag 0 tx" from a status read;
// what could not be read says so.
func lagLine(st *replication.Status, err error) string {
	if st == nil {
		return fmt.Sprintf("lag not readable (%v)", err)
	}
	var parts []string
	for _, s := range st.Slaves {
		switch {
		case s.Error != "":
			parts = append(parts, s.Name+" not readable")
		case s.Lag != nil && s.Lag.Transactions != nil:
			parts = append(parts, fmt.Sprintf("%s lag %d tx", s.Name, *s.Lag.Transactions))
		case s.Lag != nil && s.Lag.Seconds != nil:
			parts = append(parts, fmt.Sprintf("%s lag %d s", s.Name, *s.Lag.Seconds))
		default:
			parts = append(parts, s.Name+" lag unknown")
		}
	}
	if len(parts) == 0 {
		return "no slave"
	}
	return strings.Join(parts, ", ")
}

// sayStill is a heartbeat for a step without figures of its own: "run:
// checking consistency: still at it, 10s".
func (r *run) sayStill(ctx context.Context, what string) (stop func()) {
	return Heartbeat(ctx, WaitEvery, func(el time.Duration) {
		r.logf("run: %s: still at it, %s", what, el)
	})
}

// sayPhase is the heartbeat of a prepare or cleanup: the elapsed time and
// the last line the client wrote ("Inserting 500000 records into
// 'sbtest3'"), read from the output file it streams into.
func (r *run) sayPhase(ctx context.Context, phase, localPart string) (stop func()) {
	return Heartbeat(ctx, WaitEvery, func(el time.Duration) {
		line := ""
		if p, err := r.dir.Abs(localPart); err == nil {
			line = lastLine(p)
		}
		if line != "" {
			line = ": " + rundir.Redact(line, r.secrets...)
		}
		r.logf("run: %s: %s%s", phase, el, line)
	})
}

// lastLine is the last non-empty line of the file at p ("" when none), read
// from its last 4 KiB.
func lastLine(p string) string {
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(0, st.Size()-4096)
	buf := make([]byte, st.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := bytes.Split(bytes.TrimRight(buf[:n], "\r\n "), []byte("\n"))
	last := strings.TrimSpace(string(lines[len(lines)-1]))
	if len(last) > 120 {
		last = last[:120] + "..."
	}
	return last
}
