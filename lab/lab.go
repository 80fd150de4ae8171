// Package lab builds the local test lab: four hosts (master, slave1,
// slave2, loadbox) on this machine, each in its own network, mount, UTS,
// IPC and PID namespaces, joined by a bridge, each with its own sshd and
// (except the load box) its own running MariaDB. Every integration test and
// demo of orch runs against it through the generated inventories.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Defaults for Config.
const (
	DefaultStateDir  = "/var/lib/orch-lab"
	DefaultSubnet    = "10.99.0.0/24"
	DefaultInventory = "inventories/lab.yaml"
)

// Files in the state dir.
const (
	stateFile      = "state.json"
	exeName        = "orch"           // copy of the binary the hosts' PID 1 runs
	clientKeyName  = "id_ed25519"     // root's key on every host
	knownHostsName = "known_hosts"    // every host's key, by IP
	mysqlPassName  = "mysql-password" // orch's MariaDB password
	benchPassName  = "bench-password" // the bench user's login and sudo password
	hostsDirName   = "hosts"          // per-host trees
	hostLogName    = "hostinit.log"   // PID 1's log, in the root namespace
)

// benchUser is the unprivileged login on every host.
const benchUser = "bench"

// passwordInventoryName is written next to the main inventory.
const passwordInventoryName = "lab-password.yaml"

// downGrace is how long Down lets a host shut MariaDB down cleanly.
const downGrace = 10 * time.Second

// ErrNotUp is returned (wrapped) when the state dir holds no lab.
var ErrNotUp = errors.New("lab is not up")

// Config says where the lab lives. Zero values take the defaults.
type Config struct {
	StateDir string
	// Subnet is where Up builds the lab; empty means the running lab's
	// subnet, or DefaultSubnet when there is none.
	Subnet string
	// InventoryPath is the root inventory (lab.yaml); lab-password.yaml
	// goes next to it. Relative paths are relative to the current dir.
	InventoryPath string
	// Systemd makes Up build the systemd lab: each host a container booting
	// a stock Debian 12 tree with systemd as PID 1 (see systemd_up.go).
	Systemd bool
	// Flavor is FlavorMySQL for the MySQL lab: a systemd lab (whatever
	// Systemd says) whose database hosts boot MySQL 9.7 from a Debian sid
	// tree (mysql_lab.go). Empty or FlavorMariaDB: the MariaDB labs.
	Flavor string
	// ServerArchive names a server tree archive for a flavour built from
	// source (the TokuDB lab); ServerSHA256 is its checksum, else the
	// SHA256SUMS file beside it is read. Empty: ArchiveEnv, then the
	// cache, then a build.
	ServerArchive, ServerSHA256 string
	// CacheDir keeps the systemd lab's base tree between runs (default
	// DefaultCacheDir); Down never removes it.
	CacheDir string
	// LoadBoxes is how many load boxes the lab has (0 means 1): loadbox,
	// then loadbox2 ... at the next addresses, all in the one cluster.
	LoadBoxes int
	// serverTree and jemalloc are the server tree Up found or made for a
	// flavour built from source, and the library its mysqld_safe preloads.
	serverTree, jemalloc string
	// Out receives one progress line per step.
	Out io.Writer
}

