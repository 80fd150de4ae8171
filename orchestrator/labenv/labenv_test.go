package labenv

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records Skip and Fatal instead of ending
// the test (both end a goroutine with runtime.Goexit).
type recorder struct {
	testing.TB
	skipped, failed bool
}

func (r *recorder) Helper()                      {}
func (r *recorder) Skip(args ...any)             { r.skipped = true; panic(r) }
func (r *recorder) Fatalf(f string, args ...any) { r.failed = true; panic(r) }

func call(f func(testing.TB) string) (r *recorder, got string) {
	r = &recorder{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
	}()
	got = f(r)
	return r, got
}

func TestInventoryWithoutLab(t *testing.T) {
	t.Setenv(EnvInventory, "")
	t.Setenv(EnvRequire, "")
	if r, _ := call(Inventory); !r.skipped || r.failed {
		t.Fatalf("without a lab a lab test must skip: %+v", r)
	}
	t.Setenv(EnvRequire, "1")
	if r, _ := call(Inventory); !r.failed || r.skipped {
		t.Fatalf("under %s a lab test without a lab must fail: %+v", EnvRequire, r)
	}
}

func TestInventoryAndStateDir(t *testing.T) {
	dir := t.TempDir()
	inv := filepath.Join(dir, "lab.yaml")
	t.Setenv(EnvInventory, inv)
	t.Setenv(EnvRequire, "1")
	if _, got := call(Inventory); got != inv {
		t.Fatalf("Inventory = %q, want %q", got, inv)
	}
	if _, got := call(PasswordInventory); got != filepath.Join(dir, "lab-password.yaml") {
		t.Fatalf("PasswordInventory = %q", got)
	}
	t.Setenv(EnvStateDir, dir)
	if r, _ := call(StateDir); !r.failed {
		t.Fatalf("a state dir without state.json must fail under %s: %+v", EnvRequire, r)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r, got := call(StateDir); r.failed || got != dir {
		t.Fatalf("StateDir = %q (%+v), want %q", got, r, dir)
	}
}
