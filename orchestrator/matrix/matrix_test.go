package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/schema"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func newMatrix(t *testing.T) *Matrix {
	t.Helper()
	m, err := New("pure-random-writes", []string{"innodb", "rocksdb"}, []Axis{syncBinlog}, 2)
	if err != nil {
		t.Fatal(err)
	}
	m.Overrides = map[string]string{"threads": "16"}
	warm := 10.0
	m.WarmupS = &warm
	m.NoEffect = map[string]string{"binlog_order_commits": "MariaDB 10.11.19: accepted but ignored"}
	return m
}

func create(t *testing.T, m *Matrix) (root, dir string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "runs")
	dir, err := Create(root, m, t0)
	if err != nil {
		t.Fatal(err)
	}
	return root, dir
}

func TestNew(t *testing.T) {
	m := newMatrix(t)
	if m.Version != 1 || m.Repeat != 2 || len(m.Cells) != 8 || m.Baseline != "innodb sync_binlog=0" {
		t.Errorf("New: %+v", m)
	}
	for _, tc := range []struct {
		engines []string
		axes    []Axis
		repeat  int
		want    string
	}{
		{nil, nil, 1, "matrix: no engine"},
		{[]string{"innodb"}, nil, 0, "matrix: --repeat 0: want 1 or more"},
		{[]string{"innodb"}, []Axis{{Name: "x", Values: nil}}, 1, "matrix: knob x has no value"},
		{[]string{"innodb"}, []Axis{{Name: "a", Values: make([]string, 100)}, {Name: "b", Values: make([]string, 100)}, {Name: "c", Values: make([]string, 1000)}}, 1000,
			"matrix: the plan has more than 10000 cells; fewer values or repetitions, please"},
	} {
		if _, err := New("w", tc.engines, tc.axes, tc.repeat); err == nil || err.Error() != tc.want {
			t.Errorf("New(%v, %d axes, %d) error %v, want %s", tc.engines, len(tc.axes), tc.repeat, err, tc.want)
		}
	}
}

func TestSetBaseline(t *testing.T) {
	m := newMatrix(t)
	if err := m.SetBaseline("rocksdb sync_binlog=1"); err != nil || m.Baseline != "rocksdb sync_binlog=1" {
		t.Errorf("SetBaseline: %v, baseline %q", err, m.Baseline)
	}
	err := m.SetBaseline("tokudb")
	want := `matrix: baseline "tokudb" is not a configuration of the plan (innodb sync_binlog=0; innodb sync_binlog=1; rocksdb sync_binlog=0; rocksdb sync_binlog=1)`
	if err == nil || err.Error() != want {
		t.Errorf("SetBaseline(tokudb) = %v, want %s", err, want)
	}
}

