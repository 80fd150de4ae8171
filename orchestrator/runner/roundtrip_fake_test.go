package runner

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/server"
)

// TestRunDirRoundTrip: a run directory written by the runner (a whole run
// on the fake lab) is read by the report's loader with the figures the
// runner had: the shared types carry every one across, and the files are
// of this orch's schema version.
func TestRunDirRoundTrip(t *testing.T) {
	f := newFakeLab(t)
	w, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "roundtrip",
		Knobs: []server.KV{{Name: "sync_binlog", Value: "1"}}, Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	dir := out.Dir.Path()
	for _, file := range []string{rundir.FileManifest, rundir.FileResults} {
		var v struct {
			Version *int `json:"schema_version"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, file))
		if err := json.Unmarshal(b, &v); err != nil || v.Version == nil || *v.Version != rundir.SchemaVersion {
			t.Errorf("%s: schema_version %v, want %d (%v)", file, v.Version, rundir.SchemaVersion, err)
		}
	}
	res := out.Results
	man, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}

	in, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Runs) != 1 {
		t.Fatalf("report read %d runs", len(in.Runs))
	}
	r := in.Runs[0]

	// What ran and how it ended.
	if r.Workload != res.Workload || r.Tool != res.Tool || r.Engine != res.Engine || r.State != string(man.Status) || r.Error != man.Error {
		t.Errorf("run: workload %q tool %q engine %q state %q error %q; runner: %q %q %q %q %q",
			r.Workload, r.Tool, r.Engine, r.State, r.Error, res.Workload, res.Tool, res.Engine, man.Status, man.Error)
	}
	if r.KnobString() != "sync_binlog=1" {
		t.Errorf("knobs %q", r.KnobString())
	}
	// The benchmark: mysqlslap's blocks, their average times summed.
	slap, ok := res.Benchmark.Result.(bench.Mysqlslap)
	if !ok || len(slap) == 0 {
		t.Fatalf("runner's benchmark %T", res.Benchmark.Result)
	}
	var secs float64
	for _, blk := range slap {
		secs += blk.AvgS.Float64()
	}
	if r.Bench == nil || r.Bench.Tool != "mysqlslap" || !r.Bench.Complete || math.Abs(r.Bench.DurationS-secs) > 1e-9 {
		t.Errorf("benchmark %+v, want mysqlslap over %v s", r.Bench, secs)
	}
	// Health: the fake lab has no CHECKSUM TABLE or catalogue sizes, so
	// the run has no consistency or sizes (checkHealth below writes them).
	h := r.Health
	if res.Consistency != nil || res.Sizes != nil || h.Consistency != "" || !math.IsNaN(h.TableBytes) || !math.IsNaN(h.Rows) {
		t.Errorf("consistency %q table bytes %v rows %v; runner %+v %v", h.Consistency, h.TableBytes, h.Rows, res.Consistency, res.Sizes)
	}
	if res.Monitor == nil {
		t.Fatal("no monitor summary")
	}
	if ss := res.Monitor.SemiSync; ss == nil || ss.Enabled != h.SemiSync || h.SemiSync && (h.FallbackS != ss.AsyncFallbackSeconds || h.NoTx != float64(ss.NoTx)) {
		t.Errorf("semi-sync %v (fallback %v s, %v without ack), runner %+v", h.SemiSync, h.FallbackS, h.NoTx, ss)
	}
	maxTx := math.NaN()
	for _, l := range res.Monitor.Lag {
		if l.MaxTransactions != nil && !(float64(*l.MaxTransactions) <= maxTx) {
			maxTx = float64(*l.MaxTransactions)
		}
	}
	if !(h.MaxLagTx == maxTx || math.IsNaN(h.MaxLagTx) && math.IsNaN(maxTx)) {
		t.Errorf("max lag %v tx, runner %v", h.MaxLagTx, maxTx)
	}
	if h.Stalls != len(res.Monitor.Stalls) || len(h.FailedChecks) != len(res.Checks) {
		t.Errorf("stalls %d failed checks %v; runner %d %v", h.Stalls, h.FailedChecks, len(res.Monitor.Stalls), res.Checks)
	}
	// Each slave's catch-up, from the load's end.
	if res.CatchUp == nil || len(res.CatchUp.Slaves) == 0 {
		t.Fatalf("runner's catch-up %+v", res.CatchUp)
	}
	for _, s := range res.CatchUp.Slaves {
		name, _, _ := strings.Cut(s.Host, " ")
		found := false
		for _, rp := range r.Replicas {
			if rp.Host != name {
				continue
			}
			found = true
			want := s.Waited.Seconds()
			if s.CatchUpNs != nil {
				want = s.CatchUpNs.Seconds()
			}
			if rp.CaughtUp != s.CaughtUp || math.Abs(rp.CatchUpS-want) > 1e-9 {
				t.Errorf("replica %s: caught up %v in %v s; runner %v in %v s", name, rp.CaughtUp, rp.CatchUpS, s.CaughtUp, want)
			}
		}
		if !found {
			t.Errorf("replica %s not read (replicas %+v)", name, r.Replicas)
		}
	}
	// The manifest's evidence and the cluster's shape.
	ev := r.Evidence
	if ev == nil || ev.OrchVersion != "roundtrip" || !ev.Start.Equal(man.Start) || ev.Cluster != man.Inventory.Name || len(ev.Servers) != len(man.Servers) {
		t.Fatalf("evidence %+v; manifest %+v", ev, man)
	}
	for host, v := range man.Servers {
		if ev.Servers[host] != v {
			t.Errorf("server %s: %q, manifest %q", host, ev.Servers[host], v)
		}
	}
	for _, hst := range man.Inventory.Hosts {
		if ev.Roles[hst.Name] != hst.Role {
			t.Errorf("role of %s: %q, manifest %q", hst.Name, ev.Roles[hst.Name], hst.Role)
		}
	}
	if !strings.HasPrefix(r.Topology, "1 master + 2 slaves") {
		t.Errorf("topology %q", r.Topology)
	}
	if res.Instruments == nil || !strings.HasPrefix(r.Instruments, map[bool]string{true: "monitors on, ", false: "monitors off, "}[res.Instruments.Monitors]) {
		t.Errorf("instruments %q, runner %+v", r.Instruments, res.Instruments)
	}

	checkHealth(t, out.Dir, res, f.C.Inventory.Master().Name)

	// collect rewrites results.json through the same type: nothing is lost.
	before, _ := os.ReadFile(filepath.Join(dir, rundir.FileResults))
	again, ok, err := schema.ReadResults(filepath.Join(dir, rundir.FileResults))
	if err != nil || !ok {
		t.Fatal(err)
	}
	if err := out.Dir.WriteResults(again); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, rundir.FileResults))
	if !sameJSON(before, after) {
		t.Errorf("results.json changed when read and written again:\n%s\n%s", before, after)
	}
}

// checkHealth gives the run the consistency and sizes the runner's checks
// record on a real cluster (dataset's reports, as checks() sets them),
// writes results.json with the runner's writeResults and reads the health
// back through the report.
func checkHealth(t *testing.T, d *rundir.Dir, res *schema.Results, master string) {
	t.Helper()
	res.Consistency = &dataset.ConsistencyReport{OK: false, Database: "sbtest", Tables: []dataset.TableCheck{
		{Table: "sbtest1", Values: []dataset.TableValues{{Host: master, Exists: true, Rows: 1000}, {Host: "db2", Exists: true, Rows: 999}}},
		{Table: "sbtest2", Values: []dataset.TableValues{{Host: master, Exists: true, Rows: 500}}},
	}}
	res.Sizes = map[string]*dataset.SizeReport{
		master: {DataBytes: 4096, IndexBytes: 1024, DatadirBytes: 1 << 20, BinlogBytes: 3000,
			EngineDiskBytes: map[string]int64{"innodb": 8192}},
		"db2": {RelayLogBytes: 700},
		"db3": {RelayLogBytes: 900},
	}
	res.Checks = []string{"consistency: sbtest1 differs"}
	if err := (&run{dir: d}).writeResults(res); err != nil {
		t.Fatal(err)
	}
	in, err := load.Load([]string{d.Path()})
	if err != nil {
		t.Fatal(err)
	}
	h := in.Runs[0].Health
	if h.Consistency != "MISMATCH" || h.Rows != 1500 || h.TableBytes != 5120 || h.DatadirBytes != 1<<20 ||
		h.DiskBytes != 8192 || h.BinlogBytes != 3000 || h.RelayBytes != 900 || len(h.FailedChecks) != 1 {
		t.Errorf("health read back %+v", h)
	}
}
