// Package schema is the run directory as plain data: the on-disk types of
// manifest.json, results.json, matrix.json, events.jsonl and why.json, one
// Go type per file, so that a key is added, renamed or dropped in one
// place. The writers (runner, monitor, matrix, dataset, rundir) and the
// readers (report, recheck) use these types; schema imports no orch
// package (schema_test.go holds that), so a reader of a run directory
// needs nothing that reaches a host.
//
// Every new file carries SchemaVersion as schema_version; a file
// without it is version 0 (the format before the key existed) and reads
// through the same types. A file rewritten by a later orch (orch collect)
// keeps the version it was read with: its keys are those of its version.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Results is results.json: the parsed benchmark plus everything the run
// proved about the cluster around it.
type Results struct {
	// SchemaVersion is SchemaVersion in a file this orch made
	// (NewResults), 0 in one made before the key existed.
	SchemaVersion int    `json:"schema_version,omitempty"`
	Workload      string `json:"workload"`
	Tool          string `json:"tool"`
	Engine        string `json:"engine,omitempty"`
	// Benchmark is the client's parsed output (orch parse's JSON).
	Benchmark   Benchmark              `json:"benchmark"`
	ParseError  string                 `json:"parse_error,omitempty"`
	CatchUp     *CatchUp               `json:"catch_up,omitempty"`
	Consistency *ConsistencyReport     `json:"consistency,omitempty"`
	Sizes       map[string]*SizeReport `json:"sizes,omitempty"`
	Monitor     *Summary               `json:"monitor,omitempty"`
	// Instruments says what watched the run (runner/profile.go).
	Instruments *Instruments `json:"instruments,omitempty"`
	// Checks lists every failed check (consistency, catch-up): a run whose
	// replicas disagree with the master is a failed run.
	Checks []string `json:"failed_checks,omitempty"`
	// Phases is each phase's wall time in seconds: up (when the run did
	// one), connect, snapshot, prepare, run (monitors and the benchmark),
	// checks (catch-up, consistency, footprint), profile (the profiling
	// tail, after the run: see runner/profile.go).
	Phases map[string]float64 `json:"phases_s,omitempty"`
}

// NewResults is an empty results.json of this orch's schema version.
func NewResults() *Results {
	return &Results{SchemaVersion: SchemaVersion}
}

// Instruments says what watched a run (results.json "instruments"), so
// the report can state it.
type Instruments struct {
	// Monitors: the per-second series and the stall watchdog ran
	// (--monitor=off leaves them out, to measure orch's own cost).
	Monitors bool `json:"monitors"`
	// Stacks is the sampler used: off, perf or gdb (auto resolved).
	Stacks string `json:"stacks"`
	// StacksIn is where the stacks were taken: "tail" (after the measured
	// load); empty when none were.
	StacksIn string `json:"stacks_in,omitempty"`
}

// Benchmark is results.json's benchmark. The runner sets Result (a
// *bench.Sysbench, bench.Mysqlslap, *bench.DBInsert or a merge of several
// clients); read from a file it holds the JSON as written (JSON), which
// the reader decodes by tool, so that a benchmark it cannot read leaves a
// run without figures instead of failing the whole file.
type Benchmark struct {
	Result any
	raw    json.RawMessage
}

// JSON is the benchmark as results.json holds it: Result marshalled, or
// the JSON read; nil when there is none.
func (b Benchmark) JSON() json.RawMessage {
	if b.Result != nil {
		out, err := json.Marshal(b.Result)
		if err != nil {
			return nil
		}
		return out
	}
	return b.raw
}

// MarshalJSON writes JSON(), or null.
func (b Benchmark) MarshalJSON() ([]byte, error) {
	if b.Result != nil {
		return json.Marshal(b.Result)
	}
	if len(b.raw) == 0 {
		return []byte("null"), nil
	}
	return b.raw, nil
}

// UnmarshalJSON keeps the benchmark's JSON as written, compacted (null is
// none).
func (b *Benchmark) UnmarshalJSON(data []byte) error {
	*b = Benchmark{}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, data); err != nil {
		return err
	}
	b.raw = c.Bytes()
	return nil
}

// ReadResults reads a results.json; a missing file is not an error
// (false): a run still going, or one that failed before the benchmark.
func ReadResults(path string) (*Results, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return &r, true, nil
}
