package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

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
			switch tool {
			case "auto", "sysbench", "mysqlslap", "mariadb-slap", "db-insert":
			default:
				return usagef("parse: unknown --tool %q (sysbench, mysqlslap, db-insert or auto)", tool)
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetIndent("", "  ")
			// One file: its document. Several: one JSON array of
			// {"file", "result"}, so `orch parse a b > x.json` is one valid
			// document that orch report labels by file name.
			type doc struct {
				File   string       `json:"file"`
				Result bench.Result `json:"result"`
			}
			var docs []doc
			for _, name := range files {
				res, err := parseFile(tool, name)
				if err != nil && !errors.Is(err, bench.ErrIncomplete) {
					return &usageError{msg: err.Error()}
				}
				if err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "orch: warning: %v\n", err)
				}
				if s, ok := res.(*bench.Sysbench); ok && s.IntervalsDropped > 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "orch: warning: %s: kept the first %d interval lines (the maximum) and dropped %d; the summary covers the whole run\n",
						name, len(s.Intervals), s.IntervalsDropped)
				}
				docs = append(docs, doc{File: name, Result: res})
			}
			if len(docs) == 1 {
				return enc.Encode(docs[0].Result)
			}
			return enc.Encode(docs)
		},
	}
	cmd.Flags().StringVar(&tool, "tool", "auto", "output format: sysbench, mysqlslap, db-insert or auto")
	return cmd
}

func parseFile(tool, name string) (bench.Result, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if tool == "auto" {
		return bench.ParseAuto(name, f)
	}
	return bench.Parse(bench.Tool(tool), name, f)
}
