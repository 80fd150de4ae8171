package topology

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretFilesMustBePrivate (N3): a password file others can read, or
// one another user made (planted in a shared state directory), is refused
// with its path, never used.
func TestSecretFilesMustBePrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pw")
	if err := os.WriteFile(path, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := (Secret{File: path}).Resolve(); err != nil || got != "s3cret" {
		t.Fatalf("private file: %q, %v", got, err)
	}
	os.Chmod(path, 0o644)
	if _, err := (Secret{File: path}).Resolve(); err == nil || !strings.Contains(err.Error(), path+" has mode 0644") {
		t.Errorf("0644 file: %v", err)
	}
	os.Chmod(path, 0o600)
	if os.Geteuid() != 0 {
		t.Skip("chown to another user needs root")
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := (Secret{File: path}).Resolve(); err == nil || !strings.Contains(err.Error(), "is owned by uid 65534, not by you") {
		t.Errorf("another user's file: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(path, link)
	if err := CheckPrivateNoFollow("orch state file", link); err == nil || !strings.Contains(err.Error(), "is a symlink") {
		t.Errorf("symlink: %v", err)
	}
}
