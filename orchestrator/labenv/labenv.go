// Package labenv tells lab tests where the running lab is. One variable,
// ORCH_TEST_LAB_INVENTORY (the lab.yaml written by `orch lab up`), runs every
// lab test of every package; `make test` sets it. Without it a lab test
// skips, unless ORCH_REQUIRE_LAB is set (CI), where a lab test that cannot
// run fails: a lab test that skips in CI proves nothing.
package labenv

import (
	"os"
	"path/filepath"
	"testing"
)

// Variables read by lab tests.
const (
	EnvInventory = "ORCH_TEST_LAB_INVENTORY"
	EnvStateDir  = "ORCH_TEST_LAB_STATE_DIR"
	EnvRequire   = "ORCH_REQUIRE_LAB"
)

// defaultStateDir is lab.DefaultStateDir; the lab package is not imported
// so that any package's tests can use this one without pulling in the lab.
const defaultStateDir = "/var/lib/orch-lab"

// Inventory returns the lab inventory's path, or skips (fails under
// ORCH_REQUIRE_LAB) when no lab is named.
func Inventory(t testing.TB) string {
	t.Helper()
	path := os.Getenv(EnvInventory)
	if path == "" {
		unavailable(t, "set "+EnvInventory+" to the lab.yaml of a running lab (orch lab up) to run lab tests")
	}
	return path
}

// PasswordInventory is the inventory of the lab's password+sudo user,
// written by the lab next to lab.yaml.
func PasswordInventory(t testing.TB) string {
	t.Helper()
	return filepath.Join(filepath.Dir(Inventory(t)), "lab-password.yaml")
}

// StateDir returns the lab's state dir (for fault injection): the
// variable's value, else the lab's default when it holds a lab.
func StateDir(t testing.TB) string {
	t.Helper()
	Inventory(t)
	dir := os.Getenv(EnvStateDir)
	if dir == "" {
		dir = defaultStateDir
	}
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		unavailable(t, "no lab state in "+dir+" (set "+EnvStateDir+"): fault injection needs the lab's state dir")
	}
	return dir
}

// Required reports whether lab tests must run (CI).
func Required() bool { return os.Getenv(EnvRequire) != "" }

func unavailable(t testing.TB, why string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s is set, but: %s", EnvRequire, why)
	}
	t.Skip(why)
}
