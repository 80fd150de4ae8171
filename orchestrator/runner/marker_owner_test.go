package runner

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// TestForeignTargetProcessesDoNotBlock (N7): a process that merely carries
// orch's target variable (anyone can set it; as root orch reads every
// user's environment) is not an orch benchmark: not one of another user,
// and not one of the SSH user outside orch's private run directories.
func TestForeignTargetProcessesDoNotBlock(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	const target = "192.0.2.41:3306"
	start := func(dir string, cred *syscall.Credential) {
		t.Helper()
		cmd := exec.Command("sleep", "30")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), envTarget+"="+target)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	}
	start("/", nil) // the SSH user's, but not in a run directory
	if os.Geteuid() == 0 {
		// another user's, in a directory named like orch's
		dir := filepath.Join(home, "orch-run-x.0123456789")
		os.Mkdir(dir, 0o755)
		os.Chmod(home, 0o755)
		os.Chmod(filepath.Dir(home), 0o755)
		start(dir, &syscall.Credential{Uid: 65534, Gid: 65534})
	}
	time.Sleep(100 * time.Millisecond) // let them exec
	ex := executor.NewLocal("lb")
	if err := checkAlone(context.Background(), ex, target); err != nil {
		t.Fatalf("a process that only carries the target blocks the run: %v", err)
	}
}
