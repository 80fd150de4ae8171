package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/report"
)

func newReportCmd() *cobra.Command {
	var (
		baseline, out, formats, root, headline string
		warmup                                 float64
		allowMixed                             bool
		noiseFloor, analysis                   string
		labels                                 []string
	)
	cmd := &cobra.Command{
		Use:   "report [RUNDIR|MATRIXDIR|FOLDER|LOG|PARSE.json]...",
		Short: "Compare runs: tables, ratios against a baseline, significance, plots and evidence",
		Long: `report compares benchmark results and writes report.md, a self-contained
report.html (plots inline, opens offline), results.csv (one row per run),
configurations.csv (one per configuration), hosts.csv (one per run and
host) and why.json. Inputs, in any mix:
a matrix directory (matrix.json + cells/), run directories of orch run (old
ones too), JSON files printed by orch parse, and raw client logs (sysbench,
mysqlslap, db-insert output, parsed as orch parse does), and folders of them:
a folder that is neither a matrix nor a run directory is one configuration,
labelled by the folder's name, each of its files (or run directories) a
repetition (setup logs named *prepare* or *cleanup* are skipped). --label NAME=GLOB (repeatable) makes the inputs a glob matches
the repetitions of NAME. A run given twice (a matrix and one of its own
cells) is counted once. Runs whose servers differ in flavour or
major.minor version (MariaDB 10.11 vs MySQL 9.7), or whose workload
parameters, client or topology differ, are refused (naming the
differences) unless --allow-mixed.
Each input becomes a configuration labelled by its directory or file name,
unless a matrix labels its cells; repetitions of a label are summarised as
mean, standard deviation and 95% confidence interval, and compared with the
baseline label: a matrix's runs by round (each round's ratio, Student's t
across rounds: rounds are blocks), other runs by Welch's t-test and
Fieller's interval (--analysis; the Method says which); significant when
the interval excludes 1.

The compared figure is each run's steady-state rate: the mean of its
per-second interval rates in its one window, from the end of its warm-up
to its last interval, stack-sampling spans left out; every other figure
of the run (replicas, where the time went, sustained) uses the same
window. The warm-up is --warmup when given, else the matrix's --warmup
when it had one, else detected per run (a sustained level change from the
start; a dip that recovers within the first half is not one; 10 s with
too few intervals); the tool's final figure without intervals. Verdicts give the ratio with Fieller's 95% CI, and with replicas
the master's and the sustained ratio, the replicas' apply rate, lag and
catch-up (--headline). Only runs that
ended ok enter the statistics; the others are listed with their state.

Without an input, the latest run (runs/latest) is reported. The report goes
into the input's directory when there is one input, else ./report (--out).`,
		Example: `  orch report
  orch report runs/20261130T101500Z-matrix-pure-random-writes
  orch report innodb/ rocksdb/
  orch report --label innodb='logs/innodb-*.txt' --label rocksdb='logs/rocksdb-*.txt'
  orch report --baseline "innodb sync_binlog=1" --warmup 30 runs/...-matrix-...
  orch parse legacy-0.5.log > legacy.json && orch report legacy.json runs/latest --out cmp`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := report.Request{Inputs: args, Labels: labels, Root: root, Out: out, Formats: formats,
				Options: report.Options{Baseline: baseline, Headline: headline, AllowMixed: allowMixed, NoiseFloor: noiseFloor, Analysis: analysis}}
			if cmd.Flags().Changed("warmup") {
				req.WarmupS = &warmup
			}
			err := report.Answer(req, cmd.OutOrStdout())
			var inErr *report.InputError
			if errors.As(err, &inErr) {
				return usagef("report: %v", err)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&baseline, "baseline", "", "label to compare with (default: the matrix's baseline, else the first label)")
	f.Float64Var(&warmup, "warmup", report.DefaultWarmupS, "seconds at the start of each run left out of every figure: when given, the warm-up of every run "+
		"(over the matrix's); when not, the matrix's --warmup if it had one, else detected per run as a sustained level change from the start "+
		"of its per-second rate (a dip that recovers within the run's first half is not a warm-up; stack-sampling spans are left out first), "+
		"10 s for runs with too few intervals")
	// The flag's value is used only when given: its default is detection
	// (or the matrix's), not the fallback's 10 s that help would print.
	f.Lookup("warmup").DefValue = "detected per run, or the matrix's --warmup"
	f.StringVar(&out, "out", "", "output directory (default: the input's directory when there is one input, else ./report)")
	f.StringVar(&formats, "format", "md,html,csv", "outputs to write: md, html, csv (comma-separated)")
	f.StringVar(&headline, "headline", report.HeadlineBoth, "what verdicts lead with: master (the master's rate), sustained (transactions / (run + replica catch-up)) or both")
	f.BoolVar(&allowMixed, "allow-mixed", false, "compare runs whose servers (flavour or major.minor version), workload parameters, client or topology differ (labelled in the report) instead of refusing")
	f.StringArrayVar(&labels, "label", nil, "NAME=GLOB: the files (or run directories) the glob matches are the repetitions of configuration NAME (repeatable; quote the glob)")
	f.StringVar(&root, "runs", "runs", "directory that holds run directories (for the default input, runs/latest)")
	f.StringVar(&analysis, "analysis", "", "blocked or unpaired, for inputs whose matrix.json pre-registered none (default: blocked by round for a matrix's runs, "+
		"unpaired for runs without rounds); refused when it contradicts the matrix's: an analysis chosen after the data is not one to trust")
	f.StringVar(&noiseFloor, "noise-floor", "", "A/A matrix (orch matrix --aa) whose noise floor verdicts are held against (default: the one the matrix recorded)")
	return cmd
}
