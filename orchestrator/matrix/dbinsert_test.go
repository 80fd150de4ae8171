package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// A db-insert matrix keeps its servers at the inventory's profile in every
// cell, and its report reads the finished cells where they are (a first
// version moved them aside through CellDir and found no results.json).
func TestDBInsertMatrixReport(t *testing.T) {
	m, err := New("db-insert", []string{"tokudb", "bdb"}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !m.ServerFree() || m.Desired(&m.Cells[0]).Engine != "" {
		t.Fatalf("server-free %v, desired %+v", m.ServerFree(), m.Desired(&m.Cells[0]))
	}
	if pw, _ := New("pure-random-writes", []string{"innodb"}, nil, 1); pw.ServerFree() || pw.Desired(&pw.Cells[0]).Engine != "innodb" {
		t.Error("a server workload's cells must ask for their engine")
	}
	root := filepath.Join(t.TempDir(), "runs")
	dir, err := Create(root, m, time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Cells {
		c := &m.Cells[i]
		if err := m.Start(c.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		cell, err := m.CellDir(c.ID) // as execute makes it
		if err != nil {
			t.Fatal(err)
		}
		// The real program's output (../shared/samples, in bench's testdata).
		f, err := os.Open("../bench/testdata/db-insert-" + c.Engine + "-real.txt")
		if err != nil {
			t.Fatal(err)
		}
		res, err := bench.ParseDBInsert(c.Engine, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(map[string]any{"benchmark": res})
		os.WriteFile(filepath.Join(cell, "results.json"), doc, 0o644)
		if err := m.Finish(c.ID, OK, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	var out strings.Builder
	u := &useCase{Options: Options{Out: &out}}
	if err := u.writeDBInsert(m); err != nil {
		t.Fatal(err)
	}
	// The samples' totals: Berkeley DB 803,426/s, the fractal tree 434,467/s.
	if !strings.Contains(out.String(), "db-insert answer: Berkeley DB (bdb) inserted 1.85x as fast as the fractal tree (tokudb)") {
		t.Errorf("console:\n%s", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "dbinsert.md")); err != nil {
		t.Error(err)
	}
	if moved, _ := filepath.Glob(filepath.Join(dir, CellsDir, "*.*")); len(moved) > 0 {
		t.Errorf("cells moved aside: %v", moved)
	}
}
