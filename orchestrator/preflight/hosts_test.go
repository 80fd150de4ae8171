package preflight

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// The hosts the tests probe. Scripts run for real: through the local
// executor, under /bin/sh, on this machine. Two seams stand in for what
// this machine cannot become:
//
//   - toolHost is this machine with another set of programs on PATH (a
//     host without sysbench, one whose mysqld prints another version,
//     one whose mariadb client cannot log in by socket), its user root.
//   - cannedHost prints, for the probe alone, what a real Debian host
//     printed; every other command runs here for real.

// baseTools are the programs the probe and the checks call besides the
// shell's builtins.
var baseTools = []string{"id", "uname", "cat", "awk", "getconf", "nproc", "lscpu", "dirname",
	"df", "lsblk", "head", "date", "bash", "ss", "getent"}

// need skips the test on a machine without one of the tools.
func need(t *testing.T, tools ...string) {
	t.Helper()
	for _, name := range tools {
		if _, err := exec.LookPath(name); err != nil {
			t.Skipf("no %s on this machine", name)
		}
	}
}

// toolDir makes a PATH directory holding links to the base tools found on
// this machine and the given extra programs (name: shell script body).
func toolDir(t *testing.T, extra map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range baseTools {
		if p, err := exec.LookPath(name); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, body := range extra {
		// An extra program replaces a base tool's link: writing through
		// the link would write the machine's own program.
		p := filepath.Join(dir, name)
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// toolHost runs every command on this machine with PATH set to path; it
// dials from here too (a mysqlconn.Dialer, as an SSH tunnel is).
type toolHost struct {
	*executor.Local
	path  string
	dials atomic.Int32
	// dial, when set, runs before the host's dial number n (from 1): an
	// error it returns is that dial's; nil lets the real dial go on.
	dial func(n int32, addr string) error
}

func newToolHost(name, path string) *toolHost {
	return &toolHost{Local: executor.NewLocal(name), path: path}
}

func (h *toolHost) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	env := map[string]string{"PATH": h.path}
	for k, v := range cmd.Env {
		env[k] = v
	}
	cmd.Env = env
	cmd.Sudo = false // the host's user is root
	return h.Local.Run(ctx, cmd)
}

func (h *toolHost) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	n := h.dials.Add(1)
	if h.dial != nil {
		if err := h.dial(n, addr); err != nil {
			return nil, err
		}
	}
	return h.Local.DialContext(ctx, network, addr)
}

// cannedHost answers the probe (the script reading /proc/meminfo) with
// probe, and runs the rest here, except where a field says otherwise.
// It has no tunnel: it is not a mysqlconn.Dialer.
type cannedHost struct {
	local    *executor.Local
	probe    string
	probeErr error
	// sudoErr fails every command run through sudo.
	sudoErr error
	// clock, when set, answers each line of the clock session ("": the
	// shell hangs up).
	clock func(line int) string

	mu      sync.Mutex
	scripts []string
}

func newCannedHost(name, probe string) *cannedHost {
	return &cannedHost{local: executor.NewLocal(name), probe: probe}
}

func (h *cannedHost) Name() string { return h.local.Name() }
func (h *cannedHost) Close() error { return nil }

func (h *cannedHost) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return nil
}

func (h *cannedHost) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, nil
}

func (h *cannedHost) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	h.mu.Lock()
	h.scripts = append(h.scripts, cmd.Script)
	h.mu.Unlock()
	switch {
	case strings.Contains(cmd.Script, "/proc/meminfo"):
		if h.probeErr != nil {
			return executor.Result{ExitCode: -1}, h.probeErr
		}
		return executor.Result{Stdout: []byte(h.probe)}, nil
	case cmd.Sudo && h.sudoErr != nil:
		return executor.Result{ExitCode: 1}, h.sudoErr
	case cmd.Stdout != nil && cmd.Stdin != nil && h.clock != nil:
		sc := bufio.NewScanner(cmd.Stdin)
		for i := 0; sc.Scan(); i++ {
			answer := h.clock(i)
			if answer == "" { // the shell hangs up
				return executor.Result{}, nil
			}
			if _, err := io.WriteString(cmd.Stdout, answer+"\n"); err != nil {
				return executor.Result{ExitCode: -1}, err
			}
		}
		return executor.Result{}, nil
	}
	cmd.Sudo = false // sudo lets this host's user in
	return h.local.Run(ctx, cmd)
}

// ran reports whether the host ran a command whose script contains s.
func (h *cannedHost) ran(s string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, x := range h.scripts {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// dateAt prints t as `date +%s.%N` does: seconds since the epoch, a dot,
// nine digits of nanoseconds (date(1)).
func dateAt(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }

// closedPort returns a loopback port nothing listens on (one the kernel
// just handed out and took back).
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}
