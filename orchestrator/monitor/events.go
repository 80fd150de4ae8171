package monitor

import (
	"github.com/orch-bench/orch/orchestrator/schema"

	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// events.jsonl's line and kinds are run-directory data (orchestrator/schema).
type Event = schema.Event

// timeLayout is RFC 3339 in UTC with milliseconds, in the CSVs and events.
const timeLayout = schema.TimeLayout

// Event kinds written to events.jsonl (schema's, named here for the
// monitors that write them).
const (
	KindSemiSyncOff    = schema.KindSemiSyncOff
	KindSemiSyncOn     = schema.KindSemiSyncOn
	KindStall          = schema.KindStall
	KindStallLimit     = schema.KindStallLimit
	KindStallCleared   = schema.KindStallCleared
	KindHostError      = schema.KindHostError
	KindHostRecovered  = schema.KindHostRecovered
	KindCounterReset   = schema.KindCounterReset
	KindTicksSkipped   = schema.KindTicksSkipped
	KindReplicaStopped = schema.KindReplicaStopped
	KindReplicaRunning = schema.KindReplicaRunning
	KindMonitorStart   = schema.KindMonitorStart
	KindMonitorStop    = schema.KindMonitorStop
	KindLoadStart      = schema.KindLoadStart
	KindLoadEnd        = schema.KindLoadEnd
)

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
