package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/topology"
)

// Access is how a command reaches its clusters: the inventories it was
// given and the SSH settings that load and dial them. Every command loads
// through it, so an inventory means the same thing to each of them, and
// whatever is wrong with one (exit 2) is found before any host is
// contacted.
type Access struct {
	// Inventories are the files given (-i, repeatable, or positional).
	Inventories []string
	// Cluster chooses one cluster of several ("": every one, or the
	// only one).
	Cluster string
	// KnownHosts overrides the inventory's known_hosts file.
	KnownHosts string
	// SSHConfig is the OpenSSH client config to honour ("none": none).
	SSHConfig string
	// SSH are the settings an ips.txt takes from the command line.
	SSH               topology.SSHConfig
	AcceptNewHostKeys bool
	ConnectTimeout    time.Duration
	Parallel          int
	// DryRun: a command that contacts no host needs no secret, so one it
	// cannot resolve is a warning on Warn, not an error.
	DryRun bool
	Warn   io.Writer
}

// Load parses and validates one inventory (path, else the one given),
// applies the SSH settings and resolves its secrets. With several, the
// cluster Cluster names is the one loaded.
func (a *Access) Load(path string) (*topology.Inventory, error) {
	inv, err := a.Parse(path)
	if err != nil {
		return nil, err
	}
	if err := a.checkSecrets(inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// Parse is Load without resolving secrets (orch inventory shows an
// inventory whose secrets are not at hand).
func (a *Access) Parse(path string) (*topology.Inventory, error) {
	if path == "" && len(a.Inventories) > 1 {
		return a.oneOf(a.Inventories)
	}
	if path == "" {
		path = a.Inventories[0]
	}
	opts := a.loadOptions()
	opts.Cluster = a.Cluster
	inv, err := topology.Load(path, opts)
	if err != nil {
		return nil, orchestrator.BadInput(err)
	}
	if err := a.prepare(inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// LoadSet loads every cluster of the given inventories (a clusters list,
// or several files) with the same settings as Load.
func (a *Access) LoadSet(paths []string) (*topology.Set, error) {
	set, err := topology.LoadSet(paths, a.loadOptions())
	if err != nil {
		return nil, orchestrator.BadInput(err)
	}
	return set, nil
}

// Clusters returns the clusters a command acts on: those of path (or of
// every inventory given), all of them or the one Cluster names. A
// one-cluster inventory is loaded exactly as Load loads it.
func (a *Access) Clusters(path string) ([]*topology.Inventory, error) {
	paths := a.Inventories
	if path != "" {
		paths = []string{path}
	}
	set, err := a.LoadSet(paths)
	if err != nil {
		return nil, err
	}
	if len(set.Clusters) == 1 {
		inv, err := a.Load(path)
		if err != nil {
			return nil, err
		}
		return []*topology.Inventory{inv}, nil
	}
	invs, err := set.Select(a.Cluster)
	if err != nil {
		return nil, orchestrator.BadInputf("--cluster: %v", err)
	}
	for _, inv := range invs {
		if err := a.checkSecrets(inv); err != nil {
			return nil, orchestrator.BadInputf("cluster %s: %v", inv.Name, err)
		}
		if err := a.prepare(inv); err != nil {
			return nil, fmt.Errorf("cluster %s: %w", inv.Name, err)
		}
	}
	return invs, nil
}

// Connect dials hosts of inv. The cluster keeps per-host failures;
// commands that need every host check ConnectErr.
func (a *Access) Connect(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster {
	return cluster.Connect(ctx, inv, hosts, cluster.Options{Dial: a.dialConfig(inv), Parallel: a.Parallel})
}

// ConnectAll dials every host of inv: the use cases' Connect.
func (a *Access) ConnectAll(ctx context.Context, inv *topology.Inventory) *cluster.Cluster {
	return a.Connect(ctx, inv, inv.Hosts)
}

// FromManifest returns the inventory file run directory d recorded, and
// takes for an ips.txt the SSH settings it ran with where none is given.
func (a *Access) FromManifest(d *rundir.Dir) (string, error) {
	m, err := d.LoadManifest()
	if err != nil {
		return "", err
	}
	r, err := m.RecordedInventory()
	if err != nil {
		return "", err
	}
	if r.Format == "ips" && len(r.Hosts) > 0 {
		ssh := r.Hosts[0].SSH
		if a.SSH.User == "" {
			a.SSH.User = ssh.User
		}
		if a.SSH.Port == 0 {
			a.SSH.Port = ssh.Port
		}
		if len(a.SSH.IdentityFiles) == 0 {
			a.SSH.IdentityFiles = ssh.IdentityFiles
		}
	}
	if a.KnownHosts == "" {
		a.KnownHosts = r.KnownHostsFile
	}
	return r.Source, nil
}

// oneOf is Load over several files: the cluster Cluster names, or the
// only one.
func (a *Access) oneOf(paths []string) (*topology.Inventory, error) {
	set, err := a.LoadSet(paths)
	if err != nil {
		return nil, err
	}
	if a.Cluster == "" && len(set.Clusters) > 1 {
		return nil, orchestrator.BadInputf("%s hold %d clusters (%s) and this command works on one: choose it with --cluster NAME",
			strings.Join(paths, ", "), len(set.Clusters), strings.Join(set.Names(), ", "))
	}
	invs, err := set.Select(a.Cluster)
	if err != nil {
		return nil, orchestrator.BadInputf("--cluster: %v", err)
	}
	return invs[0], nil
}

func (a *Access) loadOptions() topology.LoadOptions {
	return topology.LoadOptions{KnownHostsOverride: a.KnownHosts, SSH: a.SSH}
}

// checkSecrets refuses secret references that cannot be resolved, except
// in a dry run, which needs no secret: there it warns.
func (a *Access) checkSecrets(inv *topology.Inventory) error {
	err := inv.CheckSecrets()
	switch {
	case err == nil:
		return nil
	case a.DryRun && a.Warn != nil:
		fmt.Fprintf(a.Warn, "orch: WARNING %v (not needed for --dry-run)\n", err)
		return nil
	}
	return orchestrator.BadInput(err)
}

// prepare fills what an inventory takes from this machine: the address
// the other hosts reach each host at (an ssh alias means something only in
// this machine's ssh_config) and the passwords orch generated for the
// accounts it manages.
func (a *Access) prepare(inv *topology.Inventory) error {
	for _, h := range inv.Hosts {
		addr, _, err := executor.NetworkAddress(h, a.SSHConfig)
		if err != nil {
			return orchestrator.BadInputf("%s: %v", h, err)
		}
		if addr != h.Address {
			h.NetAddress = addr
		}
	}
	if dir, err := account.StateDir(inv); err == nil {
		account.Resolve(inv, dir)
	} else if inv.Benchmark.Managed || inv.Replication.PasswordManaged {
		return err
	}
	return nil
}

func (a *Access) dialConfig(inv *topology.Inventory) executor.DialConfig {
	return executor.DialConfig{
		KnownHostsFile:    inv.KnownHostsFile,
		AcceptNewHostKeys: a.AcceptNewHostKeys,
		SSHConfigFile:     a.SSHConfig,
		ConnectTimeout:    a.ConnectTimeout,
		// A host key orch trusts (--accept-new-host-keys) is announced
		// with its fingerprint, as ssh's "Permanently added" is.
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "orch: "+format+"\n", args...) },
	}
}
