package lab

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// mysqlShutdownTimeout bounds the clean MariaDB shutdown on SIGTERM; Down
// waits a little longer before it SIGKILLs the host.
const mysqlShutdownTimeout = 8 * time.Second

// HostInit is PID 1 of a lab host (`orch lab hostinit --name N --root DIR`,
// started by Up inside the host's fresh namespaces). It gives the host its
// own files, /run and hostname, runs sshd, reaps every orphan, and on
// SIGTERM stops MariaDB cleanly and exits, which ends the PID namespace.
func HostInit(args []string) error {
	fset := flag.NewFlagSet("orch lab hostinit", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	name := fset.String("name", "", "host name")
	root := fset.String("root", "", "the host's directory in the lab state dir")
	if err := fset.Parse(args); err != nil {
		return fmt.Errorf("lab hostinit: %w", err)
	}
	if *name == "" || !filepath.IsAbs(*root) || fset.NArg() != 0 {
		return errors.New("lab hostinit: usage: orch lab hostinit --name NAME --root /ABS/HOSTDIR")
	}
	if os.Getpid() != 1 {
		return errors.New("lab hostinit: must run as PID 1 of a lab host; `orch lab up` starts it")
	}
	logger := log.New(os.Stderr, "hostinit "+*name+": ", log.LstdFlags|log.Lmicroseconds)
	if err := setupHost(*name, filepath.Join(*root, fsDirName)); err != nil {
		return fmt.Errorf("lab hostinit %s: %w", *name, err)
	}
	logger.Print("namespaces ready")
	supervise(logger)
	return nil
}

// setupHost makes the host's view of the filesystem: private mounts, the
// per-host overlays, a fresh /run, its hostname and loopback.
func setupHost(name, fsRoot string) error {
	// Nothing mounted here may propagate back to the control machine.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	// Open every source before mounting anything: the state dir may live
	// under a path that is itself overlaid (/tmp in tests), and a mount via
	// /proc/self/fd does not depend on the order of the mounts.
	type bind struct {
		fd     int
		target string
	}
	var binds []bind
	defer func() {
		for _, b := range binds {
			unix.Close(b.fd)
		}
	}()
	targets := append(append([]string(nil), overlayDirs...), overlayFiles...)
	for _, target := range optionalOverlayDirs {
		// Only the hosts whose tree has them (a server tree's programs).
		if _, err := os.Lstat(filepath.Join(fsRoot, target)); err == nil {
			targets = append(targets, target)
		}
	}
	for _, target := range targets {
		src := filepath.Join(fsRoot, target)
		fd, err := unix.Open(src, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", src, err)
		}
		binds = append(binds, bind{fd, target})
		if err := sameKind(fd, target); err != nil {
			return err
		}
	}
	for _, b := range binds {
		if err := unix.Mount("/proc/self/fd/"+strconv.Itoa(b.fd), b.target, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind-mount over %s: %w", b.target, err)
		}
	}
	// Copies of the mounts under /run include every lab's /run/netns/*
	// handles; detached, this host holds no other host's network namespace
	// alive, and the tmpfs below starts from nothing.
	if err := detachMountsUnder("/run"); err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", "/run", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=64m"); err != nil {
		return fmt.Errorf("mount tmpfs on /run: %w", err)
	}
	mysqlUID, mysqlGID, err := lookupIDs("mysql")
	if err != nil {
		return err
	}
	for _, d := range []struct {
		path     string
		mode     os.FileMode
		uid, gid int
	}{
		{"/run/mysqld", 0o755, mysqlUID, mysqlGID},
		{"/run/sshd", 0o755, 0, 0}, // sshd's privilege-separation chroot
		{"/run/lock", os.ModeSticky | 0o777, 0, 0},
	} {
		if err := mkdirOwned(d.path, d.mode, d.uid, d.gid); err != nil {
			return err
		}
	}
	if err := unix.Sethostname([]byte(name)); err != nil {
		return fmt.Errorf("set hostname: %w", err)
	}
	if _, err := output(context.Background(), nil, "ip", "link", "set", "dev", "lo", "up"); err != nil {
		return err
	}
	return nil
}

// detachMountsUnder lazily unmounts every mount at or below dir, deepest
// first.
func detachMountsUnder(dir string) error {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	points := mountPointsUnder(string(b), dir)
	for _, mp := range points {
		if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("unmount %s: %w", mp, err)
		}
	}
	return nil
}

