package history

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// entries makes n runs of one series, a campaign each, a minute apart.
func entries(prefix string, n int, value func(i int) float64) []Entry {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var out []Entry
	for i := 0; i < n; i++ {
		out = append(out, Entry{
			Key:      fmt.Sprintf("%s-%03d", prefix, i),
			Identity: Identity{Workload: "pure-random-writes", Metric: "writes/s", Engine: "innodb", Version: "MariaDB 10.11.19"},
			Start:    t0.Add(time.Duration(i) * time.Minute), Campaign: fmt.Sprintf("%s-c%03d", prefix, i), Label: "innodb",
			Dir: "/runs/" + prefix, Value: value(i), State: "ok", Figures: map[string]string{"steady_metric": "1"}, Context: map[string]string{"orch": "dev"},
		})
	}
	return out
}

func openTemp(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(context.Background(), Config{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRecordTwiceAddsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultFile)
	s := openTemp(t, path)
	es := entries("a", 5, func(i int) float64 { return float64(100 + i) })
	es[2].Value = math.NaN() // a run the report leaves out
	ctx := context.Background()
	if n, err := s.Record(ctx, es); err != nil || n != 5 {
		t.Fatalf("first record: %d, %v; want 5 added", n, err)
	}
	if n, err := s.Record(ctx, es); err != nil || n != 0 {
		t.Fatalf("second record: %d, %v; want 0 added", n, err)
	}
	s.Close()
	s = openTemp(t, path)
	got, err := s.Entries(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[0].Value != 100 || !math.IsNaN(got[2].Value) || got[4].Identity != es[4].Identity || got[4].Figures["steady_metric"] != "1" {
		t.Fatalf("read back %d entries: %+v", len(got), got)
	}
	if s.Version != SchemaVersion {
		t.Errorf("schema version %d, want %d", s.Version, SchemaVersion)
	}
	if got, _ := s.Entries(ctx, Filter{Since: es[3].Start}); len(got) != 2 {
		t.Errorf("--since: %d entries, want 2", len(got))
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultFile)
	s := openTemp(t, path)
	if _, err := s.db.Exec(`UPDATE orch_history_meta SET value = '99' WHERE name = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	before, _ := os.ReadFile(path)
	_, err := Open(context.Background(), Config{Path: path})
	if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "schema version 99") {
		t.Fatalf("newer schema: %v", err)
	}
	db, _ := sql.Open("sqlite", path)
	defer db.Close()
	var v string
	if err := db.QueryRow(`SELECT value FROM orch_history_meta WHERE name = 'schema_version'`).Scan(&v); err != nil || v != "99" {
		t.Errorf("version after the refusal: %q, %v; want 99 untouched", v, err)
	}
	_ = before
}

func TestDamagedStoreRefused(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{
		"garbage":   []byte("this is not a database\n"),
		"truncated": append(append([]byte(nil), sqliteMagic...), bytes.Repeat([]byte{0xff}, 300)...),
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(context.Background(), Config{Path: path})
		if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
			t.Errorf("%s: the file was rewritten", name)
		}
	}
	// Someone else's database.
	path := filepath.Join(dir, "other.db")
	db, _ := sql.Open("sqlite", path)
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(context.Background(), Config{Path: path}); err == nil || !strings.Contains(err.Error(), "invoices") {
		t.Errorf("foreign database: %v, want a refusal naming its tables", err)
	}
}

// A store of schema version 1 is migrated to the current one, its rows kept.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultFile)
	ctx := context.Background()
	s, err := openSQLite(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(`CREATE TABLE orch_history_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	if err := s.migrate(ctx, s.db, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, entries("old", 2, func(int) float64 { return 1 })); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = openTemp(t, path)
	if s.Version != 2 {
		t.Fatalf("version %d after open, want 2", s.Version)
	}
	var n int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'orch_history_runs_workload'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("version 2's index: %d, %v", n, err)
	}
	if got, _ := s.Entries(ctx, Filter{}); len(got) != 2 {
		t.Errorf("%d rows after the migration, want 2", len(got))
	}
}

// Two orch processes recording into one store at once lose nothing: each
// of several processes records its own runs in many small transactions
// while the others do.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	if os.Getenv("ORCH_HISTORY_WRITER") != "" {
		return
	}
	path := filepath.Join(t.TempDir(), DefaultFile)
	const procs, each = 3, 100
	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "ORCH_HISTORY_WRITER="+strconv.Itoa(p), "ORCH_HISTORY_PATH="+path, "ORCH_HISTORY_EACH="+strconv.Itoa(each))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Log(out.String())
			}
		})
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	s := openTemp(t, path)
	got, err := s.Entries(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != procs*each {
		t.Fatalf("%d runs recorded, want %d", len(got), procs*each)
	}
}

// TestWriterProcess is one writer of TestConcurrentProcessesLoseNothing.
func TestWriterProcess(t *testing.T) {
	p := os.Getenv("ORCH_HISTORY_WRITER")
	if p == "" {
		t.Skip("a helper process of TestConcurrentProcessesLoseNothing")
	}
	each, _ := strconv.Atoi(os.Getenv("ORCH_HISTORY_EACH"))
	s, err := Open(context.Background(), Config{Path: os.Getenv("ORCH_HISTORY_PATH")})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	es := entries("p"+p, each, func(i int) float64 { return float64(i) })
	for i := range es {
		// One transaction per run, as runs end one at a time.
		if n, err := s.Record(context.Background(), es[i:i+1]); err != nil || n != 1 {
			t.Fatalf("record %d: %d, %v", i, n, err)
		}
	}
}
