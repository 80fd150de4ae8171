package schema

import (
	"encoding/json"
	"time"
)

// The kinds of the command's steps in events.jsonl (package step's
// stream): a step began or ended on a host (host "" for the command's own
// phases: up, connect, snapshot, prepare, run, checks, profile), with
// took_s on its end, or a message about a host.
const (
	KindStepBegin = "step_begin"
	KindStepEnd   = "step_end"
	KindNote      = "note"
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

// TimeLayout is RFC 3339 in UTC with milliseconds, in the CSVs and events.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON writes {"t", "host", "kind", "detail"[, "took_s"]}, t as
// TimeLayout.
func (e Event) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		T      string  `json:"t"`
		Host   string  `json:"host"`
		Kind   string  `json:"kind"`
		Detail string  `json:"detail"`
		TookS  float64 `json:"took_s,omitempty"`
	}{e.T.UTC().Format(TimeLayout), e.Host, e.Kind, e.Detail, e.TookS})
}