func (c Config) withDefaults() Config {
	if c.StateDir == "" {
		c.StateDir = DefaultStateDir
	}
	if c.InventoryPath == "" {
		c.InventoryPath = DefaultInventory
	}
	if c.CacheDir == "" {
		c.CacheDir = DefaultCacheDir
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if flavorOf(c.Flavor).systemd {
		c.Systemd = true
	}
	if abs, err := filepath.Abs(c.StateDir); err == nil {
		c.StateDir = abs
	}
	if abs, err := filepath.Abs(c.InventoryPath); err == nil {
		c.InventoryPath = abs
	}
	return c
}

func (c Config) path(name string) string { return filepath.Join(c.StateDir, name) }

func (c Config) hostDir(host string) string { return filepath.Join(c.StateDir, hostsDirName, host) }

func (c Config) inventoryPaths() []string {
	return []string{c.InventoryPath, filepath.Join(filepath.Dir(c.InventoryPath), passwordInventoryName)}
}

func requireRoot() error {
	if os.Geteuid() != 0 {
		return errors.New("lab: must run as root (it creates network namespaces and mounts); try: sudo orch lab ...")
	}
	return nil
}

func notUp(cfg Config, err error) error {
	if errors.Is(err, errNoState) {
		return fmt.Errorf("%w: no lab state in %s; start one with `orch lab up`", ErrNotUp, cfg.StateDir)
	}
	return err
}

// Down stops every host (MariaDB cleanly, then SIGKILL after a grace
// period) and removes exactly what the state records: namespaces, veths,
// the bridge, the systemd lab's overlays, generated inventories and the
// state dir's files (never the systemd lab's cached base tree). It is
// idempotent: a half-made lab or no lab at all is fine. The state file is
// kept if anything could not be removed, so a retry knows what is left.
func Down(ctx context.Context, cfg Config) error {
	if err := requireRoot(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	p := newProgress(cfg.Out)
	start := time.Now()
	st, err := readState(cfg.StateDir)
	if errors.Is(err, errNoState) {
		p.printf("lab: nothing to tear down (no lab state in %s)", cfg.StateDir)
		return nil
	}
	if err != nil {
		return err
	}
	errs := stopHosts(st, p)
	if st.Kind == KindSystemd {
		errs = append(errs, unmountHosts(st)...)
	}
	for _, h := range st.Hosts {
		if err := deleteLink(ctx, h.Veth); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", h.Name, h.IP, err))
		}
		if err := deleteNetns(ctx, h.Netns); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", h.Name, h.IP, err))
		}
	}
	if err := deleteLink(ctx, st.Bridge); err != nil {
		errs = append(errs, err)
	}
	p.printf("lab: network removed")
	for _, f := range st.Files {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for i := len(st.Dirs) - 1; i >= 0; i-- {
		_ = os.Remove(st.Dirs[i]) // only if empty: the user may have added files
	}
	if len(errs) > 0 {
		return fmt.Errorf("lab down: %w (state kept in %s; run again to retry)", errors.Join(errs...), cfg.StateDir)
	}
	if err := removeStateDir(cfg); err != nil {
		return err
	}
	p.printf("lab: down (%.1fs)", time.Since(start).Seconds())
	return nil
}

// stopHosts stops every recorded host in parallel.
func stopHosts(st *State, p *progress) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, h := range st.Hosts {
		if h.PID == 0 {
			continue
		}
		wg.Add(1)
		go func(h HostState) {
			defer wg.Done()
			t := time.Now()
			stop, grace := stopHost, downGrace
			if st.Kind == KindSystemd {
				stop, grace = stopContainer, sdDownGrace
			}
			forced, err := stop(h, grace)
			switch {
			case err != nil:
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			case forced:
				p.step(h, fmt.Sprintf("killed: no clean shutdown within %s", grace), t)
			default:
				p.step(h, "stopped", t)
			}
		}(h)
	}
	wg.Wait()
	return errs
}

// removeStateDir deletes the files the lab put in the state dir, then the
// dir itself if nothing else is in it: the dir is user-chosen, so nothing
// the lab did not make is ever removed.
func removeStateDir(cfg Config) error {
	for _, name := range []string{
		hostsDirName, exeName, clientKeyName, clientKeyName + ".pub", knownHostsName,
		mysqlPassName, benchPassName,
	} {
		if err := os.RemoveAll(cfg.path(name)); err != nil {
			return fmt.Errorf("lab down: %w", err)
		}
	}
	if err := os.Remove(cfg.path(stateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("lab down: %w", err)
	}
	if err := os.Remove(cfg.StateDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("lab down: state dir %s not removed: %w", cfg.StateDir, err)
	}
	return nil
}

// progress writes one line per step; hosts report concurrently.
type progress struct {
	mu sync.Mutex
	w  io.Writer
}

func newProgress(w io.Writer) *progress { return &progress{w: w} }

func (p *progress) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, format+"\n", args...)
}

// hostf prints "lab: NAME IP: message".
func (p *progress) hostf(h HostState, format string, args ...any) {
	p.printf("lab: %s %s: %s", h.Name, h.IP, fmt.Sprintf(format, args...))
}

// step prints "lab: NAME IP: message (1.2s)".
func (p *progress) step(h HostState, msg string, since time.Time) {
	p.hostf(h, "%s (%.1fs)", msg, time.Since(since).Seconds())
}
