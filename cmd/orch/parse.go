package main

import (
	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/bench"
)

func newParseCmd() *cobra.Command {
	var tool string
	cmd := &cobra.Command{
		Use:   "parse [--tool TOOL] FILE...",
		Short: "Parse benchmark client output (sysbench, mysqlslap, db-insert) into JSON",
		Long: `parse reads the output of a benchmark client and prints the parsed result as
JSON: for one file its document, for several one JSON array of
{"file": NAME, "result": DOCUMENT} in file order (orch report reads both). sysbench 1.x and legacy 0.4/0.5
output are told apart automatically; --tool auto (the default) also detects
mysqlslap / mariadb-slap and TokuDB's db-insert. Numbers keep exactly the
digits the tool printed. Output cut short (an interrupted run) is printed
with "complete": false and a warning; output that cannot be parsed is an
error naming FILE:LINE, with exit status 2. The keys are listed in docs/reports.md.`,
		Example: `  orch parse run.txt
  orch parse --tool sysbench legacy-0.5.log new-1.0.log
  orch parse --tool mysqlslap slap.txt | jq '.[0].avg_s'`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, files []string) error {
			return useCaseErr(cmd.Context(), bench.ParseFiles(tool, files, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	cmd.Flags().StringVar(&tool, "tool", "auto", "output format: sysbench, mysqlslap, db-insert or auto")
	return cmd
}
