package cluster

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockNeverClearsAnotherMachinesHolder (N4): a holder recorded by an
// orch with this machine's host name but another machine identity (a
// container, a CI runner, a cloned VM), whose PID is absent here, is
// reported, not killed; so is one from an orch that recorded no identity.
func TestLockNeverClearsAnotherMachinesHolder(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for name, machine := range map[string]string{"other identity": "0000.1111", "no identity": ""} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			o := self("orch matrix")
			o.pid, o.machine = dead.Process.Pid, machine
			holder := holdLock(t, o)
			err := localCluster(t).Lock(context.Background(), "orch up")
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("lock: %v", err)
			}
			if machine != "" && !strings.Contains(err.Error(), "another identity (machine-id, boot id), so it is not cleared") {
				t.Errorf("error does not say why: %v", err)
			}
			select {
			case err := <-holder:
				t.Fatalf("the holder was ended (%v)", err)
			default:
			}
		})
	}
}

// TestLockRefusesAnOpenOrchDirectory (N6): a ~/.orch that others may
// enter (where another user could plant cluster.lock as a symlink to a
// file of the SSH user's) is refused naming the fix, and a planted
// symlink is never written through.
func TestLockRefusesAnOpenOrchDirectory(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	d := filepath.Join(home, ".orch")
	os.Mkdir(d, 0o777)
	os.Chmod(d, 0o777)
	victim := filepath.Join(home, "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	os.Symlink(victim, filepath.Join(d, "cluster.lock"))
	err := localCluster(t).Lock(context.Background(), "orch up")
	if err == nil || !strings.Contains(err.Error(), d+" has mode 777, which lets others in: chmod 700 "+d) {
		t.Errorf("open ~/.orch: %v", err)
	}
	os.Chmod(d, 0o700)
	err = localCluster(t).Lock(context.Background(), "orch up")
	if err == nil || !strings.Contains(err.Error(), "cluster.lock is not a plain file owned by") {
		t.Errorf("symlinked lock file: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target was written: %q", b)
	}
}
