package lab

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DefaultCacheDir keeps the systemd lab's base tree between runs: building
// it takes about two minutes and 0.7 GB, so it is built once per
// machine and `lab down` leaves it.
const DefaultCacheDir = "/var/cache/orch-lab"

// baseSuite is the Debian release every systemd lab host runs.
const baseSuite = "bookworm"

// basePackages are installed by apt (through debootstrap) exactly as a
// user's host has them: the stock server, sshd and the tools orch runs on a
// host (procps for uptime, sysbench for the load box). Every host gets the
// same tree; the load box's server is masked.
var basePackages = []string{
	"systemd", "systemd-sysv", "openssh-server", "mariadb-server", "mariadb-plugin-rocksdb",
	"iproute2", "sudo", "procps", "sysbench",
}

// baseStampSuffix names the file that sits next to a finished tree and says what it was built
// from; a tree without one is a leftover of an interrupted build.
const baseStampSuffix = ".json"

// baseStamp describes a finished base tree.
type baseStamp struct {
	Suite    string    `json:"suite"`
	Variant  string    `json:"variant"`
	Packages []string  `json:"packages"`
	Mirror   string    `json:"mirror"`
	Built    time.Time `json:"built"`
	Seconds  float64   `json:"build_seconds"`
	Bytes    int64     `json:"bytes"`
}

// treeSpec is one kind of cached Debian tree: the systemd lab's bookworm
// tree, or the MySQL lab's sid tree (mysql_lab.go).
type treeSpec struct {
	suite    string
	packages []string
	// probe is a file every finished tree of this kind has (its server).
	probe string
	// about is what a build costs, for the message before it starts.
	about string
	// unifiedCgroup: the tree's systemd refuses the legacy cgroup hierarchy
	// nspawn gives it on a machine that is not cgroup2-only.
	unifiedCgroup bool
	// dbUnit is the database server's systemd unit.
	dbUnit string
}

// bookwormTree is the systemd lab's tree: every host of the MariaDB lab,
// and the MySQL lab's load box. It boots in a unified cgroup hierarchy
// too: under the legacy one nspawn gives it on a hybrid machine, systemd
// could not clean a unit's cgroup after its process exited ("Failed to
// kill control group ...: Input/output error") and the next start of
// that unit within a second failed before running anything (control
// process status 219/CGROUP): seen here in 1 of 2 orch up rollbacks, in CI
// as TestSystemdStockHosts's rollback and as a database unit failing at
// boot.
var bookwormTree = treeSpec{suite: baseSuite, packages: basePackages, probe: "usr/sbin/mariadbd",
	about: "about 2 min and 0.7 GB", dbUnit: "mariadb.service", unifiedCgroup: true}

// dir is where the cache keeps a tree of this kind: the key covers the
// suite and the package set, so a changed list builds a new tree.
func (t treeSpec) dir(cacheDir string) string {
	key := sha256.Sum256([]byte(t.suite + " minbase " + strings.Join(t.packages, ",")))
	return filepath.Join(cacheDir, t.suite+"-"+hex.EncodeToString(key[:4]))
}

// baseTree returns the cached bookworm tree (see tree).
func baseTree(ctx context.Context, cacheDir string, p *progress) (string, error) {
	return tree(ctx, cacheDir, bookwormTree, p)
}

// tree returns the cached tree of spec t, building it first when the
// cache has none for its package set. Concurrent labs on one machine wait
// for each other's build (a lock file in the cache dir) instead of racing.
func tree(ctx context.Context, cacheDir string, t treeSpec, p *progress) (string, error) {
	dir := t.dir(cacheDir)
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("base tree cache: %w", err)
	}
	lock, err := os.OpenFile(dir+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("base tree cache: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		p.printf("lab: waiting for another orch building the base tree %s", dir)
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
			return "", fmt.Errorf("base tree cache: lock %s: %w", dir+".lock", err)
		}
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	if _, err := os.Stat(dir + baseStampSuffix); err == nil {
		st, err := readBaseStamp(dir, t.probe)
		if err != nil {
			// A finished tree may be a running lab's lower layer: never
			// delete it on a guess.
			return "", fmt.Errorf("%w; when no systemd lab uses it, remove it and %s to rebuild", err, dir+baseStampSuffix)
		}
		p.printf("lab: base tree %s (Debian %s, built %s from %s)", dir, st.Suite,
			st.Built.UTC().Format(time.RFC3339), st.Mirror)
		return dir, nil
	}
	src, err := mirrorFor(t.suite)
	if err != nil {
		return "", err
	}
	// A tree without a stamp is an interrupted build: never trust it.
	if err := removeTree(dir); err != nil {
		return "", fmt.Errorf("base tree: remove unfinished %s: %w", dir, err)
	}
	return dir, buildBaseTree(ctx, dir, t, src, p)
}

// readBaseStamp reads a finished tree's stamp and checks the tree is there.
func readBaseStamp(dir, probe string) (*baseStamp, error) {
	b, err := os.ReadFile(dir + baseStampSuffix)
	if err != nil {
		return nil, err
	}
	var st baseStamp
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("base tree stamp %s: %w", dir+baseStampSuffix, err)
	}
	if _, err := os.Stat(filepath.Join(dir, probe)); err != nil {
		return nil, fmt.Errorf("base tree %s: %w", dir, err)
	}
	return &st, nil
}

