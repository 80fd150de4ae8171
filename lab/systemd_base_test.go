package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunWithProgressReportsAndFails(t *testing.T) {
	defer func(d time.Duration) { progressEvery = d }(progressEvery)
	progressEvery = 50 * time.Millisecond
	var out bytes.Buffer
	p := newProgress(&out)
	err := runWithProgress(context.Background(), p, "step", func() string { return "12 MB so far" },
		"sh", "-c", "echo 'I: Unpacking the base system...'; sleep 0.4")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "lab: step: I: Unpacking the base system... (0s, 12 MB so far)") {
		t.Errorf("progress lines:\n%s", out.String())
	}

	err = runWithProgress(context.Background(), p, "step", func() string { return "" },
		"sh", "-c", "echo 'E: Couldn'\\''t download packages'; exit 1")
	if err == nil || !strings.Contains(err.Error(), "Couldn't download packages") {
		t.Errorf("failure = %v, want the command's last output", err)
	}
}

// An interrupted debootstrap leaves mounts in its tree; removing the tree
// must never delete through them.
func TestRemoveTreeDetachesMountsFirst(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting needs root")
	}
	outside := t.TempDir()
	keep := filepath.Join(outside, "keep")
	if err := os.WriteFile(keep, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(t.TempDir(), "tree")
	dev := filepath.Join(tree, "dev", "shm")
	if err := os.MkdirAll(dev, 0o755); err != nil {
		t.Fatal(err)
	}
	// As debootstrap's setup_devices_bind does with the machine's /dev/shm.
	if err := syscall.Mount(outside, dev, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	defer syscall.Unmount(dev, syscall.MNT_DETACH)
	if err := removeTree(tree); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tree); !os.IsNotExist(err) {
		t.Errorf("tree left: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("removeTree deleted through a bind mount: %v", err)
	}
}
