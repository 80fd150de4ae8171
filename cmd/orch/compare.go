package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/history"
)

func newCompareCmd() *cobra.Command {
	var (
		root   string
		store  storeFlags
		ignore []string
	)
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two campaigns, benchstat-like, with the report's statistics; refuse what is not on the same footing",
		Long: `compare answers "did B change anything against A?" for two campaigns. Each of A
and B is a run or matrix directory (or a folder of them), or a selection of
the results store: KEY=VALUE,... with keys campaign, workload, engine, version,
cluster, since, until. Runs pair up by series (see orch history): one table
per workload, a row per configuration in both, with each side's mean and 95%
interval, B/A with Fieller's interval, Welch's p at its Holm level over the
table's rows, and the verdict, by the same rule the report decides with. A
configuration whose runs differ between A and B in workload parameters,
server version, client, hardware, topology or cluster is refused, naming the
fields and their values, unless --ignore FIELD; when nothing is comparable
orch exits 2.`,
		Example: `  orch compare runs/20261201T020000Z-matrix-pure-random-writes runs/20261206T020000Z-matrix-pure-random-writes
  orch compare campaign=20261201T020000Z-matrix-pure-random-writes since=2026-12-05
  orch compare --ignore version A B`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return history.CompareCampaigns(cmd.Context(), history.CompareOptions{
				Where: history.Where{Root: root, File: store.file, ConfigFile: store.config}, A: args[0], B: args[1], Ignore: ignore, Out: cmd.OutOrStdout(),
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "runs", "runs", "directory that holds run directories (and, by default, the store)")
	store.register(f, false)
	f.StringSliceVar(&ignore, "ignore", nil, "identity fields to compare across anyway: "+strings.Join(history.Fields, ", "))
	return cmd
}