// buildBaseTree runs debootstrap into a temporary dir next to dir and
// renames it into place when it is complete, then writes the stamp. A
// progress line every 10 s shows what debootstrap is doing.
func buildBaseTree(ctx context.Context, dir string, t treeSpec, src aptSource, p *progress) error {
	start := time.Now()
	tmp := dir + ".building"
	if err := removeTree(tmp); err != nil {
		return fmt.Errorf("base tree: %w", err)
	}
	args := []string{"--variant=minbase", "--include=" + strings.Join(t.packages, ",")}
	if src.signedBy != "" {
		args = append(args, "--keyring="+src.signedBy)
	}
	args = append(args, t.suite, tmp, src.uri)
	p.printf("lab: building the Debian %s base tree with debootstrap from %s (%s); %s, once per machine",
		t.suite, src.uri, src.origin, t.about)
	// debootstrap prints "Unpacking the base system..." for a minute while
	// dpkg works: the tree's size shows that it moves.
	size := func() string { return fmt.Sprintf("%.0f MB so far", float64(treeBytes(tmp))/1e6) }
	if err := runWithProgress(ctx, p, "base tree", size, "debootstrap", args...); err != nil {
		if rerr := removeTree(tmp); rerr != nil {
			return fmt.Errorf("base tree: %w (and: %v)", err, rerr)
		}
		return fmt.Errorf("base tree: %w", err)
	}
	if err := prepareBaseTree(tmp); err != nil {
		if rerr := removeTree(tmp); rerr != nil {
			return fmt.Errorf("base tree: %w (and: %v)", err, rerr)
		}
		return fmt.Errorf("base tree: %w", err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("base tree: %w", err)
	}
	total := treeBytes(dir)
	st := baseStamp{Suite: t.suite, Variant: "minbase", Packages: t.packages, Mirror: src.uri,
		Built: time.Now().UTC(), Seconds: time.Since(start).Seconds(), Bytes: total}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(dir+baseStampSuffix, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("base tree stamp: %w", err)
	}
	p.printf("lab: base tree %s built in %.1fs (%.1f GB)", dir, st.Seconds, float64(total)/1e9)
	return nil
}

// prepareBaseTree removes what must differ between hosts, so no host can
// ever share it by accident: the package's SSH host keys (each host gets
// its own) and the machine id (each host gets its own, for its journal).
// Nothing else is changed: the rest is the stock state apt left.
func prepareBaseTree(root string) error {
	keys, err := filepath.Glob(filepath.Join(root, "etc/ssh/ssh_host_*"))
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := os.Remove(k); err != nil {
			return err
		}
	}
	// An empty machine-id is what Debian's images ship: systemd fills it at
	// first boot. The lab writes one per host.
	return os.WriteFile(filepath.Join(root, "etc/machine-id"), nil, 0o444)
}

// removeTree deletes an unfinished tree. An interrupted debootstrap can
// leave /proc, /sys and (in containers) bind mounts of the machine's own
// /dev entries inside it: they are detached first, and nothing is deleted
// while any mount is left below dir.
func removeTree(dir string) error {
	if err := detachMountsUnder(dir); err != nil {
		return err
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	if left := mountPointsUnder(string(b), dir); len(left) > 0 {
		return fmt.Errorf("%s still has mounts (%s); unmount them, then retry", dir, strings.Join(left, ", "))
	}
	return os.RemoveAll(dir)
}

// progressEvery is how often runWithProgress reports.
var progressEvery = 10 * time.Second

// runWithProgress runs a long command, keeping its last output line and
// printing it with the elapsed time and more() every 10 s, so no minute is
// silent. A failure carries the last lines of the output.
func runWithProgress(ctx context.Context, p *progress, what string, more func() string, name string, args ...string) error {
	path, err := lookTool(name)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = name
	cmd.Env = cleanEnv()
	return runCmdWithProgress(ctx, p, what, more, cmd, nil)
}

// runCmdWithProgress is runWithProgress for a prepared command (its dir
// and environment set), also copying every output line to log when it is
// not nil.
func runCmdWithProgress(ctx context.Context, p *progress, what string, more func() string, cmd *exec.Cmd, log io.Writer) error {
	name := cmd.Args[0]
	// SIGTERM first: debootstrap's exit trap unmounts what it mounted in
	// the tree; SIGKILL would leave the mounts behind.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var (
		mu   sync.Mutex
		tail []string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64*1024), 1<<20)
		// A line longer than the buffer ends the scan: the rest is drained
		// so that the command never blocks on a full pipe.
		defer io.Copy(io.Discard, pr)
		for sc.Scan() {
			if log != nil {
				fmt.Fprintln(log, sc.Text())
			}
			mu.Lock()
			tail = append(tail, sc.Text())
			if len(tail) > 20 {
				tail = tail[1:]
			}
			mu.Unlock()
		}
	}()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pw.Close()
		return fmt.Errorf("%s: %w", name, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-waited:
			pw.Close()
			<-done
			if err != nil && ctx.Err() != nil {
				return fmt.Errorf("%s: interrupted: %w", name, ctx.Err())
			}
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				return fmt.Errorf("%s: %w: %s", name, err, lastLines(strings.Join(tail, "\n"), 5))
			}
			return nil
		case <-tick.C:
			mu.Lock()
			last := ""
			if len(tail) > 0 {
				last = tail[len(tail)-1]
			}
			mu.Unlock()
			p.printf("lab: %s: %s (%.0fs, %s)", what, strings.TrimSpace(last), time.Since(start).Seconds(), more())
		}
	}
}

// treeBytes sums the sizes of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
