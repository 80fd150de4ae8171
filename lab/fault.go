package lab

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Fault kinds accepted by Fault.
const (
	FaultLinkDown   = "link-down"
	FaultLinkUp     = "link-up"
	FaultKillMysqld = "kill-mysqld"
)

// FaultKinds lists the faults Fault can inject, for help texts.
var FaultKinds = []string{FaultLinkDown, FaultLinkUp, FaultKillMysqld}

// Fault injects a failure into one lab host: link-down/link-up switch the
// root-side end of its veth (cutting it from every other host and the
// control machine, or restoring it); kill-mysqld SIGKILLs mysqld_safe and
// then mariadbd in the host's PID namespace, so the server stays down until
// its start script runs.
func Fault(ctx context.Context, cfg Config, hostName, kind string) error {
	if err := requireRoot(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	st, err := readState(cfg.StateDir)
	if err != nil {
		return notUp(cfg, err)
	}
	h, ok := st.host(hostName)
	if !ok {
		return fmt.Errorf("lab fault: no host %q (hosts: %s)", hostName, strings.Join(hostNames(st), ", "))
	}
	p := newProgress(cfg.Out)
	switch kind {
	case FaultLinkDown, FaultLinkUp:
		if h.Veth == "" || !linkExists(h.Veth) {
			return fmt.Errorf("lab fault: %s %s: its link %q does not exist; is the lab up?", h.Name, h.IP, h.Veth)
		}
		up := kind == FaultLinkUp
		if err := setLink(ctx, h.Veth, up); err != nil {
			return fmt.Errorf("lab fault: %s %s: %w", h.Name, h.IP, err)
		}
		p.hostf(*h, "link %s (%s)", map[bool]string{true: "up", false: "down"}[up], h.Veth)
		return nil
	case FaultKillMysqld:
		if !h.IsDB() {
			return fmt.Errorf("lab fault: %s %s runs no database server", h.Name, h.IP)
		}
		killed, err := killMysqld(st.Kind, st.dbProcess(), *h)
		if err != nil {
			return fmt.Errorf("lab fault: %w", err)
		}
		p.hostf(*h, "killed %s", killed)
		return nil
	}
	return fmt.Errorf("lab fault: unknown fault %q (want one of: %s)", kind, strings.Join(FaultKinds, ", "))
}

// killMysqld SIGKILLs the host's mysqld_safe first (it would restart the
// server within half a second) and then the server (mariadbd, or mysqld in
// the MySQL lab), both found by PID in the
// host's own PID namespace, and waits until they are gone.
//
// In the systemd lab there is no mysqld_safe: the server's unit restarts the
// killed server as it says (Restart=on-abort, on-failure), as on a real host.
func killMysqld(kind, server string, h HostState) (string, error) {
	pid1, err := pid1Of(kind, h)
	if err != nil {
		return "", err
	}
	var killed []string
	var servers []int
	for _, comm := range []string{"mysqld_safe", server} {
		pids, err := nsProcesses(pid1, comm)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", h.Name, h.IP, err)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				return "", fmt.Errorf("%s %s: kill %s (pid %d): %w", h.Name, h.IP, comm, pid, err)
			}
			killed = append(killed, fmt.Sprintf("%s (pid %d)", comm, pid))
		}
		if comm == server {
			servers = pids
		}
	}
	if len(servers) == 0 {
		return "", fmt.Errorf("%s %s: no %s is running", h.Name, h.IP, server)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, err := nsProcesses(pid1, server)
		if err != nil {
			return "", fmt.Errorf("%s %s: %w", h.Name, h.IP, err)
		}
		if len(left) == 0 {
			return strings.Join(killed, ", "), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%s %s: %s still running after SIGKILL (pids %v)", h.Name, h.IP, server, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// nsProcesses lists the root-namespace PIDs of live processes named comm
// in the PID namespace of pid1.
func nsProcesses(pid1 int, comm string) ([]int, error) {
	want, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid1))
	if err != nil {
		return nil, fmt.Errorf("read PID namespace of %d: %w", pid1, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		c, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if err != nil || strings.TrimSpace(string(c)) != comm {
			continue
		}
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
		if err != nil || ns != want {
			continue
		}
		if st, err := readProcStat(pid); err == nil && st.state != 'Z' {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

func hostNames(st *State) []string {
	var names []string
	for _, h := range st.Hosts {
		names = append(names, h.Name)
	}
	return names
}
