package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A systemd lab host's directories under its host dir: the overlay's
// writable layer and work dir, and the merged root the container boots.
// Everything a host writes (/etc, /var, the datadir) lands in its upper
// dir; the base tree is the shared, never-written lower layer.
const (
	sdUpperName   = "upper"
	sdWorkName    = "work"
	sdRootName    = "root"
	sdConsoleName = "console.log" // the container's console (boot messages)
)

// sdBootTimeout bounds a host's boot to multi-user: about 10 s alone, more
// with four hosts starting on two cores.
const sdBootTimeout = 3 * time.Minute

// sdDownGrace is how long Down lets a container power off (systemd stops
// MariaDB cleanly, then every other unit) before SIGKILL.
const sdDownGrace = 30 * time.Second

// CheckSystemdPaths refuses a state or cache dir the systemd lab cannot
// use as an overlay layer: overlayfs splits its options on commas and its
// lower dirs on colons.
func CheckSystemdPaths(cfg Config) error {
	cfg = cfg.withDefaults()
	for _, d := range []struct{ flag, path string }{{"--state-dir", cfg.StateDir}, {"--cache-dir", cfg.CacheDir}} {
		if strings.ContainsAny(d.path, ",:") {
			return fmt.Errorf("%s %s: the systemd lab's overlays cannot use a path with ',' or ':'", d.flag, d.path)
		}
	}
	return nil
}

// mountHostRoot mounts the host's root: an overlay of its own upper dir on
// the shared base tree.
func mountHostRoot(base, hostDir string) (string, error) {
	upper, work, root := filepath.Join(hostDir, sdUpperName), filepath.Join(hostDir, sdWorkName), filepath.Join(hostDir, sdRootName)
	// overlayfs splits its options on commas and lower dirs on colons
	// (CheckSystemdPaths refuses such dirs up front).
	for _, d := range []string{base, upper, work} {
		if strings.ContainsAny(d, ",:") {
			return "", fmt.Errorf("overlay layer %s: a path with ',' or ':' cannot be used", d)
		}
	}
	for _, d := range []string{upper, work, root} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	opts := "lowerdir=" + base + ",upperdir=" + upper + ",workdir=" + work
	if err := syscall.Mount("overlay", root, "overlay", 0, opts); err != nil {
		return "", fmt.Errorf("mount overlay on %s (%s): %w", root, opts, err)
	}
	return root, nil
}

// unmountHostRoot undoes mountHostRoot; not mounted is fine. It fails
// rather than leave a mount under the state dir that Down would then walk
// into.
func unmountHostRoot(root string) error {
	if root == "" || !isMountPoint(root) {
		return nil
	}
	var err error
	for i := 0; i < 20; i++ {
		if err = syscall.Unmount(root, 0); err == nil || !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(250 * time.Millisecond) // the container's last processes are exiting
	}
	if err != nil {
		return fmt.Errorf("unmount %s: %w", root, err)
	}
	return nil
}

// isMountPoint reports whether path is a mount point in this mount
// namespace.
func isMountPoint(path string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, mp := range mountPointsUnder(string(b), path) {
		if mp == path {
			return true
		}
	}
	return false
}

// writeSystemdHostFiles gives a host what must be its own on top of the
// stock tree: name, lab names in /etc/hosts, machine id, SSH host keys,
// root's authorized_keys and (MySQL) no shared server UUID. On the load box the server is masked (it only
// needs the clients and sysbench). It returns the host's known_hosts lines.
func writeSystemdHostFiles(ctx context.Context, root string, spec hostSpec, ip netip.Addr, plan addrPlan, clientPub []byte) (string, error) {
	p := func(path string) string { return filepath.Join(root, path) }
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	files := []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{"/etc/hostname", []byte(spec.name + "\n"), 0o644},
		{"/etc/hosts", []byte(renderEtcHosts(plan)), 0o644},
		{"/etc/machine-id", []byte(hex.EncodeToString(id) + "\n"), 0o444},
		{"/root/.ssh/authorized_keys", clientPub, 0o600},
	}
	if err := mkdirOwned(p("/root/.ssh"), 0o700, 0, 0); err != nil {
		return "", err
	}
	for _, f := range files {
		if err := writeFileOwned(p(f.path), f.data, f.mode, 0, 0); err != nil {
			return "", err
		}
	}
	// MySQL's datadir, made once in the tree by the package, holds the
	// server's UUID (auto.cnf): hosts sharing it refuse to replicate
	// (error 13117). Without it each server makes its own at first start.
	if err := os.Remove(p("/var/lib/mysql/auto.cnf")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("server UUID: %w", err)
	}
	if spec.role == "loadbox" {
		if err := os.Symlink("/dev/null", p("/etc/systemd/system/mariadb.service")); err != nil {
			return "", fmt.Errorf("mask mariadb.service: %w", err)
		}
	}
	// -A makes every default key type a stock host has, under root/etc/ssh.
	if _, err := output(ctx, nil, "ssh-keygen", "-A", "-f", root); err != nil {
		return "", fmt.Errorf("host keys: %w", err)
	}
	pubs, err := filepath.Glob(p("/etc/ssh/ssh_host_*_key.pub"))
	if err != nil || len(pubs) == 0 {
		return "", fmt.Errorf("host keys: none made in %s", p("/etc/ssh"))
	}
	var b strings.Builder
	for _, pub := range pubs {
		line, err := os.ReadFile(pub)
		if err != nil {
			return "", err
		}
		if f := strings.Fields(string(line)); len(f) >= 2 {
			fmt.Fprintf(&b, "%s %s %s\n", ip, f[0], f[1])
		}
	}
	return b.String(), nil
}

