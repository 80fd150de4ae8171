package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/history"
)

func newHistoryCmd() *cobra.Command {
	var (
		root, knob, since, until, html, threshold string
		store                                     storeFlags
		filter                                    history.Filter
		ignore                                    []string
		check, asJSON                             bool
		within                                    int
	)
	cmd := &cobra.Command{
		Use:   "history [SERIES]",
		Short: "Every run remembered: series over time, change points, regressions (--check), a static HTML page",
		Long: `history reads the results store, where every orch run and matrix cell is
recorded when it ends (orch history import records older run directories).
Runs form a series when everything that produced them is the same: the
workload and its parameters, engine, knobs, server flavour and version, client
and its version, hardware (CPU model and count, memory, disk), topology (hosts,
semi-sync) and cluster. A difference in any of them starts another series,
unless --ignore FIELD merges across it (the output says so, and names series
that differ in one field only). Each point of a series is a campaign (a
matrix, or one run): the mean of its runs' steady-state figures, as their
reports compute them, with its 95% interval.

Change points are found by E-divisive means with a permutation test at 5%
over the series' runs, a split falling only between campaigns; a change point
names what else changed there (version, knobs, hosts, kernel, the master's
option file). Simulated, an A/A history flags a false change point in about
4% of series; a 10% drop is found in 99% of histories at CV 5% with 3 runs a
campaign (make bench prints the figures).

Without SERIES: a table of the series with their newest value, runs, points
and change points. With SERIES (a key, or the start of one): its points over
time with their intervals and each change point. --check prints one line per
series whose latest change point is for the worse by more than --threshold and
began within the newest --within points, and exits 1 when there is any (for CI).
--html FILE writes a static page: one plot per series, each point linking to
its report, and an index of every run.`,
		Example: `  orch history
  orch history --workload pure-random-writes --ignore knobs
  orch history 3f2a9c
  orch history --check --threshold 5%
  orch history --html runs/history.html
  orch history import runs/`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if filter.Since, err = optDate("--since", since); err != nil {
				return err
			}
			if filter.Until, err = optDate("--until", until); err != nil {
				return err
			}
			share, err := parsePercent("history", "--threshold", threshold)
			if err != nil {
				return err
			}
			n, err := history.Show(cmd.Context(), history.ShowOptions{
				Where: history.Where{Root: root, File: store.file, ConfigFile: store.config}, Filter: filter, Knob: knob, Ignore: ignore,
				Series: strings.Join(args, ""), Check: check, Threshold: share, Within: within, HTML: html, JSON: asJSON, Out: cmd.OutOrStdout(),
			})
			if err != nil {
				return err
			}
			if n > 0 {
				return &exitError{code: exitFailure, err: fmt.Errorf("history: %d regression(s)", n)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "runs", "runs", "directory that holds run directories (and, by default, the store)")
	store.register(f, false)
	f.StringVar(&filter.Workload, "workload", "", "only this workload")
	f.StringVar(&filter.Engine, "engine", "", "only this engine")
	f.StringVar(&knob, "knob", "", "only series whose knobs contain this (NAME or NAME=VALUE)")
	f.StringVar(&filter.Version, "version", "", "only runs whose server version contains this (10.11, MySQL 9.7)")
	f.StringVar(&filter.Cluster, "cluster-name", "", "only this cluster (the inventory's name)")
	f.StringVar(&since, "since", "", "only runs started since: a date (2026-12-01), an RFC 3339 time or an age (7d, 36h)")
	f.StringVar(&until, "until", "", "only runs started before this (as --since)")
	f.StringSliceVar(&ignore, "ignore", nil, "identity fields to merge series across: "+strings.Join(history.Fields, ", "))
	f.BoolVar(&check, "check", false, "print one line per regression and exit 1 if there is any")
	f.StringVar(&threshold, "threshold", "5%", "with --check: the smallest change for the worse, a percentage (5% or 5)")
	f.IntVar(&within, "within", 5, "with --check: a change point counts when it began within the newest N points")
	f.StringVar(&html, "html", "", "write a static HTML page of every series and run to this file")
	f.BoolVar(&asJSON, "json", false, "print the series (or SERIES's points) as JSON")
	cmd.AddCommand(newHistoryImportCmd())
	return cmd
}

func newHistoryImportCmd() *cobra.Command {
	var (
		root  string
		store storeFlags
	)
	cmd := &cobra.Command{
		Use:   "import DIR...",
		Short: "Record old run and matrix directories (or a runs folder) in the results store; again adds nothing",
		Args:  usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return history.ImportDirs(cmd.Context(), history.Where{Root: root, File: store.file, ConfigFile: store.config}, args, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&root, "runs", "runs", "directory that holds run directories (and, by default, the store)")
	store.register(cmd.Flags(), false)
	return cmd
}

func optDate(flag, v string) (t time.Time, err error) {
	if v == "" {
		return t, nil
	}
	t, err = history.ParseDate(v)
	if err != nil {
		return t, usagef("%s %s: %v", flag, v, err)
	}
	return t, nil
}
