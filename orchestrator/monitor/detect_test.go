package monitor

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/topology"
)

// stallScript feeds the master a second at a time: progress while busy
// says so, and the watchdog checks after every sample.
type stallScript struct {
	h *harness
	f *fakeServer
	u *hostUnderTest
}

func newStallScript(t *testing.T, cfg Config) *stallScript {
	h := newHarness(t, cfg)
	f := newFakeServer(t, topology.RoleMaster)
	return &stallScript{h: h, f: f, u: h.mysqlHost("master", f)}
}

// run feeds seconds from..to inclusive, committing perSecond each second.
func (s *stallScript) run(from, to int, perSecond uint64) {
	for sec := from; sec <= to; sec++ {
		s.f.second()
		s.f.commit(perSecond)
		s.u.feed(s.f, float64(sec))
		s.h.m.det.check(s.h.at(float64(sec) + 0.5))
	}
}

func (s *stallScript) waitFired(t *testing.T) {
	t.Helper()
	select {
	case <-s.h.fired:
	case <-time.After(5 * time.Second):
		t.Fatal("OnStall not called")
	}
}

// Both slaves cut off with a huge timeout: semi-sync stays ON with 2
// clients, and only frozen commits, binlog and yes_tx show the stall.
func TestStallDetectedFromFrozenProgress(t *testing.T) {
	s := newStallScript(t, Config{StallAfter: 3 * time.Second, StallLimit: 10 * time.Second})
	s.h.m.det.setLoad(true, s.h.at(0))
	s.run(0, 5, 1000)
	s.run(6, 7, 0)
	if evs := eventsOf(s.h.events(), "", KindStall); len(evs) != 0 {
		t.Fatalf("stall after 2.5s frozen: %v", evs)
	}
	s.run(8, 8, 0) // 3.5s since progress at 5
	stall := eventsOf(s.h.events(), "master", KindStall)
	if len(stall) != 1 || stall[0].T != "2026-11-29T12:00:05.000Z" ||
		!strings.Contains(stall[0].Detail, "semi-sync is ON with 2 clients") {
		t.Fatalf("stall events %v", stall)
	}
	s.run(9, 14, 0)
	if len(s.h.stalls) != 0 {
		t.Fatal("OnStall before the limit")
	}
	s.run(15, 20, 0) // the limit passes at 15.5
	s.waitFired(t)
	s.h.mu.Lock()
	fired := s.h.stalls
	s.h.mu.Unlock()
	if len(fired) != 1 || fired[0].Kind != KindStallLimit || !fired[0].T.Equal(s.h.at(15.5)) ||
		!strings.Contains(fired[0].Detail, "10s limit") {
		t.Fatalf("OnStall got %v", fired)
	}
	s.run(21, 22, 500) // links back
	evs := s.h.events()
	if n := len(eventsOf(evs, "master", KindStallLimit)); n != 1 {
		t.Errorf("%d stall_limit events", n)
	}
	cleared := eventsOf(evs, "master", KindStallCleared)
	if len(cleared) != 1 || cleared[0].T != "2026-11-29T12:00:21.000Z" {
		t.Errorf("stall_cleared %v", cleared)
	}
	_, stalls, _ := s.h.m.det.finish(s.h.at(30))
	want := Stall{Start: s.h.at(5), End: s.h.at(21), Seconds: 16, Cleared: true, LimitReached: true}
	if len(stalls) != 1 || stalls[0].Start != want.Start || stalls[0].End != want.End || stalls[0].Seconds != want.Seconds ||
		!stalls[0].Cleared || !stalls[0].LimitReached {
		t.Errorf("stalls %+v, want %+v", stalls, want)
	}
	if len(s.h.stalls) != 1 {
		t.Errorf("OnStall called %d times", len(s.h.stalls))
	}
}

func TestNoStallWithoutLoad(t *testing.T) {
	s := newStallScript(t, Config{StallAfter: 2 * time.Second, StallLimit: 4 * time.Second})
	s.run(0, 20, 0)
	// The load starts: the clock starts then, not at the last commit.
	s.h.m.det.setLoad(true, s.h.at(20.5))
	s.run(21, 21, 0)
	if evs := eventsOf(s.h.events(), "", KindStall); len(evs) != 0 {
		t.Errorf("stall without load: %v", evs)
	}
	s.run(22, 23, 0)
	if evs := eventsOf(s.h.events(), "", KindStall); len(evs) != 1 || evs[0].T != "2026-11-29T12:00:20.500Z" {
		t.Errorf("stall once loaded: %v", evs)
	}
	// The benchmark ends before progress: the stall closes, not cleared.
	s.h.m.det.setLoad(false, s.h.at(24))
	_, stalls, _ := s.h.m.det.finish(s.h.at(30))
	if len(stalls) != 1 || stalls[0].Cleared || stalls[0].End != s.h.at(24) {
		t.Errorf("stalls %+v", stalls)
	}
}

// A read-only benchmark writes nothing: its selects are progress.
func TestReadOnlyLoadIsNoStall(t *testing.T) {
	s := newStallScript(t, Config{StallAfter: 2 * time.Second, StallLimit: 4 * time.Second})
	s.h.m.det.setLoad(true, s.h.at(0))
	for sec := 0; sec <= 10; sec++ {
		s.f.second()
		s.f.add("Com_select", 700)
		s.u.feed(s.f, float64(sec))
		s.h.m.det.check(s.h.at(float64(sec) + 0.5))
	}
	if evs := eventsOf(s.h.events(), "", KindStall); len(evs) != 0 {
		t.Errorf("read-only load taken for a stall: %v", evs)
	}
}

