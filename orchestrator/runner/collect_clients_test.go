package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// A run from two load boxes that orch did not see to its end: once both
// outputs are in, collect merges them aligned on the recorded start (the
// second client 1 s later: its lines land one slot later), keeps the other
// keys of results.json, and a second collect changes nothing.
func TestReparseClientsMergesByRecordedStart(t *testing.T) {
	d, err := rundir.Create(t.TempDir(), "two", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 5, 0, time.UTC)
	m := &rundir.Manifest{Status: rundir.StatusInterrupted, Workload: json.RawMessage(`{"name":"w","tool":"sysbench"}`),
		Remote:        &rundir.Remote{Host: "lb1", Dir: "/home/b/x", StartAt: at},
		ClientRemotes: []*rundir.Remote{{Host: "lb2", Dir: "/home/b/y", StartAt: at.Add(time.Second)}}}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteJSON(rundir.FileResults, map[string]any{"consistency": map[string]any{"ok": true, "database": "kept"}}); err != nil {
		t.Fatal(err)
	}
	if ok, err := reparseClients(d, m); ok || err != nil {
		t.Fatalf("nothing collected yet: %v, %v", ok, err)
	}
	raw, err := os.ReadFile("testdata/captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"lb1", "lb2"} {
		if err := d.WriteFile(rundir.ClientRun(h), raw); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := reparseClients(d, m); !ok || err != nil {
		t.Fatalf("reparse: %v, %v", ok, err)
	}
	var res struct {
		Consistency struct{ Database string }
		Benchmark   struct {
			TPS       float64 `json:"tps"`
			Intervals []struct {
				T       int64
				TPS     float64
				Clients int
			}
			Clients []struct{ Name string }
		}
	}
	b, _ := os.ReadFile(filepath.Join(d.Path(), rundir.FileResults))
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	type slot struct {
		t       int64
		tps     float64
		clients int
	}
	// The sample's lines: 829.24, 807.95, 766.61 tps at 1, 2, 3 s.
	want := []slot{{1, 829.24, 1}, {2, 807.95 + 829.24, 2}, {3, 766.61 + 807.95, 2}, {4, 766.61, 1}}
	var got []slot
	for _, iv := range res.Benchmark.Intervals {
		got = append(got, slot{iv.T, iv.TPS, iv.Clients})
	}
	if len(got) != len(want) || res.Consistency.Database != "kept" || len(res.Benchmark.Clients) != 2 || res.Benchmark.TPS != 2*801.10 {
		t.Fatalf("results.json: %s", b)
	}
	for i := range want {
		if got[i].t != want[i].t || got[i].clients != want[i].clients || got[i].tps-want[i].tps > 1e-9 || want[i].tps-got[i].tps > 1e-9 {
			t.Errorf("slot %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if _, err := os.Stat(filepath.Join(d.Path(), rundir.BenchmarkRunMerged)); err != nil {
		t.Error(err)
	}
	if ok, err := reparseClients(d, m); ok || err != nil {
		t.Errorf("second collect: %v, %v", ok, err)
	}
}
