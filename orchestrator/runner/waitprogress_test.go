package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/replication"
)

func TestHeartbeatStopsSaying(t *testing.T) {
	var n atomic.Int32
	stop := Heartbeat(context.Background(), 5*time.Millisecond, func(time.Duration) { n.Add(1) })
	for n.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	stop()
	after := n.Load()
	time.Sleep(20 * time.Millisecond)
	if n.Load() != after {
		t.Errorf("said %d more time(s) after stop", n.Load()-after)
	}
	stop() // twice is harmless
}

func TestHeartbeatSilentOnShortWait(t *testing.T) {
	var n atomic.Int32
	stop := Heartbeat(context.Background(), time.Hour, func(time.Duration) { n.Add(1) })
	stop()
	if n.Load() != 0 {
		t.Errorf("a wait shorter than the period said %d line(s)", n.Load())
	}
}

func TestLagLine(t *testing.T) {
	tx := func(v int64) *int64 { return &v }
	st := &replication.Status{Slaves: []replication.HostStatus{
		{Name: "slave1", Lag: &replication.Lag{Transactions: tx(1234)}},
		{Name: "slave2", Lag: &replication.Lag{Seconds: tx(3)}},
		{Name: "slave3", Error: "connection refused"},
		{Name: "slave4"},
	}}
	want := "slave1 lag 1234 tx, slave2 lag 3 s, slave3 not readable, slave4 lag unknown"
	if got := lagLine(st, nil); got != want {
		t.Errorf("lagLine = %q, want %q", got, want)
	}
	if got := lagLine(nil, errors.New("no master")); got != "lag not readable (no master)" {
		t.Errorf("lagLine(nil) = %q", got)
	}
}

func TestLastLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "prepare.txt.part")
	out := "sysbench 1.0.20\n\nCreating table 'sbtest1'...\nInserting 500 records into 'sbtest1'\n\n"
	if err := os.WriteFile(p, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := lastLine(p); got != "Inserting 500 records into 'sbtest1'" {
		t.Errorf("lastLine = %q", got)
	}
	if got := lastLine(p + ".missing"); got != "" {
		t.Errorf("missing file: %q", got)
	}
}
