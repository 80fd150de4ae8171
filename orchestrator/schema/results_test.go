package schema

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// A results.json written through Results reads back through it: the
// version, the benchmark as the JSON its result marshals to, and the
// producers' sections.
func TestResultsRoundTrip(t *testing.T) {
	d, err := rundir.Create(t.TempDir(), "r", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := bench.ParseAuto("run.txt", strings.NewReader("Threads started!\n"))
	res := NewResults()
	res.Workload, res.Tool = "w", "sysbench"
	res.Benchmark = Benchmark{Result: out}
	res.Sizes = map[string]*dataset.SizeReport{"master": {DataBytes: 7, BinlogBytes: 9}}
	if err := WriteResults(d, res); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadResults(filepath.Join(d.Path(), rundir.FileResults))
	if err != nil || !ok {
		t.Fatalf("read: %v %v", ok, err)
	}
	want, _ := json.Marshal(out)
	if got.SchemaVersion != rundir.SchemaVersion || got.Workload != "w" || got.Benchmark.Result != nil ||
		string(got.Benchmark.JSON()) != string(want) || got.Sizes["master"].BinlogBytes != 9 {
		t.Fatalf("read back %+v, benchmark %s", got, got.Benchmark.JSON())
	}
	// Written again, the read benchmark stays as it was.
	again, _ := json.Marshal(got)
	first, _ := json.Marshal(res)
	if string(again) != string(first) {
		t.Fatalf("rewritten:\n%s\nwas:\n%s", again, first)
	}
}

// A file without schema_version is version 0 and reads; a null or missing
// benchmark is none; a missing file is no error.
func TestResultsVersion0(t *testing.T) {
	var r Results
	if err := json.Unmarshal([]byte(`{"workload":"w","tool":"sysbench","benchmark":null,"sizes":{"master":{"data_bytes":3}}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != 0 || r.Benchmark.JSON() != nil || r.Sizes["master"].DataBytes != 3 {
		t.Fatalf("%+v", r)
	}
	b, _ := json.Marshal(r)
	if strings.Contains(string(b), "schema_version") || !strings.Contains(string(b), `"benchmark":null`) {
		t.Fatalf("version 0 written back as %s", b)
	}
	if _, ok, err := ReadResults(filepath.Join(t.TempDir(), "results.json")); ok || err != nil {
		t.Fatalf("missing file: %v %v", ok, err)
	}
}
