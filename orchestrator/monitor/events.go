package monitor

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Event kinds written to events.jsonl.
const (
	// KindSemiSyncOff: the master's semi-sync is enabled but its status
	// went OFF (fallen back to asynchronous replication); KindSemiSyncOn:
	// back ON.
	KindSemiSyncOff = "semisync_off"
	KindSemiSyncOn  = "semisync_on"
	// KindStall: master commits, binlog position and semi-sync acks all
	// frozen while the benchmark runs. Its time is when progress was last
	// seen, so it is written later than it happened.
	KindStall = "stall"
	// KindStallLimit: a stall lasted Config.StallLimit; OnStall is called.
	KindStallLimit = "stall_limit"
	// KindStallCleared: the master makes progress again (or the load stopped).
	KindStallCleared = "stall_cleared"
	// KindHostError: a host's mysql or os sampling started failing;
	// KindHostRecovered: it answers again. The other hosts go on.
	KindHostError     = "host_error"
	KindHostRecovered = "host_recovered"
	// KindCounterReset: a counter went backwards (server restart, FLUSH
	// STATUS, RESET MASTER): that row's affected rates are left empty.
	KindCounterReset = "counter_reset"
	// KindTicksSkipped: a sample took longer than the interval; the ticks
	// it overran were skipped rather than queued.
	KindTicksSkipped = "ticks_skipped"
	// KindReplicaStopped: a slave's IO or SQL thread is not running (or it
	// has no replication); KindReplicaRunning: both run again.
	KindReplicaStopped = "replica_stopped"
	KindReplicaRunning = "replica_running"
	// KindMonitorStart and KindMonitorStop bracket the series (no host).
	KindMonitorStart = "monitor_start"
	KindMonitorStop  = "monitor_stop"
	// KindLoadStart and KindLoadEnd (no host) bracket the measured load,
	// as the runner reports it (SetLoadActive; LoadStartsAt for clients
	// of several load boxes, released together at an instant fixed
	// seconds ahead, which their load_start is): every figure of the run
	// comes from inside it.
	KindLoadStart = "load_start"
	KindLoadEnd   = "load_end"
)

// Event is one line of events.jsonl: the monitors' events, the run's
// markers (load_start ...) and the command's steps (step_begin, step_end
// with took_s, note: package step's stream, written by the runner). The
// one type that writes and reads the file (schema.Event).
type Event struct {
	T      time.Time
	Host   string
	Kind   string
	Detail string
	// TookS is a step_end's wall seconds.
	TookS float64 `json:"took_s,omitempty"`
}

// timeLayout is RFC 3339 in UTC with milliseconds, in the CSVs and events.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON writes {"t", "host", "kind", "detail"[, "took_s"]}, t as
// timeLayout.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		T      string  `json:"t"`
		Host   string  `json:"host"`
		Kind   string  `json:"kind"`
		Detail string  `json:"detail"`
		TookS  float64 `json:"took_s,omitempty"`
	}{e.T.UTC().Format(timeLayout), e.Host, e.Kind, e.Detail, e.TookS})
}

// EventLog appends events to events.jsonl, one write call per event and
// no buffering, so that a crash loses none. Safe for concurrent use.
type EventLog struct {
	mu     sync.Mutex
	f      *os.File
	closed bool
	count  int
	err    error
}

// OpenEventLog opens dir's events.jsonl for appending.
func OpenEventLog(dir string) (*EventLog, error) {
	return openEventLog(filepath.Join(dir, "events.jsonl"))
}

// Write appends e.
func (l *EventLog) Write(e Event) { l.write(e) }

// Close closes the file, returning the first error seen.
func (l *EventLog) Close() error {
	_, err := l.close()
	return err
}

func openEventLog(path string) (*EventLog, error) {
	// Append: the runner may have written events before the monitors start.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("monitor: %w", err)
	}
	return &EventLog{f: f}, nil
}

func (l *EventLog) write(e Event) {
	b, err := json.Marshal(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.count++
	if l.err != nil {
		return
	}
	if err == nil {
		_, err = l.f.Write(append(b, '\n'))
	}
	if err != nil {
		l.err = fmt.Errorf("monitor: write %s: %w", l.f.Name(), err)
	}
}

// close closes the file, returning the first error seen.
func (l *EventLog) close() (count int, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.count, l.err
	}
	if cerr := l.f.Close(); cerr != nil && l.err == nil {
		l.err = fmt.Errorf("monitor: close %s: %w", l.f.Name(), cerr)
	}
	l.closed = true
	return l.count, l.err
}
