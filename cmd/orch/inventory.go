package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/runner"
)

func newInventoryCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inventory [INVENTORY...]",
		Short: "Parse and validate an inventory without connecting; print it normalised",
		Long: `inventory reads a YAML cluster file or a legacy ips.txt, applies defaults,
validates it (roles, addresses, ports, unknown keys) and prints the result.
Secrets are shown only as where they come from (env:VAR, file:PATH) or ***.
A file may hold several clusters (a clusters list), and several files may be
given: every cluster is printed, and a host in two clusters is an error.
It refuses what run and matrix refuse (a cluster is a master and two slaves,
semi-synchronous; or one existing server). Every problem of a file is
reported in one run, one line FILE:LINE[:COL]: message each (the first 20,
then a count), with exit status 2. Secrets that cannot be resolved are a
warning here: only a command that contacts a host needs them. The SSH column
is where orch logs in, resolved as ssh would (~/.ssh/config, the local user,
port 22). It contacts no host, so it lists no SSH flag; it takes those of the
cluster commands that change what an inventory resolves to (--ssh-user,
--ssh-port and --identity for an ips.txt, --ssh-config, --known-hosts) and
shows what such a command would use.`,
		Example: `  orch inventory -i cluster.yaml
  orch inventory ips.txt --json
  orch inventory east.yaml west.yaml`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := args
			if len(paths) == 0 {
				paths = g.Inventories
			}
			set, err := g.LoadSet(paths)
			if err != nil {
				return err
			}
			// What run and matrix refuse is refused here too, every
			// cluster's problems in one run.
			if err := runner.ValidateSet(set); err != nil {
				return useCaseErr(cmd.Context(), err)
			}
			out := cmd.OutOrStdout()
			if len(paths) > 1 || len(set.Clusters) > 1 {
				return runner.WriteSet(out, set, g.SSHConfig, asJSON)
			}
			// One cluster: exactly what every other command loads.
			inv, err := g.Parse(paths[0])
			if err != nil {
				return err
			}
			if err := inv.CheckSecrets(); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "inventory: WARNING %v (needed once a command contacts a host)\n", err)
			}
			return runner.WriteInventory(out, inv, g.SSHConfig, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the normalised inventory as JSON")
	return cmd
}
