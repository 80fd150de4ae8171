package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
)

// buildSystemd makes the systemd lab: the same hosts, addresses, bridge and
// network namespaces as the namespace lab, but each host is a container
// booting a stock Debian 12 tree (apt-installed openssh-server and
// mariadb-server, root on the unix socket, mariadb.service, journald) with
// systemd as PID 1. orch makes no account, script or setting on the hosts
// beyond their identity (name, keys, machine id). Each resource is recorded
// before it is created, so Down removes exactly what exists.
func buildSystemd(ctx context.Context, cfg Config, plan addrPlan, names labNames, p *progress) error {
	start := time.Now()
	base, err := baseTree(ctx, cfg.CacheDir, p)
	if err != nil {
		return err
	}
	trees := map[string]string{bookwormTree.suite: base}
	dbTree := ""
	if f := flavorOf(cfg.Flavor); f.dbTree != nil {
		if dbTree, err = tree(ctx, cfg.CacheDir, *f.dbTree, p); err != nil {
			return err
		}
		trees[f.dbTree.suite] = dbTree
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	store := &stateStore{dir: cfg.StateDir, s: State{Version: stateVersion, Subnet: plan.subnet.String(),
		Kind: KindSystemd, BaseTree: base, Flavor: flavorState(cfg.Flavor), DBTree: dbTree}}
	for i, h := range plan.specs {
		store.s.Hosts = append(store.s.Hosts, HostState{Name: h.name, Role: h.role, IP: plan.hosts[i].String()})
	}
	if err := store.update(func(*State) {}); err != nil {
		return err
	}
	clientPub, err := makeClientKey(ctx, cfg)
	if err != nil {
		return err
	}

	t := time.Now()
	known := make([]string, len(plan.specs))
	errs := orchestrator.ForEach(ctx, 0, plan.specs, func(ctx context.Context, i int, h hostSpec) error {
		hostDir := cfg.hostDir(h.name)
		mount := filepath.Join(hostDir, sdRootName)
		if err := store.updateHost(h.name, func(r *HostState) { r.Mount = mount }); err != nil {
			return err
		}
		root, err := mountHostRoot(trees[flavorOf(cfg.Flavor).treeFor(h.role).suite], hostDir)
		if err != nil {
			return fmt.Errorf("%s %s: %w", h.name, plan.hosts[i], err)
		}
		if known[i], err = writeSystemdHostFiles(ctx, root, h, plan.hosts[i], plan, clientPub); err != nil {
			return fmt.Errorf("%s %s: host files: %w", h.name, plan.hosts[i], err)
		}
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	if err := os.WriteFile(cfg.path(knownHostsName), []byte(strings.Join(known, "")), 0o644); err != nil {
		return fmt.Errorf("known_hosts: %w", err)
	}
	p.printf("lab: host roots ready: overlays on the base tree (%.1fs)", time.Since(t).Seconds())

	if err := makeBridge(ctx, store, names, plan, p); err != nil {
		return err
	}

	boot := time.Now()
	errs = orchestrator.ForEach(ctx, 0, store.snapshot().Hosts, func(ctx context.Context, _ int, h HostState) error {
		if err := bootHost(ctx, cfg, store, names, plan, h, p); err != nil {
			return fmt.Errorf("%s %s: %w", h.Name, h.IP, err)
		}
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil {
		return err
	}
	p.printf("lab: %d hosts booted in %.1fs", len(plan.specs), time.Since(boot).Seconds())
	if err := writeInventories(cfg, store, p); err != nil {
		return err
	}
	p.printf("lab: %s lab up in %.1fs", labName(KindSystemd, cfg.Flavor), time.Since(start).Seconds())
	return nil
}

// bootHost wires one host to the bridge, boots its container and waits for
// multi-user with sshd (and MariaDB on database hosts) running.
func bootHost(ctx context.Context, cfg Config, store *stateStore, names labNames, plan addrPlan, h HostState, p *progress) error {
	h, err := joinNetwork(ctx, store, names, plan, h, p)
	if err != nil {
		return err
	}
	// The container's systemd would bring lo up, but nspawn gives it no
	// CAP_NET_ADMIN in a namespace it did not make; without lo, 127.0.0.1
	// (MariaDB over TCP on the host itself) is unreachable.
	if err := run(ctx, "ip", "-n", h.Netns, "link", "set", "dev", "lo", "up"); err != nil {
		return err
	}
	t := time.Now()
	hostDir := cfg.hostDir(h.Name)
	tree := flavorOf(cfg.Flavor).treeFor(h.Role)
	var cgroup *os.File
	if tree.unifiedCgroup {
		root, err := cgroup2Root()
		if err != nil {
			return err
		}
		h.Cgroup = hostCgroup(root, h.Netns)
		if err := store.updateHost(h.Name, func(r *HostState) { r.Cgroup = h.Cgroup }); err != nil {
			return err
		}
		if cgroup, err = makeHostCgroup(h.Cgroup); err != nil {
			return err
		}
		defer cgroup.Close()
	}
	if err := startRecorded(store, &h, func() (int, uint64, error) {
		return startContainer(h.Mount, h.Netns, h.Name, hostDir, cgroup)
	}); err != nil {
		return err
	}
	state, err := waitBooted(ctx, h, tree.dbUnit, hostDir, p)
	if err != nil {
		return err
	}
	// ssh.service is active; its port answering proves the lab's network.
	if err := waitSSHD(ctx, h, 15*time.Second, filepath.Join(hostDir, sdConsoleName)); err != nil {
		return err
	}
	p.step(h, "booted: systemd "+state, t)
	return nil
}