// mountPointsUnder lists the mount points (field 5 of mountinfo) at or
// below dir, deepest first. Octal escapes (\040 for a space) are decoded.
func mountPointsUnder(mountinfo, dir string) []string {
	var points []string
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMountinfo(f[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			points = append(points, mp)
		}
	}
	sort.SliceStable(points, func(i, j int) bool { return len(points[i]) > len(points[j]) })
	return points
}

func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sameKind checks that an overlay source and its target are both
// directories or both files: a bind mount of one over the other fails with
// an unhelpful error.
func sameKind(fd int, target string) error {
	var src, dst unix.Stat_t
	if err := unix.Fstat(fd, &src); err != nil {
		return fmt.Errorf("stat overlay for %s: %w", target, err)
	}
	if err := unix.Stat(target, &dst); err != nil {
		return fmt.Errorf("overlay target %s: %w", target, err)
	}
	if (src.Mode&unix.S_IFMT == unix.S_IFDIR) != (dst.Mode&unix.S_IFMT == unix.S_IFDIR) {
		return fmt.Errorf("overlay for %s: source and target are not the same kind of file", target)
	}
	return nil
}

// supervise runs sshd (restarting it if it dies), reaps every child and
// orphan, and returns after a clean shutdown on SIGTERM or SIGINT.
func supervise(logger *log.Logger) {
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, unix.SIGTERM, unix.SIGINT, unix.SIGCHLD)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()

	sshdPID, nextStart := 0, time.Now()
	startSSHD := func() {
		pid, err := spawnSSHD()
		if err != nil {
			logger.Printf("start sshd: %v (retrying in 1s)", err)
			nextStart = time.Now().Add(time.Second)
			return
		}
		sshdPID = pid
		logger.Printf("sshd started (pid %d)", pid)
	}
	startSSHD()
	for {
		select {
		case s := <-sigs:
			if s == unix.SIGTERM || s == unix.SIGINT {
				logger.Printf("%v: shutting down", s)
				shutdown(logger, sshdPID)
				return
			}
		case <-tick.C:
		}
		// Reap on every wake-up: SIGCHLD coalesces, so one signal may stand
		// for many exits.
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
			if pid == sshdPID {
				logger.Printf("sshd exited (%s); restarting in 1s", describeWait(ws))
				sshdPID, nextStart = 0, time.Now().Add(time.Second)
			}
		}
		if sshdPID == 0 && !time.Now().Before(nextStart) {
			startSSHD()
		}
	}
}

// spawnSSHD starts sshd in the foreground logging to /var/log/sshd.log.
// Only its PID is kept: the supervise loop reaps it with the orphans.
func spawnSSHD() (int, error) {
	logf, err := os.OpenFile("/var/log/sshd.log", os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return 0, err
	}
	defer devnull.Close()
	p, err := os.StartProcess("/usr/sbin/sshd", []string{"/usr/sbin/sshd", "-D", "-e", "-f", "/etc/ssh/sshd_config"},
		&os.ProcAttr{
			Dir:   "/",
			Env:   cleanEnv(),
			Files: []*os.File{devnull, logf, logf},
			Sys:   &unix.SysProcAttr{Setsid: true},
		})
	if err != nil {
		return 0, err
	}
	pid := p.Pid
	_ = p.Release() // reaped by Wait4(-1), never through this handle
	return pid, nil
}

// shutdown stops sshd and, if a server is running, MariaDB, then returns so
// PID 1 can exit (the kernel then kills whatever is left in the namespace).
func shutdown(logger *log.Logger, sshdPID int) {
	if sshdPID > 0 {
		_ = unix.Kill(sshdPID, unix.SIGTERM)
	}
	if _, err := os.Stat("/run/mysqld/mysqld.pid"); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), mysqlShutdownTimeout+time.Second)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, "mariadb-admin", "--connect-timeout=2",
		"--shutdown-timeout="+strconv.Itoa(int(mysqlShutdownTimeout.Seconds())), "shutdown")
	cmd.Env = cleanEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		logger.Printf("mariadb shutdown: %v: %s", err, lastLines(string(out), 3))
		return
	}
	logger.Printf("mariadb stopped (%.1fs)", time.Since(start).Seconds())
}

func describeWait(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "exit status " + strconv.Itoa(ws.ExitStatus())
}
