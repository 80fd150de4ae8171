package matrix

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The path a finished cell is recorded from (history) is looked up without
// touching the directory: CellDir would move the run aside as an earlier
// attempt and leave an empty one (the lab showed every cell of a matrix so
// moved when recording used it).
func TestCellPathTouchesNothing(t *testing.T) {
	m, err := NewAA("w", "innodb", nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := Create(t.TempDir(), m, time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	m, err = Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := m.Cells[0].ID
	made, err := m.CellDir(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(made, "manifest.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := m.cellPath(id)
	if err != nil || got != made {
		t.Fatalf("cellPath %q, %v; want %q", got, err, made)
	}
	if _, err := os.Stat(filepath.Join(made, "manifest.json")); err != nil {
		t.Errorf("the cell's run was moved: %v", err)
	}
	if aside, _ := filepath.Glob(made + ".attempt-*"); len(aside) != 0 {
		t.Errorf("an attempt was set aside: %v", aside)
	}
}
