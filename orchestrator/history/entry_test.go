package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Real run directories (the report's fixtures, made by orch on the lab):
// a matrix of six cells and three runs.
const fixtures = "../report/testdata"

func TestExtractFixtures(t *testing.T) {
	es, err := Extract([]string{filepath.Join(fixtures, "matrix")})
	if err != nil {
		t.Fatal(err)
	}
	if len(es) == 0 {
		t.Fatal("no entries from the matrix")
	}
	for _, e := range es {
		if e.Campaign != "matrix" {
			t.Errorf("%s: campaign %q, want the matrix directory's name", e.Key, e.Campaign)
		}
		id := e.Identity
		if id.Workload == "" || id.Metric == "" || id.Engine == "" || !strings.Contains(id.Version, "MariaDB") || id.Client != "sysbench 1.0.20" || id.Params == "" {
			t.Errorf("%s: identity %+v", e.Key, id)
		}
		if e.Usable() && e.Figures["steady_metric"] == "" {
			t.Errorf("%s: value %v but no steady_metric column", e.Key, e.Value)
		}
	}
	// The rocksdb cells are one series; the first innodb cell ran 15 s
	// where the others ran 10 s (the fixture's manifests say so): the
	// innodb cells are two series that differ in params only, and one
	// when params are ignored.
	keys := map[string]bool{}
	for _, e := range es {
		keys[e.Identity.Key(nil)] = true
	}
	if len(keys) != 3 {
		t.Errorf("%d series, want 3", len(keys))
	}
	if d := DiffFields(es[0].Identity, es[2].Identity, nil); len(d) != 1 || d[0] != "params" {
		t.Errorf("innodb r1 vs r2 differ in %v, want [params]", d)
	}
	if es[0].Identity.Key([]string{"params"}) != es[2].Identity.Key([]string{"params"}) {
		t.Error("--ignore params does not merge the innodb cells")
	}
}

// Importing the same directories twice, and a cell again by itself,
// records each run once.
func TestImportIdempotent(t *testing.T) {
	s := openTemp(t, filepath.Join(t.TempDir(), DefaultFile))
	ctx := context.Background()
	dirs := []string{filepath.Join(fixtures, "matrix"), filepath.Join(fixtures, "runs")}
	first, err := Import(ctx, s, dirs)
	if err != nil {
		t.Fatal(err)
	}
	if first.Added == 0 || first.Added != first.Read {
		t.Fatalf("first import: %+v", first)
	}
	again, err := Import(ctx, s, append(dirs, filepath.Join(fixtures, "matrix", "cells", "01-innodb-r1")))
	if err != nil {
		t.Fatal(err)
	}
	if again.Added != 0 || again.Read != first.Read+1 {
		t.Fatalf("second import: %+v, want nothing added of %d read", again, first.Read+1)
	}
	all, _ := s.Entries(ctx, Filter{})
	if len(all) != first.Added {
		t.Errorf("%d rows, want %d", len(all), first.Added)
	}
}

// A matrix cell recorded by itself (as the matrix records it when it
// ends) has the figure the matrix's report gives it: the matrix's warm-up,
// not one detected on the cell alone (the lab showed 4225 vs 4379 writes/s
// before cells were read through their matrix).
func TestCellReadThroughItsMatrix(t *testing.T) {
	all, err := Extract([]string{filepath.Join(fixtures, "matrix")})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range all {
		got, err := Extract([]string{want.Dir})
		if err != nil || len(got) != 1 {
			t.Fatalf("%s alone: %d entries, %v", want.Dir, len(got), err)
		}
		if g := got[0]; g.Key != want.Key || g.State != want.State || g.Label != want.Label || !(g.Value == want.Value || !g.Usable() && !want.Usable()) {
			t.Errorf("%s alone: %s %s %s %v; in its matrix: %s %s %s %v", want.Dir, g.Key, g.State, g.Label, g.Value, want.Key, want.State, want.Label, want.Value)
		}
	}
}

// A runs folder kept in folders of its own (runs/seed/sysbench/<matrix>,
// as make seed keeps them) is imported down to its runs; a symbolic link
// (runs/latest) is not followed twice.
func TestImportNestedFolders(t *testing.T) {
	root := t.TempDir()
	nested := filepath.Join(root, "seed", "sysbench")
	if err := os.MkdirAll(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	copyTree(t, filepath.Join(fixtures, "matrix"), filepath.Join(nested, "m1"))
	if err := os.Symlink(filepath.Join(nested, "m1"), filepath.Join(root, "latest")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	direct, err := Import(ctx, openTemp(t, filepath.Join(t.TempDir(), DefaultFile)), []string{filepath.Join(fixtures, "matrix")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Import(ctx, openTemp(t, filepath.Join(t.TempDir(), DefaultFile)), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if got.Read == 0 || got.Read != direct.Read || got.Added != direct.Added {
		t.Errorf("nested import %+v, the matrix imported directly %+v", got, direct)
	}
}

// copyTree copies a directory (files and folders) for a test.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
