package rundir

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/topology"
)

func fullManifest(t *testing.T) *Manifest {
	t.Helper()
	m := &Manifest{
		OrchVersion: "v0.4.0",
		Command:     RedactArgs([]string{"orch", "run", "--workload", "oltp_insert", "--knob", "sync_binlog=1"}),
		Engine:      "rocksdb",
		Knobs:       map[string]string{"sync_binlog": "1"},
		Servers:     map[string]string{"master": "MariaDB 10.11.19"},
		Clients:     map[string]string{"sysbench": "sysbench 1.0.20"},
		HostFacts:   map[string]json.RawMessage{"master": json.RawMessage(`{"cpus":2}`)},
		Start:       start.UTC(),
		Status:      StatusRunning,
		Remote:      &Remote{Host: "loadbox", Dir: "/tmp/orch-run-1", PID: 4242},
	}
	if err := m.SetWorkload(map[string]any{"name": "oltp_insert", "threads": 32}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []ExpectedFile{
		{Host: "loadbox", Remote: "/tmp/orch-run-1/run.txt", Local: BenchmarkRun, Kind: KindFile},
		{Host: "master", Remote: "/var/log/mysql/error.log", Local: HostFile("master", HostErrorLog), Kind: KindLogSlice, Offset: 1234, Sudo: true},
	} {
		if err := m.Expect(f); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestManifestRoundTrip(t *testing.T) {
	d, err := Create(t.TempDir(), "m", start)
	if err != nil {
		t.Fatal(err)
	}
	m := fullManifest(t)
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	got, err := d.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	// Raw JSON comes back indented: compare the compact encodings.
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(m)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("round trip:\n got %s\nwant %s", gotJSON, wantJSON)
	}
	if !reflect.DeepEqual(got.Expected, m.Expected) || *got.Remote != *m.Remote || !got.Start.Equal(m.Start) {
		t.Fatalf("round trip: %+v", got)
	}
	// A running manifest has no end; a finished one has it in RFC 3339.
	raw, _ := os.ReadFile(filepath.Join(d.Path(), FileManifest))
	if strings.Contains(string(raw), `"end"`) {
		t.Fatalf("running manifest has an end: %s", raw)
	}
	m.Finish(start.Add(90*time.Second), StatusFailed, errors.New("slave2 10.0.0.3: not caught up"))
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	var generic map[string]any
	raw, _ = os.ReadFile(filepath.Join(d.Path(), FileManifest))
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	if generic["end"] != "2006-11-29T21:58:43Z" || generic["start"] != "2006-11-29T21:57:13Z" ||
		generic["status"] != "failed" || generic["error"] != "slave2 10.0.0.3: not caught up" {
		t.Fatalf("finished manifest: end %v start %v status %v error %v", generic["end"], generic["start"], generic["status"], generic["error"])
	}
}

func TestManifestExpectedFiles(t *testing.T) {
	m := fullManifest(t)
	if n := len(m.Missing()); n != 2 {
		t.Fatalf("%d missing, want 2", n)
	}
	if !m.MarkDone(BenchmarkRun) || m.MarkDone("nope.txt") {
		t.Fatal("MarkDone reports the wrong files as expected")
	}
	miss := m.Missing()
	if len(miss) != 1 || miss[0].Local != "hosts/master/error.log" {
		t.Fatalf("missing after MarkDone: %+v", miss)
	}
	// Expect replaces an entry with the same local path.
	if err := m.Expect(ExpectedFile{Host: "master", Remote: "/var/log/mysql/error.log", Local: "hosts/master/error.log", Kind: KindLogSlice, Offset: 99, End: 200}); err != nil {
		t.Fatal(err)
	}
	if len(m.Expected) != 2 || m.Expected[1].Offset != 99 {
		t.Fatalf("Expect did not replace: %+v", m.Expected)
	}
	for name, f := range map[string]ExpectedFile{
		"relative remote": {Host: "m", Remote: "var/log/x", Local: "x", Kind: KindFile},
		"escaping local":  {Host: "m", Remote: "/x", Local: "../x", Kind: KindFile},
		"no host":         {Remote: "/x", Local: "x", Kind: KindFile},
		"bad kind":        {Host: "m", Remote: "/x", Local: "x", Kind: "dir"},
		"file offset":     {Host: "m", Remote: "/x", Local: "x", Kind: KindFile, Offset: 3},
		"end before":      {Host: "m", Remote: "/x", Local: "x", Kind: KindLogSlice, Offset: 10, End: 5},
	} {
		if err := m.Expect(f); err == nil {
			t.Errorf("%s: accepted %+v", name, f)
		}
	}
}

func TestManifestRejectsBadStatus(t *testing.T) {
	d, err := Create(t.TempDir(), "m", start)
	if err != nil {
		t.Fatal(err)
	}
	m := fullManifest(t)
	m.Status = "done"
	if err := d.SaveManifest(m); err == nil || !strings.Contains(err.Error(), `status "done"`) {
		t.Fatalf("saved status done: %v", err)
	}
	if _, err := d.LoadManifest(); err == nil || !strings.Contains(err.Error(), "not a run directory") {
		t.Fatalf("LoadManifest without a manifest: %v", err)
	}
	os.WriteFile(filepath.Join(d.Path(), FileManifest), []byte(`{"status":"weird"}`), 0o644)
	if _, err := d.LoadManifest(); err == nil {
		t.Fatal("loaded a manifest with an unknown status")
	}
}

// The inventory goes into the manifest with where its secrets come from,
// never their values.
func TestManifestInventoryHoldsNoSecret(t *testing.T) {
	inv := &topology.Inventory{Name: "lab", Hosts: []*topology.Host{{
		Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1",
		MySQL: topology.MySQLConfig{User: "orch", Password: topology.InlineSecret("hunter2-inline")},
		SSH:   topology.SSHConfig{Password: topology.Secret{File: "/etc/orch/ssh-pass"}},
	}}}
	d, err := Create(t.TempDir(), "m", start)
	if err != nil {
		t.Fatal(err)
	}
	m := fullManifest(t)
	if err := m.SetInventory(inv); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(d.Path(), FileManifest))
	if !strings.Contains(string(raw), "/etc/orch/ssh-pass") || !strings.Contains(string(raw), `"10.0.0.1"`) {
		t.Fatalf("inventory missing from the manifest: %s", raw)
	}
	if hits, err := ScanForSecrets(d.Path(), []string{"hunter2-inline"}); err != nil || len(hits) != 0 {
		t.Fatalf("secret in %v (%v)", hits, err)
	}
}

func TestUpdateManifest(t *testing.T) {
	d, err := Create(t.TempDir(), "m", start)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.SaveManifest(fullManifest(t)); err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateManifest(func(m *Manifest) error { m.MarkDone(BenchmarkRun); return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := d.UpdateManifest(func(m *Manifest) error { m.Status = StatusOK; return boom }); !errors.Is(err, boom) {
		t.Fatalf("error from fn: %v", err)
	}
	m, err := d.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if !m.Expected[0].Done || m.Status != StatusRunning {
		t.Fatalf("after updates: done=%v status=%s", m.Expected[0].Done, m.Status)
	}
}

func TestManifestDescriptionFollowsOverrides(t *testing.T) {
	// The workload as the runner marshals it after --tables 4 --threads 16
	// --time 20: the file's description still says 8/128/3600.
	w := map[string]any{
		"Name":        "pure-random-writes",
		"Description": "sysbench oltp_insert, random primary keys (auto_inc off), 8 tables, 128 threads, 3600 s",
		"Options":     map[string]any{"Tables": 4, "Threads": 16, "TimeS": 20, "TableSize": 10000, "Events": nil},
	}
	var m Manifest
	if err := m.SetWorkload(w); err != nil {
		t.Fatal(err)
	}
	want := "sysbench oltp_insert, random primary keys (auto_inc off), 4 tables, 16 threads, 20 s"
	if m.Description != want {
		t.Errorf("description = %q, want %q", m.Description, want)
	}
	if !strings.Contains(string(m.Workload), `"Description":"`+want+`"`) {
		t.Errorf("workload JSON keeps the old description: %s", m.Workload)
	}
	// mysqlslap's wording: clients, iterations, writes.
	w = map[string]any{"Description": "mysqlslap auto-generated writes with auto-increment, 100 clients, 5 iterations, 1,000,000 writes",
		"Options": map[string]any{"Concurrency": []int{8}, "Iterations": 2, "NumberOfQueries": 5000}}
	if err := m.SetWorkload(w); err != nil {
		t.Fatal(err)
	}
	if want := "mysqlslap auto-generated writes with auto-increment, 8 clients, 2 iterations, 5000 writes"; m.Description != want {
		t.Errorf("description = %q, want %q", m.Description, want)
	}
}

// The recorded inventory reads back whole (collect's RecordedInventory)
// and with its name and hosts decoded (the report's roles); the schema
// version is written and kept by an update, and a manifest without it, or
// without an inventory, is version 0 and reads.
func TestManifestSchemaVersionAndInventory(t *testing.T) {
	inv := &topology.Inventory{Name: "lab", Source: "ips.txt", Hosts: []*topology.Host{
		{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1"},
		{Name: "slave1", Role: topology.RoleSlave, Address: "10.0.0.2"},
	}}
	d, err := Create(t.TempDir(), "m", start)
	if err != nil {
		t.Fatal(err)
	}
	m := fullManifest(t)
	m.SchemaVersion = SchemaVersion
	if err := m.SetInventory(inv); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	if err := d.UpdateManifest(func(m *Manifest) error { m.Status = StatusOK; return nil }); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(d.Path(), FileManifest))
	if !strings.Contains(string(raw), `"schema_version": 1`) {
		t.Fatalf("no schema_version: %s", raw)
	}
	got, err := d.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if got.SchemaVersion != SchemaVersion || got.Inventory.Name != "lab" || len(got.Inventory.Hosts) != 2 ||
		got.Inventory.Hosts[1] != (InventoryHost{Name: "slave1", Role: "slave"}) {
		t.Fatalf("read back: version %d, inventory %+v", got.SchemaVersion, got.Inventory)
	}
	rec, err := got.RecordedInventory()
	if err != nil || rec.Source != "ips.txt" || len(rec.Hosts) != 2 {
		t.Fatalf("recorded inventory %+v (%v)", rec, err)
	}

	os.WriteFile(filepath.Join(d.Path(), FileManifest), []byte(`{"status":"ok","start":"2026-01-02T03:04:05Z"}`), 0o644)
	old, err := d.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if old.SchemaVersion != 0 || !old.Inventory.IsZero() || old.Inventory.Hosts != nil {
		t.Fatalf("version 0 manifest: %+v", old)
	}
	if err := d.SaveManifest(old); err != nil {
		t.Fatal(err)
	}
	raw, _ = os.ReadFile(filepath.Join(d.Path(), FileManifest))
	if strings.Contains(string(raw), "schema_version") || strings.Contains(string(raw), "inventory") {
		t.Fatalf("a version 0 manifest saved again gained keys: %s", raw)
	}
}