func TestCreateLayout(t *testing.T) {
	m := newMatrix(t)
	root, dir := create(t, m)
	if want := filepath.Join(root, "20250304T050607Z-matrix-pure-random-writes"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	if m.Dir() != dir {
		t.Errorf("m.Dir() = %s", m.Dir())
	}
	if target, err := os.Readlink(filepath.Join(root, rundir.LatestLink)); err != nil || target != filepath.Base(dir) {
		t.Errorf("latest -> %q, %v", target, err)
	}
	if st, err := os.Stat(filepath.Join(dir, CellsDir)); err != nil || !st.IsDir() {
		t.Errorf("cells/: %v", err)
	}
	if _, err := Create(root, &Matrix{Matrix: schema.Matrix{Version: 1}}, t0); err == nil {
		t.Error("Create of a matrix without cells succeeded")
	}
}

func TestRoundTrip(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	first := m.Cells[0].ID
	if err := m.Start(first, t0.Add(1500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(first, Failed, errTest("slave1 10.0.0.2: start replica: boom"), t0.Add(90*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(m.Cells[1].ID, t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	// Through the latest link, as `orch matrix --resume runs/latest` would.
	got, err := Load(filepath.Join(filepath.Dir(dir), rundir.LatestLink))
	if err != nil {
		t.Fatal(err)
	}
	if got.Dir() != dir {
		t.Errorf("loaded Dir() = %s, want %s", got.Dir(), dir)
	}
	got.dir, m.dir = nil, nil
	if !reflect.DeepEqual(got, m) {
		t.Errorf("round trip\n got %+v\nwant %+v", got, m)
	}
}

type errTest string

func (e errTest) Error() string { return string(e) }

// TestJSONShape pins matrix.json's keys and formats: the report reads
// them (notes/matrix-design.md).
func TestJSONShape(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	if err := m.Start(m.Cells[0].ID, t0.Add(1500*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := m.Finish(m.Cells[0].ID, OK, nil, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileMatrix))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{"baseline", "cells", "engines", "knobs", "no_effect", "overrides", "repeat", "version", "warmup_s", "workload"}
	if keys := sortedAnyKeys(doc); !reflect.DeepEqual(keys, want) {
		t.Errorf("top-level keys %q, want %q", keys, want)
	}
	if k := doc["knobs"].([]any)[0].(map[string]any); k["name"] != "sync_binlog" || !reflect.DeepEqual(k["values"], []any{"0", "1"}) {
		t.Errorf("knobs[0] = %v", k)
	}
	cells := doc["cells"].([]any)
	done := cells[0].(map[string]any)
	wantDone := map[string]any{
		"id": "01-innodb-sync_binlog=0-r1", "label": "innodb sync_binlog=0", "engine": "innodb",
		"knobs": []any{map[string]any{"name": "sync_binlog", "value": "0"}}, "rep": 1.0, "state": "ok",
		"dir": "cells/01-innodb-sync_binlog=0-r1", "started": "2025-03-04T05:06:08Z", "ended": "2025-03-04T05:07:07Z",
	}
	if !reflect.DeepEqual(done, wantDone) {
		t.Errorf("finished cell\n got %v\nwant %v", done, wantDone)
	}
	if pending := cells[1].(map[string]any); pending["state"] != "pending" || pending["started"] != nil || pending["error"] != nil {
		t.Errorf("pending cell %v", pending)
	}
}

func sortedAnyKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestLoadRejects(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	path := filepath.Join(dir, FileMatrix)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ from, to, want string }{
		{`"version": 1`, `"version": 2`, "matrix.json version 2: this orch reads version 1"},
		{`"state": "pending"`, `"state": "done"`, `state "done": want pending, running, ok, failed, interrupted or skipped`},
		{`"id": "02-innodb-sync_binlog=1-r1"`, `"id": "01-innodb-sync_binlog=0-r1"`, "cell id 01-innodb-sync_binlog=0-r1 is used twice"},
		{`"id": "02-innodb-sync_binlog=1-r1"`, `"id": "../x"`, `id "../x" is not a safe directory name`},
		{`"dir": "cells/02-innodb-sync_binlog=1-r1"`, `"dir": "/etc"`, `dir "/etc" is not inside the matrix directory`},
		{`"baseline": "innodb sync_binlog=0"`, `"baseline": "nope"`, `baseline "nope" is not the label of any cell`},
		{`"version": 1`, `"version": 1,,`, "matrix.json: invalid character"},
	} {
		if err := os.WriteFile(path, []byte(strings.Replace(string(orig), tc.from, tc.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s -> %s: Load error %v, want %q", tc.from, tc.to, err, tc.want)
		}
	}
	if _, err := Load(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("Load of a missing directory succeeded")
	}
}

func TestFindLatest(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs")
	if _, err := FindLatest(root); err == nil {
		t.Error("FindLatest with no runs directory succeeded")
	}
	older, err := Create(root, newMatrix(t), t0)
	if err != nil {
		t.Fatal(err)
	}
	newer, err := Create(root, newMatrix(t), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := FindLatest(root); err != nil || got != newer {
		t.Errorf("FindLatest = %s, %v; want %s (latest link)", got, err, newer)
	}
	// A plain run afterwards moves latest on; the newest matrix is still found.
	if _, err := rundir.Create(root, "pure-random-writes", t0.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := FindLatest(root); err != nil || got != newer {
		t.Errorf("after a plain run: FindLatest = %s, %v; want %s", got, err, newer)
	}
	if err := os.RemoveAll(newer); err != nil {
		t.Fatal(err)
	}
	if got, err := FindLatest(root); err != nil || got != older {
		t.Errorf("newest removed: FindLatest = %s, %v; want %s", got, err, older)
	}
	empty := filepath.Join(t.TempDir(), "runs")
	if _, err := rundir.Create(empty, "only-a-run", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := FindLatest(empty); err == nil || !strings.Contains(err.Error(), "no matrix under") {
		t.Errorf("FindLatest without a matrix: %v", err)
	}
}

func TestCellDir(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	id := m.Cells[0].ID
	p, err := m.CellDir(id)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "cells", id); p != want {
		t.Errorf("CellDir = %s, want %s", p, want)
	}
	if err := os.WriteFile(filepath.Join(p, "events.jsonl"), []byte("first attempt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A rerun after a crash: the first attempt is kept, the new dir is empty.
	for attempt := 1; attempt <= 2; attempt++ {
		if _, err := m.CellDir(id); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(p + ".attempt-" + string(rune('0'+attempt)))); err != nil {
			t.Errorf("attempt %d not kept: %v", attempt, err)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(p+".attempt-1", "events.jsonl")); string(got) != "first attempt\n" {
		t.Errorf("first attempt's evidence: %q", got)
	}
	if entries, err := os.ReadDir(p); err != nil || len(entries) != 0 {
		t.Errorf("fresh cell dir holds %v, %v", entries, err)
	}
	if _, err := m.CellDir("99-nope"); err == nil {
		t.Error("CellDir of an unknown cell succeeded")
	}
}

// TestSaveAtomic has a reader parse matrix.json while it is saved over and
// over: every read must see a whole file, and no temporary is left behind.
func TestSaveAtomic(t *testing.T) {
	m := newMatrix(t)
	_, dir := create(t, m)
	path := filepath.Join(dir, FileMatrix)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads int
	var bad error
	started := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(started) // (when the first read failed)
		for {
			if reads == 1 {
				started <- struct{}{}
			}
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				var got Matrix
				err = json.Unmarshal(data, &got)
			}
			if err != nil {
				bad = err
				return
			}
			reads++
		}
	}()
	<-started // the reader is going: saves below race with its reads
	for i := 0; i < 50; i++ {
		c := &m.Cells[i%len(m.Cells)]
		c.State = Pending
		c.Error = strings.Repeat("x", i*97) // vary the size
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	if bad != nil {
		t.Fatalf("a reader saw a torn matrix.json after %d good reads: %v", reads, bad)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{CellsDir, FileMatrix}; !reflect.DeepEqual(names, want) {
		t.Errorf("matrix directory holds %q, want %q", names, want)
	}
	if err := (&Matrix{}).Save(); err == nil {
		t.Error("Save without a directory succeeded")
	}
}