// A master that stops answering is a stall too, diagnosed as such.
func TestStallWhenMasterDoesNotAnswer(t *testing.T) {
	s := newStallScript(t, Config{StallAfter: 2 * time.Second, StallLimit: 4 * time.Second})
	s.h.m.det.setLoad(true, s.h.at(0))
	s.run(0, 2, 100)
	s.h.m.det.sampling("master", "mysql", errors.New("no answer within 5s"))
	s.h.m.det.sampling("slave2", "os", errors.New("no route"))
	s.h.m.det.check(s.h.at(7))
	s.waitFired(t)
	stall := eventsOf(s.h.events(), "master", KindStall)
	if len(stall) != 1 || !strings.Contains(stall[0].Detail, "the master does not answer: no answer within 5s") ||
		!strings.Contains(stall[0].Detail, "not answering: slave2 os") {
		t.Errorf("stall %v", stall)
	}
}

func TestSemiSyncFallback(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleMaster)
	u := h.mysqlHost("master", f)
	for sec := 0; sec <= 9; sec++ {
		// The timeout passes at 2.x: OFF from the sample at 3 to the one
		// at 6, ON again at 7 with a single slave back.
		switch sec {
		case 3:
			f.status, f.clients = "OFF", 0
		case 7:
			f.status, f.clients = "ON", 1
		}
		f.second()
		f.commit(100)
		u.feed(f, float64(sec))
	}
	evs := h.events()
	off, on := eventsOf(evs, "master", KindSemiSyncOff), eventsOf(evs, "master", KindSemiSyncOn)
	if len(off) != 1 || off[0].T != "2026-11-29T12:00:03.000Z" || !strings.Contains(off[0].Detail, "asynchronously (clients 0)") {
		t.Errorf("semisync_off %v", off)
	}
	if len(on) != 1 || on[0].T != "2026-11-29T12:00:07.000Z" || !strings.Contains(on[0].Detail, "after 4.0s") {
		t.Errorf("semisync_on %v", on)
	}
	semi, _, _ := h.m.det.finish(h.at(10))
	if !semi.Enabled || semi.AsyncFallbackSeconds != 4 || semi.FallbackEvents != 1 || semi.NoTx != 400 || semi.YesTx != 500 ||
		semi.AvgWaitUs == nil || *semi.AvgWaitUs != 300 || semi.MinClients == nil || *semi.MinClients != 0 {
		t.Errorf("semi-sync health %+v (avg %v, min clients %v)", semi, semi.AvgWaitUs, semi.MinClients)
	}
	rows := u.rows()
	if rows[4]["semisync_status"] != "OFF" || rows[4]["semisync_no_tx_ps"] != "100.0" || rows[4]["semisync_avg_wait_us"] != "" {
		t.Errorf("row at 4s: %v", rows[4])
	}
}

// Semi-sync not enabled is not a fallback.
func TestSemiSyncDisabledIsNoFallback(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleMaster)
	f.enabled, f.status = false, "OFF"
	u := h.mysqlHost("master", f)
	for sec := 0; sec <= 3; sec++ {
		f.second()
		f.commit(10)
		u.feed(f, float64(sec))
	}
	semi, _, _ := h.m.det.finish(h.at(4))
	if semi.Enabled || semi.AsyncFallbackSeconds != 0 || semi.NoTx != 30 || len(eventsOf(h.events(), "", KindSemiSyncOff)) != 0 {
		t.Errorf("semi-sync health %+v", semi)
	}
}

// The monitor's own SELECT (the GTID position) counts in Com_select: it
// is neither client work in the rows nor progress for the detector.
func TestOwnSelectsAreNotProgress(t *testing.T) {
	s := newStallScript(t, Config{StallAfter: 2 * time.Second, StallLimit: 4 * time.Second})
	s.h.m.det.setLoad(true, s.h.at(0))
	own := uint64(0)
	for sec := 0; sec <= 6; sec++ {
		s.f.second()
		if sec < 3 {
			s.f.add("Com_select", 700) // clients read until 2
		}
		raw := s.f.raw()
		raw.OwnSelects = own
		if err := s.u.proc.handle(raw, s.h.at(float64(sec)), s.u.csv); err != nil {
			t.Fatal(err)
		}
		// The source's SELECT after the status read.
		s.f.add("Com_select", 1)
		own++
		s.h.m.det.check(s.h.at(float64(sec) + 0.5))
	}
	rows := s.u.rows()
	if rows[1]["com_select_ps"] != "700.0" || rows[4]["com_select_ps"] != "0.0" {
		t.Errorf("com_select_ps %q then %q, want 700.0 then 0.0", rows[1]["com_select_ps"], rows[4]["com_select_ps"])
	}
	if evs := eventsOf(s.h.events(), "master", KindStall); len(evs) != 1 || evs[0].T != "2026-11-29T12:00:02.000Z" {
		t.Errorf("stall events %v, want one from 2s", evs)
	}
}
