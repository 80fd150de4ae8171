package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// globalOptions are the flags every command shares.
type globalOptions struct {
	inventories       []string
	cluster           string
	acceptNewHostKeys bool
	sshConfig         string
	knownHosts        string
	sshUser           string
	sshPort           int
	identities        []string
	connectTimeout    time.Duration
	parallel          int
	// verbose prints what a quiet console leaves out (-v).
	verbose bool
	// dryRun is set for a --dry-run, which contacts no host: secrets it
	// cannot resolve are a warning on warnTo, not an error.
	dryRun bool
	warnTo io.Writer
}

func newRootCmd() *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "orch",
		Short: "Orchestrate database benchmarks on real MySQL-family clusters",
		Long: `orch sets up 1-master/2-slave MySQL, Percona Server or MariaDB clusters with
semi-synchronous replication over SSH, runs benchmarks from a load box while
watching the cluster, and collects and compares the results.

The inventory is a YAML cluster file (see inventories/cluster.example.yaml) or a
legacy ips.txt, given as -i FILE or as a positional FILE (default ./cluster.yaml);
commands that contact no host (parse, report, inventory) have no SSH flags.`,
		Example: `  orch inventory cluster.yaml
  orch check cluster.yaml --accept-new-host-keys
  orch exec cluster.yaml --role db -- uptime`,
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          unknownCommand,
		RunE:          func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if f := cmd.Flags().Lookup("dry-run"); f != nil {
				g.dryRun, g.warnTo = f.Value.String() == "true", cmd.ErrOrStderr()
			}
			return checkFlags(cmd)
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newInventoryCmd(g),
		newCheckCmd(g),
		newExecCmd(g),
		newLabCmd(),
		newParseCmd(),
		newUpCmd(g),
		newDownCmd(g),
		newStatusCmd(g),
		newRunCmd(g),
		newCollectCmd(g),
		newMatrixCmd(g),
		newReportCmd(g),
	)
	g.applyGrammar(root)
	return root
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "-dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			return "0.1.0+" + rev + dirty
		}
	}
	return "0.1.0-dev"
}

// loadInventory parses and validates the inventory named by -i (or path when
// given), applying the SSH flags that ips.txt inventories need, and
// resolves its secret references: whatever is wrong with it is found before
// a command contacts any host. It loads one cluster: --cluster chooses one
// of several.
func (g *globalOptions) loadInventory(path string) (*topology.Inventory, error) {
	inv, err := g.parseInventory(path)
	if err != nil {
		return nil, err
	}
	if err := g.checkSecrets(inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// checkSecrets refuses secret references that cannot be resolved (exit 2),
// except in a dry run, which needs no secret: there it warns.
func (g *globalOptions) checkSecrets(inv *topology.Inventory) error {
	err := inv.CheckSecrets()
	switch {
	case err == nil:
		return nil
	case g.dryRun && g.warnTo != nil:
		fmt.Fprintf(g.warnTo, "orch: WARNING %v (not needed for --dry-run)\n", err)
		return nil
	}
	return &usageError{msg: err.Error()}
}

// parseInventory is loadInventory without resolving secrets (orch
// inventory shows an inventory whose secrets are not at hand).
func (g *globalOptions) parseInventory(path string) (*topology.Inventory, error) {
	if path == "" && len(g.inventories) > 1 {
		return g.oneOfSet(g.inventories)
	}
	if path == "" {
		path = g.inventories[0]
	}
	opts := g.loadOptions()
	opts.Cluster = g.cluster
	inv, err := topology.Load(path, opts)
	if err != nil {
		// Whatever keeps an inventory from loading is bad input: exit 2.
		return nil, &usageError{msg: err.Error()}
	}
	if err := g.prepareInventory(inv); err != nil {
		return nil, err
	}
	return inv, nil
}

// peerAddresses records the address the other hosts reach each host at:
// an ssh alias means something only in this machine's ssh_config.
func (g *globalOptions) peerAddresses(inv *topology.Inventory) error {
	for _, h := range inv.Hosts {
		addr, _, err := executor.NetworkAddress(h, g.sshConfig)
		if err != nil {
			return &usageError{msg: fmt.Sprintf("%s: %v", h, err)}
		}
		if addr != h.Address {
			h.NetAddress = addr
		}
	}
	return nil
}

func (g *globalOptions) dialConfig(inv *topology.Inventory) executor.DialConfig {
	return executor.DialConfig{
		KnownHostsFile:    inv.KnownHostsFile,
		AcceptNewHostKeys: g.acceptNewHostKeys,
		SSHConfigFile:     g.sshConfig,
		ConnectTimeout:    g.connectTimeout,
		// A host key orch trusts (--accept-new-host-keys) is announced
		// with its fingerprint, as ssh's "Permanently added" is.
		Logf: func(format string, args ...any) { fmt.Fprintf(os.Stderr, "orch: "+format+"\n", args...) },
	}
}

// usageArgs wraps a positional-argument check so its errors are usage
// errors (exit status 2), like flag errors.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usagef("%s: %v", cmd.CommandPath(), err)
		}
		return nil
	}
}

// connect dials hosts of inv with the command's SSH settings. The cluster
// keeps per-host failures; commands that need every host check ConnectErr.
func (g *globalOptions) connect(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster {
	return cluster.Connect(ctx, inv, hosts, cluster.Options{Dial: g.dialConfig(inv), Parallel: g.parallel})
}

// prepareInventory fills what an inventory takes from this machine: the
// peers' network addresses (ssh aliases translated) and the passwords orch
// generated for the accounts it manages.
func (g *globalOptions) prepareInventory(inv *topology.Inventory) error {
	if err := g.peerAddresses(inv); err != nil {
		return err
	}
	if dir, err := account.StateDir(inv); err == nil {
		account.Resolve(inv, dir)
	} else if inv.Benchmark.Managed || inv.Replication.PasswordManaged {
		return err
	}
	return nil
}
