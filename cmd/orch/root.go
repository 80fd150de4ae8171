package main

import (
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/topology"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// globalOptions are the flags every command shares: how it reaches its
// clusters, and -v.
type globalOptions struct {
	runner.Access
	// verbose prints what a quiet console leaves out (-v).
	verbose bool
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
				g.DryRun, g.Warn = f.Value.String() == "true", cmd.ErrOrStderr()
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
		newReportCmd(),
		newDBInsertCmd(g),
		newHistoryCmd(),
		newCompareCmd(),
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

// clusterOptions is what the up, down, status and check use cases take
// from the command line: the clusters, the SSH settings, --log, the output.
func (g *globalOptions) clusterOptions(cmd *cobra.Command, invs []*topology.Inventory, logPath string) runner.ClusterOptions {
	return runner.ClusterOptions{Clusters: invs, Connect: g.Connect, LogPath: logPath,
		Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), Verbose: g.verbose}
}
