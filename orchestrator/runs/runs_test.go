package runs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mkdir(t *testing.T, root, name string, matrix bool) string {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if matrix {
		if err := os.WriteFile(filepath.Join(p, "matrix.json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// Newest walks from the newest name down, past hidden directories and
// files, to the first directory asked for.
func TestNewest(t *testing.T) {
	root := t.TempDir()
	mkdir(t, root, "20261201T100000Z-matrix-a", true)
	want := mkdir(t, root, "20261202T100000Z-matrix-b", true)
	mkdir(t, root, "20261203T100000Z-run", false)
	mkdir(t, root, ".20261204T100000Z-hidden", true)
	if err := os.WriteFile(filepath.Join(root, "20261205T100000Z-file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Newest(root, IsMatrix); err != nil || got != want {
		t.Errorf("newest matrix: %q %v, want %q", got, err, want)
	}
	if got, _ := Newest(root, func(string) bool { return false }); got != "" {
		t.Errorf("none accepted: %q", got)
	}
	if _, err := Newest(filepath.Join(root, "nowhere"), IsMatrix); err == nil {
		t.Error("a missing root: no error")
	}
}

// A directory beside the runs is recorded by its name and resolves back;
// one elsewhere by its path.
func TestNameResolve(t *testing.T) {
	root := t.TempDir()
	aa := mkdir(t, root, "20261201T100000Z-matrix-aa", true)
	m := mkdir(t, root, "20261202T100000Z-matrix", true)
	name, err := Name(aa, root)
	if err != nil || name != filepath.Base(aa) {
		t.Fatalf("name %q %v", name, err)
	}
	if got := Resolve(name, m); got != aa {
		t.Errorf("resolved %q, want %q", got, aa)
	}
	other := t.TempDir()
	if name, _ := Name(other, root); !filepath.IsAbs(name) || Resolve(name, m) != name {
		t.Errorf("elsewhere: %q", name)
	}
}

// Latest is root/latest, or says there are no runs yet.
func TestLatest(t *testing.T) {
	root := t.TempDir()
	if _, err := Latest(root); err == nil || !strings.Contains(err.Error(), "no runs in") {
		t.Errorf("no latest: %v", err)
	}
	run := mkdir(t, root, "20261201T100000Z-run", false)
	if err := os.Symlink(filepath.Base(run), filepath.Join(root, "latest")); err != nil {
		t.Fatal(err)
	}
	if got, err := Latest(root); err != nil || got != filepath.Join(root, "latest") {
		t.Errorf("latest %q %v", got, err)
	}
}
