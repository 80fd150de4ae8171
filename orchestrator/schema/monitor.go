package schema

import (
	"strings"
	"time"
)

// Summary is what the monitors saw over a run, for results.json.
type Summary struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Samples counts rows written, all files together.
	Samples int `json:"samples"`
	// SkippedTicks counts ticks not sampled because a sample overran.
	SkippedTicks int `json:"skipped_ticks"`
	Events       int `json:"events"`
	// SemiSync is the master's semi-sync health; nil without a master.
	SemiSync *SemiSyncHealth `json:"semi_sync,omitempty"`
	Lag      []SlaveLag      `json:"lag,omitempty"`
	Stalls   []Stall         `json:"stalls"`
	// StallsNotListed counts stalls beyond the first 100 (listed ones
	// are enough to diagnose; memory stays bounded).
	StallsNotListed int           `json:"stalls_not_listed,omitempty"`
	Hosts           []HostSummary `json:"hosts"`
	// Stacks are the stack samples taken in the profiling tail, after the
	// monitors stopped (the runner adds them; top stacks only: stacks/ in
	// the run directory holds them whole, and the raw output).
	Stacks []*StackProfile `json:"stacks,omitempty"`
}

// SemiSyncHealth sums the master's semi-sync counters over the run.
type SemiSyncHealth struct {
	// Enabled: the master had semi-sync enabled at some sample.
	Enabled bool `json:"enabled"`
	// AsyncFallbackSeconds is the time the status was OFF while enabled
	// (to the sampling interval's resolution); FallbackEvents counts the
	// ON -> OFF transitions (a master OFF from the start counts one).
	AsyncFallbackSeconds float64 `json:"async_fallback_s"`
	FallbackEvents       int     `json:"fallback_events"`
	// YesTx and NoTx are commits acknowledged by a slave / committed
	// without an acknowledgement during the run.
	YesTx int64 `json:"yes_tx"`
	NoTx  int64 `json:"no_tx"`
	// AvgWaitUs is the average time a commit waited for its ack over the
	// run (nil when none waited).
	AvgWaitUs *float64 `json:"avg_wait_us"`
	// MinClients is the fewest semi-sync slaves connected at a sample.
	MinClients *int64 `json:"min_clients"`
}

// SlaveLag is a slave's worst replication lag seen. Trust Transactions:
// Seconds_Behind_Master reads 0 on a slave whose link is down. It is the
// monitor's live figure, against the master's latest sample (for a slave
// read before the master in a tick, the previous tick's): the report reads
// the maximum again from gtid_pos, at each sample's instant.
type SlaveLag struct {
	Host            string `json:"host"`
	MaxSeconds      *int64 `json:"max_seconds"`
	MaxTransactions *int64 `json:"max_transactions"`
}

// Stall is a time the master made no progress while the benchmark ran.
type Stall struct {
	// Start is when progress was last seen; End when it was seen again,
	// or when the benchmark or the monitor stopped first (Cleared false).
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Seconds float64   `json:"seconds"`
	Cleared bool      `json:"cleared"`
	// LimitReached: it lasted Config.StallLimit and OnStall was called.
	LimitReached bool   `json:"limit_reached"`
	Diagnosis    string `json:"diagnosis"`
}

// HostSummary is one host's sampling record.
type HostSummary struct {
	Host         string `json:"host"`
	Role         string `json:"role"`
	MySQLSamples int    `json:"mysql_samples"`
	OSSamples    int    `json:"os_samples"`
	// Errors counts failed samples; LastError is the error that began
	// the latest outage.
	Errors        int    `json:"errors"`
	LastError     string `json:"last_error,omitempty"`
	SkippedTicks  int    `json:"skipped_ticks"`
	CounterResets int    `json:"counter_resets"`
}

// StacksMode says how (and whether) stacks are sampled.
type StacksMode string

// StackFrame is one stack frame: the function's name without its parameters,
// and whether it lies in a library (libc, the kernel) rather than the
// server itself.
type StackFrame struct {
	Func string `json:"func"`
	Lib  bool   `json:"lib,omitempty"`
}

// Stack is one distinct stack, innermost frame first, and how many
// sampled threads (gdb) or samples (perf) had it.
type Stack struct {
	Frames []StackFrame `json:"frames"`
	Count  int          `json:"count"`
}

// Key is the stack as pt-pmp prints it: function names, innermost first,
// comma-separated.
func (s Stack) Key() string { return key(s.Frames) }

func key(fr []StackFrame) string {
	names := make([]string, len(fr))
	for i, f := range fr {
		names[i] = f.Func
	}
	return strings.Join(names, ",")
}

// StackProfile is one host's stack samples over one window, aggregated.
type StackProfile struct {
	Host  string     `json:"host"`
	Role  string     `json:"role"`
	Mode  StacksMode `json:"mode"`
	Start time.Time  `json:"start"`
	End   time.Time  `json:"end"`
	// Snapshots is how many times the stacks were taken; Samples the
	// stacks seen in all (threads x snapshots for gdb).
	Snapshots int `json:"snapshots"`
	Samples   int `json:"samples"`
	// Stacks are the distinct stacks, most frequent first.
	Stacks []Stack `json:"stacks"`
	// PausesMs: each gdb snapshot's duration, the most the server was
	// stopped by it; MaxPauseMs the longest (nil for perf, which does
	// not stop the server).
	PausesMs   []float64 `json:"pauses_ms,omitempty"`
	MaxPauseMs *float64  `json:"max_pause_ms,omitempty"`
	Errors     []string  `json:"errors,omitempty"`
}

// Share is the stack's share of the profile's samples.
func (p *StackProfile) Share(s Stack) float64 {
	if p.Samples == 0 {
		return 0
	}
	return float64(s.Count) / float64(p.Samples)
}

// Top is the n most frequent stacks.
func (p *StackProfile) Top(n int) []Stack {
	return p.Stacks[:min(n, len(p.Stacks))]
}