// startContainer boots a host: systemd-nspawn, in its own session, runs the
// tree's systemd as PID 1 in the host's network namespace. Not registered
// with machined and kept in the caller's unit, because this machine's PID 1
// need not be systemd. The console goes to console.log. It returns
// nspawn's PID and start time.
//
// With cgroup (a cgroup2 dir, for a tree whose systemd refuses the legacy
// hierarchy) nspawn starts in that cgroup and is told to give the
// container the unified hierarchy: its subtree of that dir.
func startContainer(root, netns, name, hostDir string, cgroup *os.File) (int, uint64, error) {
	var env []string
	if cgroup != nil {
		env = []string{"SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1"}
	}
	return spawnDetachedIn(filepath.Join(hostDir, sdConsoleName), cgroup, env, "systemd-nspawn", nspawnArgs(root, netns, name)...)
}

// nspawnArgs boots root with systemd as PID 1. The journal stays in the
// container (as on a real host), resolv.conf and the time zone are the
// tree's own, and SIGTERM to nspawn powers the container off cleanly.
func nspawnArgs(root, netns, name string) []string {
	return []string{
		"--quiet", "--boot", "--directory=" + root,
		"--register=no", "--keep-unit",
		"--machine=" + netns, "--hostname=" + name,
		"--network-namespace-path=" + filepath.Join("/run/netns", netns),
		"--console=read-only", "--link-journal=no", "--resolv-conf=off", "--timezone=off",
	}
}

