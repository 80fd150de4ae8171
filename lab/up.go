package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
)

// Up builds the lab from scratch, or, when one is already up and healthy,
// only rewrites the inventories. A half-made lab is torn down and rebuilt.
// On failure the lab is left as it is for inspection; Down (or Up again)
// cleans it up.
func Up(ctx context.Context, cfg Config) error {
	if err := requireRoot(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	p := newProgress(cfg.Out)
	st, err := readState(cfg.StateDir)
	if err != nil && !errors.Is(err, errNoState) {
		return err
	}
	subnet := cfg.Subnet
	if subnet == "" && st != nil {
		subnet = st.Subnet // keep the lab where it is
	}
	if subnet == "" {
		subnet = DefaultSubnet
	}
	plan, err := planLab(subnet, max(cfg.LoadBoxes, 1))
	if err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	kind := ""
	if cfg.Systemd {
		kind = KindSystemd
	}
	if st != nil {
		statuses := statusOf(ctx, st)
		if AllHealthy(statuses) && len(statuses) != len(plan.specs) && len(statuses) >= len(labHosts) {
			return fmt.Errorf("lab up: the lab in %s is up with %d hosts, not %d; run `orch lab down` first to change --loadboxes",
				cfg.StateDir, len(statuses), len(plan.specs))
		}
		if AllHealthy(statuses) && len(statuses) == len(plan.specs) {
			if st.Kind != kind || st.Flavor != flavorState(cfg.Flavor) {
				return fmt.Errorf("lab up: the lab in %s is a %s lab; run `orch lab down` first to build a %s lab there",
					cfg.StateDir, labName(st.Kind, st.Flavor), labName(kind, cfg.Flavor))
			}
			if st.Subnet != plan.subnet.String() {
				return fmt.Errorf("lab up: the lab in %s is up on subnet %s; run `orch lab down` first to use %s",
					cfg.StateDir, st.Subnet, plan.subnet)
			}
			p.printf("lab: already up and healthy (%d hosts on %s)", len(statuses), st.Subnet)
			store := &stateStore{dir: cfg.StateDir, s: *st}
			return writeInventories(cfg, store, p)
		}
		p.printf("lab: found a half-made lab in %s; tearing it down", cfg.StateDir)
		if err := Down(ctx, cfg); err != nil {
			return err
		}
	}
	// Nothing is made before these checks pass, so nothing needs cleaning
	// up when they fail.
	tools := requiredTools
	if cfg.Systemd {
		tools = systemdTools
		if err := CheckSystemdPaths(cfg); err != nil {
			return fmt.Errorf("lab up: %w", err)
		}
	}
	if err := checkTools(tools); err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	names := namesFor(cfg.StateDir)
	if err := checkNamesFree(names, plan.specs); err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	if err := reclaimLeftovers(ctx, cfg, plan.subnet, p); err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	if err := checkSubnetFree(ctx, plan.subnet); err != nil {
		return fmt.Errorf("lab up: %w", err)
	}
	if f := flavorOf(cfg.Flavor); f.build != nil {
		// Before anything of the lab exists: a build that fails leaves
		// nothing to clean up but its log.
		if cfg.jemalloc, err = findJemalloc(); err != nil {
			return fmt.Errorf("lab up: %w", err)
		}
		if cfg.serverTree, err = serverTree(ctx, cfg, *f.build, p); err != nil {
			return fmt.Errorf("lab up: %w", err)
		}
	}
	if cfg.Systemd {
		if err := buildSystemd(ctx, cfg, plan, names, p); err != nil {
			return fmt.Errorf("lab up: %w (run `orch lab down` to clean up)", err)
		}
		return nil
	}
	if err := build(ctx, cfg, plan, names, p); err != nil {
		return fmt.Errorf("lab up: %w (run `orch lab down` to clean up)", err)
	}
	return nil
}

// build makes the lab, recording each resource before creating it.
func build(ctx context.Context, cfg Config, plan addrPlan, names labNames, p *progress) error {
	start := time.Now()
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	store := &stateStore{dir: cfg.StateDir, s: State{Version: stateVersion, Subnet: plan.subnet.String(),
		Flavor: flavorState(cfg.Flavor), ServerTree: cfg.serverTree}}
	for i, h := range plan.specs {
		store.s.Hosts = append(store.s.Hosts, HostState{Name: h.name, Role: h.role, IP: plan.hosts[i].String()})
	}
	if err := store.update(func(*State) {}); err != nil {
		return err
	}
	exe, err := copyExecutable(cfg.path(exeName))
	if err != nil {
		return err
	}
	env, err := makeSecrets(ctx, cfg, plan)
	if err != nil {
		return err
	}
	env.serverTree, env.jemalloc = cfg.serverTree, cfg.jemalloc
	p.printf("lab: keys and passwords ready in %s (%.1fs)", cfg.StateDir, time.Since(start).Seconds())

	t := time.Now()
	pubs := make([][]byte, len(plan.specs))
	errs := orchestrator.ForEach(ctx, 0, plan.specs, func(ctx context.Context, i int, h hostSpec) error {
		pub, err := buildHostFS(ctx, cfg.hostDir(h.name), h, plan.hosts[i], env)
		if err != nil {
			return fmt.Errorf("%s %s: host files: %w", h.name, plan.hosts[i], err)
		}
		pubs[i] = pub
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	if err := os.WriteFile(cfg.path(knownHostsName), []byte(renderKnownHosts(plan.hosts, pubs)), 0o644); err != nil {
		return fmt.Errorf("known_hosts: %w", err)
	}
	p.printf("lab: host files ready (%.1fs)", time.Since(t).Seconds())

	if err := makeBridge(ctx, store, names, plan, p); err != nil {
		return err
	}

	mysqlPassword, err := readSecretFile(cfg.path(mysqlPassName))
	if err != nil {
		return err
	}
	errs = orchestrator.ForEach(ctx, 0, store.snapshot().Hosts, func(ctx context.Context, i int, h HostState) error {
		if err := bringUpHost(ctx, cfg, store, names, plan, exe, h, mysqlPassword, p); err != nil {
			return fmt.Errorf("%s %s: %w", h.Name, h.IP, err)
		}
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	if err := writeInventories(cfg, store, p); err != nil {
		return err
	}
	p.printf("lab: up in %.1fs", time.Since(start).Seconds())
	return nil
}

// makeBridge records and creates the lab's bridge with the control
// machine's address.
func makeBridge(ctx context.Context, store *stateStore, names labNames, plan addrPlan, p *progress) error {
	t := time.Now()
	bridgeAddr := plan.prefixed(plan.bridge)
	if err := store.update(func(s *State) { s.Bridge, s.BridgeAddr = names.bridge(), bridgeAddr }); err != nil {
		return err
	}
	if err := createBridge(ctx, names.bridge(), bridgeAddr, bridgeAlias(store.dir)); err != nil {
		return err
	}
	p.printf("lab: bridge %s %s up (%.1fs)", names.bridge(), bridgeAddr, time.Since(t).Seconds())
	return nil
}

// bringUpHost wires one host to the bridge, starts its PID 1, waits for its
// sshd and, on database hosts, sets MariaDB up. Each resource is recorded
// before it is created.
func bringUpHost(ctx context.Context, cfg Config, store *stateStore, names labNames, plan addrPlan,
	exe string, h HostState, mysqlPassword string, p *progress) error {
	h, err := joinNetwork(ctx, store, names, plan, h, p)
	if err != nil {
		return err
	}
	t := time.Now()
	hostDir := cfg.hostDir(h.Name)
	if err := startRecorded(store, &h, func() (int, uint64, error) {
		return startHost(exe, h.Netns, h.Name, hostDir, filepath.Join(hostDir, hostLogName))
	}); err != nil {
		return err
	}
	if err := waitSSHD(ctx, h, 15*time.Second, filepath.Join(hostDir, hostLogName), filepath.Join(hostDir, "fs/var/log/sshd.log")); err != nil {
		return err
	}
	p.step(h, "sshd up", t)
	if !h.IsDB() {
		return nil
	}
	pid1, err := hostPID1(h)
	if err != nil {
		return err
	}
	return setupMariaDB(ctx, pid1, h.Name, mysqlPassword, store.snapshot().ServerTree,
		func(msg string, since time.Time) { p.step(h, msg, since) })
}

// startRecorded starts a host's process and records its PID and start
// time, also when the start failed half-way, so Down finds what runs.
func startRecorded(store *stateStore, h *HostState, start func() (int, uint64, error)) error {
	pid, pidStart, err := start()
	if pid > 0 {
		h.PID, h.PIDStart = pid, pidStart
		if serr := store.updateHost(h.Name, func(r *HostState) { r.PID, r.PIDStart = pid, pidStart }); serr != nil {
			return serr
		}
	}
	return err
}

// joinNetwork gives a host its network namespace and wires it to the
// bridge, recording each before it is created.
func joinNetwork(ctx context.Context, store *stateStore, names labNames, plan addrPlan, h HostState, p *progress) (HostState, error) {
	t := time.Now()
	h.Netns = names.netns(h.Name)
	if err := store.updateHost(h.Name, func(r *HostState) { r.Netns = h.Netns }); err != nil {
		return h, err
	}
	if err := createNetns(ctx, h.Netns); err != nil {
		return h, err
	}
	h.Veth = names.veth(h.Name)
	if err := store.updateHost(h.Name, func(r *HostState) { r.Veth = h.Veth }); err != nil {
		return h, err
	}
	addr, err := parseHostAddr(plan, h.IP)
	if err != nil {
		return h, err
	}
	if err := createVeth(ctx, h.Veth, h.Netns, names.bridge(), addr); err != nil {
		return h, err
	}
	p.step(h, "network namespace "+h.Netns+" on "+h.Veth, t)
	return h, nil
}

func parseHostAddr(plan addrPlan, ip string) (string, error) {
	for _, a := range plan.hosts {
		if a.String() == ip {
			return plan.prefixed(a), nil
		}
	}
	return "", fmt.Errorf("address %s is not in the lab's plan", ip)
}

// writeInventories records and writes lab.yaml and lab-password.yaml.
func writeInventories(cfg Config, store *stateStore, p *progress) error {
	paths := cfg.inventoryPaths()
	systemd := store.snapshot().Kind == KindSystemd
	if systemd {
		paths = paths[:1] // no orch-made account, so no password inventory
	}
	dir := filepath.Dir(paths[0])
	var newDirs []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		newDirs = append([]string{d}, newDirs...)
	}
	if err := store.update(func(s *State) {
		s.Files = appendMissing(s.Files, paths...)
		s.Dirs = appendMissing(s.Dirs, newDirs...)
	}); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("inventory dir: %w", err)
	}
	ip := invPaths{
		knownHosts:    cfg.path(knownHostsName),
		identity:      cfg.path(clientKeyName),
		mysqlPassword: cfg.path(mysqlPassName),
		benchPassword: cfg.path(benchPassName),
	}
	hosts := store.snapshot().Hosts
	if systemd {
		body, err := renderStockInventory(hosts, ip, store.snapshot().flavor())
		if err != nil {
			return err
		}
		if err := writeFileAtomic(paths[0], body, 0o644); err != nil {
			return fmt.Errorf("write inventory: %w", err)
		}
		p.printf("lab: inventory %s written", displayPath(paths[0]))
		return nil
	}
	for i, v := range []inventoryVariant{asRoot, asBench} {
		body, err := renderInventory(hosts, ip, v, store.snapshot().flavor())
		if err != nil {
			return err
		}
		if err := writeFileAtomic(paths[i], body, 0o644); err != nil {
			return fmt.Errorf("write inventory: %w", err)
		}
	}
	p.printf("lab: inventories %s and %s written", displayPath(paths[0]), displayPath(paths[1]))
	return nil
}

func appendMissing(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, l := range list {
			found = found || l == it
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// displayPath shows a path relative to the current dir when it is inside it.
func displayPath(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}

// copyExecutable copies the running binary into the state dir, so the
// hosts' PID 1 keeps running even if orch is rebuilt meanwhile.
func copyExecutable(dst string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find own executable: %w", err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return "", fmt.Errorf("copy own executable: %w", err)
	}
	if err := writeFileAtomic(dst, b, 0o755); err != nil {
		return "", fmt.Errorf("copy own executable: %w", err)
	}
	return dst, nil
}

// makeSecrets creates the client key, the MariaDB and bench passwords
// (0600 files) and returns what the host trees are built from. Passwords
// reach openssl on stdin only.
func makeSecrets(ctx context.Context, cfg Config, plan addrPlan) (*hostEnv, error) {
	pub, err := makeClientKey(ctx, cfg)
	if err != nil {
		return nil, err
	}
	passwords := map[string]string{}
	for _, name := range []string{mysqlPassName, benchPassName} {
		pw, err := randomPassword()
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(cfg.path(name), []byte(pw+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
		passwords[name] = pw
	}
	hash, err := output(ctx, []byte(passwords[benchPassName]+"\n"), "openssl", "passwd", "-6", "-stdin")
	if err != nil {
		return nil, fmt.Errorf("hash %s password: %w", benchUser, err)
	}
	sys, err := readSysFiles()
	if err != nil {
		return nil, err
	}
	bench := account{
		name:       benchUser,
		uid:        nextFreeID(sys.passwd, 1000, benchUser),
		gid:        nextFreeID(sys.group, 1000, benchUser),
		home:       "/home/" + benchUser,
		shell:      "/bin/bash",
		hash:       strings.TrimSpace(string(hash)),
		changedDay: time.Now().Unix() / 86400,
	}
	env := &hostEnv{plan: plan, sys: sys.withAccount(bench), bench: bench, clientPub: pub}
	if env.mysqlUID, env.mysqlGID, err = lookupIDs("mysql"); err != nil {
		return nil, err
	}
	env.admGID = lookupGID("adm", env.mysqlGID)
	return env, nil
}

// makeClientKey creates root's key on every host (no passphrase: the
// lab's files are root's alone) and returns its public line.
func makeClientKey(ctx context.Context, cfg Config) ([]byte, error) {
	key := cfg.path(clientKeyName)
	for _, f := range []string{key, key + ".pub"} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	if _, err := output(ctx, nil, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "orch-lab", "-f", key); err != nil {
		return nil, fmt.Errorf("client key: %w", err)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		return nil, fmt.Errorf("client key: %w", err)
	}
	return pub, nil
}

// randomPassword returns 128 random bits as hex: safe in SQL, YAML and
// shells without quoting, though it is never put in any of them unquoted.
func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random password: %w", err)
	}
	return hex.EncodeToString(b), nil
}

func readSecretFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read secret: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}
