package lab

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// procStat is what the lab reads from /proc/PID/stat.
type procStat struct {
	state byte   // R, S, D, Z, ...
	ppid  int    //
	start uint64 // clock ticks after boot
}

// readProcStat parses /proc/PID/stat. The command name is in parentheses
// and may itself hold spaces or parentheses, so fields are counted from
// the last ')'.
func readProcStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procStat{}, err
	}
	return parseProcStat(string(b))
}

func parseProcStat(s string) (procStat, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, errors.New("malformed /proc stat: no command name")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field N is f[N-3].
	if len(f) < 20 || len(f[0]) != 1 {
		return procStat{}, errors.New("malformed /proc stat: too few fields")
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat ppid: %w", err)
	}
	start, err := strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return procStat{}, fmt.Errorf("malformed /proc stat starttime: %w", err)
	}
	return procStat{state: f[0][0], ppid: ppid, start: start}, nil
}

// alive reports whether pid is the running (not zombie) process that was
// recorded with start time start.
func alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	st, err := readProcStat(pid)
	if err != nil {
		return false
	}
	return st.start == start && st.state != 'Z' && st.state != 'X'
}

// hostPID1 returns the host's PID 1 (as the root namespace numbers it): the
// only child of the recorded unshare process.
func hostPID1(h HostState) (int, error) {
	if !alive(h.PID, h.PIDStart) {
		return 0, fmt.Errorf("%s %s: host is not running (no live unshare process)", h.Name, h.IP)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", h.PID, h.PID))
	if err != nil {
		return 0, fmt.Errorf("%s %s: find PID 1: %w", h.Name, h.IP, err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s %s: host has no PID 1", h.Name, h.IP)
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, fmt.Errorf("%s %s: find PID 1: %w", h.Name, h.IP, err)
	}
	if st, err := readProcStat(pid); err != nil || st.state == 'Z' {
		return 0, fmt.Errorf("%s %s: PID 1 is gone", h.Name, h.IP)
	}
	return pid, nil
}

// startHost launches a host: a new session running, inside the host's
// network namespace, unshare with fresh mount, UTS, IPC and PID namespaces
// whose PID 1 is `exe lab hostinit`. It returns the unshare process's PID
// and start time. A goroutine waits for the process, so a long-lived
// caller (a test) is not left holding a zombie once the host stops.
func startHost(exe, netns, name, root, logPath string) (int, uint64, error) {
	return spawnDetached(logPath, "ip", "netns", "exec", netns,
		"unshare", "--mount", "--uts", "--ipc", "--pid", "--fork", "--kill-child",
		"--mount-proc", "--propagation", "private",
		exe, "lab", "hostinit", "--name", name, "--root", root)
}

// spawnDetached starts a long-lived process in its own session, its output
// appended to logPath, and returns its PID and start time. A goroutine
// waits for it, so a long-lived caller (a test) is not left holding a
// zombie once it exits; why it exited is read from the log.
func spawnDetached(logPath, name string, args ...string) (int, uint64, error) {
	return spawnDetachedIn(logPath, nil, nil, name, args...)
}

// spawnDetachedIn is spawnDetached with more environment and, when cgroup
// is not nil, the process started in that cgroup2 dir (clone3's
// CLONE_INTO_CGROUP: it never runs anywhere else).
func spawnDetachedIn(logPath string, cgroup *os.File, env []string, name string, args ...string) (int, uint64, error) {
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, 0, fmt.Errorf("open log %s: %w", logPath, err)
	}
	defer logf.Close() // the child holds its own copy
	path, err := lookTool(name)
	if err != nil {
		return 0, 0, err
	}
	cmd := exec.Command(path, args...)
	cmd.Args[0] = name
	cmd.Env = append(cleanEnv(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cgroup != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cgroup.Fd())
	}
	if err := cmd.Start(); err != nil {
		return 0, 0, fmt.Errorf("start %s: %w", name, err)
	}
	pid := cmd.Process.Pid
	st, err := readProcStat(pid)
	go cmd.Wait() //nolint:errcheck // exit status is read from the log, not here
	if err != nil {
		return pid, 0, fmt.Errorf("start %s: read its start time: %w", name, err)
	}
	return pid, st.start, nil
}

// stopHost asks the host's PID 1 to shut down (it stops MariaDB cleanly)
// and waits up to grace for the unshare process to exit; then SIGKILLs PID
// 1 and unshare (--kill-child and the PID namespace take the rest down).
// Only the recorded PID (checked against its start time) and its child are
// ever signalled. forced reports that SIGKILL was needed.
func stopHost(h HostState, grace time.Duration) (forced bool, err error) {
	if !alive(h.PID, h.PIDStart) {
		return false, nil
	}
	pid1, err := hostPID1(h)
	if err == nil {
		_ = syscall.Kill(pid1, syscall.SIGTERM)
		if waitGone(h.PID, h.PIDStart, grace) {
			return false, nil
		}
		_ = syscall.Kill(pid1, syscall.SIGKILL)
	}
	if alive(h.PID, h.PIDStart) {
		_ = syscall.Kill(h.PID, syscall.SIGKILL)
	}
	if !waitGone(h.PID, h.PIDStart, 5*time.Second) {
		return true, fmt.Errorf("%s %s: process %d survived SIGKILL", h.Name, h.IP, h.PID)
	}
	return true, nil
}

// waitGone polls until the process is gone or d has passed.
func waitGone(pid int, start uint64, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for alive(pid, start) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// nsenter runs argv inside every namespace of the host whose PID 1 is pid1,
// feeding stdin (which is where secrets go, never argv).
func nsenter(ctx context.Context, pid1 int, stdin []byte, argv ...string) ([]byte, error) {
	args := append([]string{"--target", strconv.Itoa(pid1), "--all", "--"}, argv...)
	return output(ctx, stdin, "nsenter", args...)
}

// tcpReachable reports whether something accepts connections on addr.
func tcpReachable(ctx context.Context, addr string, timeout time.Duration) bool {
	d := net.Dialer{Timeout: timeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// waitSSHD polls the host's sshd port until it accepts connections, the
// host dies, or timeout passes.
// logs are where to look when it does not: the first one is the host
// process's own log, whose tail is quoted when that process exits.
func waitSSHD(ctx context.Context, h HostState, timeout time.Duration, logs ...string) error {
	deadline := time.Now().Add(timeout)
	addr := net.JoinHostPort(h.IP, "22")
	for {
		if tcpReachable(ctx, addr, 200*time.Millisecond) {
			return nil
		}
		if !alive(h.PID, h.PIDStart) {
			return fmt.Errorf("host exited: %s", tailFile(logs[0], 5))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sshd not reachable on %s after %s; see %s", addr, timeout, strings.Join(logs, " and "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// tailFile returns the last n lines of a log file on one line, for errors.
func tailFile(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	if len(strings.TrimSpace(string(b))) == 0 {
		return "(" + path + " is empty)"
	}
	return lastLines(string(b), n)
}