// containerPID1 returns the container's PID 1 (as the root namespace
// numbers it): the child of the recorded nspawn process.
func containerPID1(h HostState) (int, error) {
	if !alive(h.PID, h.PIDStart) {
		return 0, fmt.Errorf("%s %s: host is not running (no live systemd-nspawn)", h.Name, h.IP)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", h.PID, h.PID))
	if err != nil {
		return 0, fmt.Errorf("%s %s: find PID 1: %w", h.Name, h.IP, err)
	}
	for _, f := range strings.Fields(string(b)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			continue
		}
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err == nil && strings.TrimSpace(string(comm)) == "systemd" {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("%s %s: container has no systemd PID 1 (yet)", h.Name, h.IP)
}

// pid1Of finds a host's PID 1 in either kind of lab.
func pid1Of(kind string, h HostState) (int, error) {
	if kind == KindSystemd {
		return containerPID1(h)
	}
	return hostPID1(h)
}

// waitBooted waits until the container's systemd reaches multi-user
// ("running", or "degraded" when some unit failed), then checks that sshd
// and, on database hosts, the server's unit are active; a failed one is
// reported with its journal lines.
func waitBooted(ctx context.Context, h HostState, dbUnit, hostDir string, p *progress) (string, error) {
	start := time.Now()
	deadline := start.Add(sdBootTimeout)
	lastNote := start
	state := ""
	for {
		if !alive(h.PID, h.PIDStart) {
			return "", fmt.Errorf("container exited: %s", tailFile(filepath.Join(hostDir, sdConsoleName), 5))
		}
		if pid1, err := containerPID1(h); err == nil {
			out, _ := nsenter(ctx, pid1, nil, "systemctl", "is-system-running")
			state = strings.TrimSpace(string(out))
			if state == "running" || state == "degraded" {
				break
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("not booted after %s (systemd says %q); see %s", sdBootTimeout, state,
				filepath.Join(hostDir, sdConsoleName))
		}
		if time.Since(lastNote) >= 10*time.Second {
			p.hostf(h, "still booting (systemd says %q, %.0fs)", state, time.Since(start).Seconds())
			lastNote = time.Now()
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	pid1, err := containerPID1(h)
	if err != nil {
		return "", err
	}
	units := []string{"ssh.service"}
	if h.IsDB() {
		units = append(units, dbUnit)
	}
	for _, u := range units {
		if err := ensureActive(ctx, pid1, h, u, p); err != nil {
			return "", err
		}
	}
	if state == "degraded" {
		failed, _ := nsenter(ctx, pid1, nil, "systemctl", "list-units", "--failed", "--plain", "--no-legend")
		state += " (failed: " + strings.Join(firstFields(string(failed)), ", ") + ")"
	}
	return state, nil
}

// ensureActive checks that a unit the host must run is active after boot.
// Under the legacy cgroup hierarchy a container's database unit now and
// then failed its first start at boot: systemd could not clean the cgroup
// of a start that mariadb.socket had triggered ("Failed to kill control
// group ...: Input/output error") and the unit's next start failed before
// running anything (control process status 219/CGROUP; see bookwormTree,
// which now boots in the unified hierarchy). Should a unit still fail at
// boot, the lab starts it once more and says so with the failed start's
// journal (the evidence of what happened): the server is stock and the
// failed start changed none of its files. A unit that fails twice is an
// error.
func ensureActive(ctx context.Context, pid1 int, h HostState, unit string, p *progress) error {
	if _, err := nsenter(ctx, pid1, nil, "systemctl", "is-active", "--quiet", unit); err == nil {
		return nil
	}
	first, _ := nsenter(ctx, pid1, nil, "journalctl", "-b", "-u", unit, "-n", "12", "--no-pager", "-o", "cat")
	p.hostf(h, "%s failed at boot; starting it again. Its journal: %s", unit, lastLines(string(first), 12))
	_, _ = nsenter(ctx, pid1, nil, "systemctl", "reset-failed", unit)
	if _, err := nsenterTimeout(ctx, 2*time.Minute, pid1, nil, "systemctl", "start", unit); err == nil {
		if _, err := nsenter(ctx, pid1, nil, "systemctl", "is-active", "--quiet", unit); err == nil {
			p.hostf(h, "%s active on its second start", unit)
			return nil
		}
	}
	journal, _ := nsenter(ctx, pid1, nil, "journalctl", "-b", "-u", unit, "-n", "8", "--no-pager", "-o", "cat")
	return fmt.Errorf("%s is not active after boot, nor after a second start: %s", unit, lastLines(string(journal), 8))
}

// firstFields returns the first word of each non-empty line.
func firstFields(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}

// stopContainer powers a host off: SIGTERM to nspawn (which asks the
// container's systemd to power off: MariaDB stops cleanly), then, after
// grace, SIGKILL to the container's PID 1 (taking its PID namespace down)
// and to nspawn. Only the recorded PID (checked against its start time)
// and its child are signalled. forced reports that SIGKILL was needed.
func stopContainer(h HostState, grace time.Duration) (forced bool, err error) {
	if !alive(h.PID, h.PIDStart) {
		return false, nil
	}
	pid1, pidErr := containerPID1(h)
	_ = syscall.Kill(h.PID, syscall.SIGTERM)
	if waitGone(h.PID, h.PIDStart, grace) {
		return false, nil
	}
	if pidErr == nil {
		_ = syscall.Kill(pid1, syscall.SIGKILL)
	}
	_ = syscall.Kill(h.PID, syscall.SIGKILL)
	if !waitGone(h.PID, h.PIDStart, 5*time.Second) {
		return true, fmt.Errorf("%s %s: systemd-nspawn %d survived SIGKILL", h.Name, h.IP, h.PID)
	}
	return true, nil
}

// unmountHosts unmounts every stopped systemd lab host's root and removes
// the propagation dir nspawn keeps under its machine name.
func unmountHosts(st *State) []error {
	var errs []error
	for _, h := range st.Hosts {
		if alive(h.PID, h.PIDStart) {
			continue // stopHosts reported it; its root is still in use
		}
		if err := unmountHostRoot(h.Mount); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", h.Name, h.IP, err))
			continue
		}
		// Down deletes the host dir next: never through a mount.
		if b, err := os.ReadFile("/proc/self/mountinfo"); err == nil && h.Mount != "" {
			if left := mountPointsUnder(string(b), filepath.Dir(h.Mount)); len(left) > 0 {
				errs = append(errs, fmt.Errorf("%s %s: still mounted: %s", h.Name, h.IP, strings.Join(left, ", ")))
			}
		}
		if h.Netns != "" {
			_ = os.Remove(filepath.Join("/run/systemd/nspawn/propagate", h.Netns)) // only if empty
		}
		if err := removeHostCgroup(h.Cgroup); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", h.Name, h.IP, err))
		}
	}
	return errs
}
