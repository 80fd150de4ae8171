package main

import (
	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/runner"
)

func newCheckCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Preflight every host: SSH, sudo, OS, resources, clock, server, engines, clients",
		Long: `check connects to every host of the inventory in parallel and reports what
orch needs to know before it touches anything: SSH and sudo, OS and kernel,
CPUs, memory, free disk on the datadir, clock offset against this machine,
the server binary and flavour, storage engines, transparent huge pages, the
benchmark clients on the load box and the round trip from the load box to
the master. It exits non-zero when a blocking check fails.`,
		Example: `  orch check cluster.yaml
  orch check -i inventories/lab.yaml --json
  orch check -i ips.txt --ssh-user root --accept-new-host-keys`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			invs, err := g.Clusters("")
			if err != nil {
				return err
			}
			return useCaseErr(cmd.Context(), runner.Check(cmd.Context(), g.clusterOptions(cmd, invs, ""), asJSON))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print facts as JSON")
	return cmd
}
