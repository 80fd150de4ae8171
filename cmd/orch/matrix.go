package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/matrix"
)

func newMatrixCmd(g *globalOptions) *cobra.Command {
	var (
		b                              benchFlags
		engines, baseline, resume      string
		knobs                          []string
		allowUnsafe                    []string
		repeat, warmup                 int
		dryRun, failFast, waitRunning  bool
		allowAsymmetry, allowMixed, aa bool
		noiseFloor, analysis           string
		seed                           int64
		until                          untilFlags
		store                          storeFlags
	)
	cmd := &cobra.Command{
		Use:   "matrix [INVENTORY] --engines=E1,E2 [--knobs=NAME[=V1,V2][;NAME...]]... [--repeat N]",
		Short: "Run a workload over engines x knob values x repetitions, resumably, and report",
		Long: `matrix answers "which engine and which settings are faster, by how much, and is
the difference real" in one command. Cells are the Cartesian product of
--engines and every --knobs axis (a bare boolean knob sweeps ON and OFF,
NAME=V1,V2 gives values, ';' separates knobs in one flag, and the flag may be
repeated), each run --repeat times. Repetitions are interleaved (A B C A B C)
and engine switches minimised. Every knob of the plan is validated against the
servers before the first cell; knobs a server ignores are flagged as having no
effect. A failed cell is recorded with its reason and the matrix goes on
(--fail-fast stops). After Ctrl-C or a crash, --resume continues with the
unfinished cells. Each cell is a full run directory under cells/.

With several clusters (a clusters list, or -i repeated) the matrix is a
randomised block design: every configuration runs --repeat times on every
cluster, in an order drawn per cluster from --seed (recorded in matrix.json),
the clusters in parallel, and the report compares within clusters. A cluster
that stops answering is taken out and its unfinished rounds move, whole, to
the others (--fail-fast stops instead). Clusters whose servers differ in
flavour or major.minor version (MariaDB and MySQL) are refused, before any
host when their inventories name the flavour (mysql.flavor), else before
the first cell: the report would compare the servers, not the
configurations. --allow-mixed runs them and reports across them, labelled
NOT COMPARABLE.`,
		Example: `  orch matrix cluster.yaml --engines=innodb,tokudb --knobs=binlog_order_commits
  orch matrix -i inventories/lab.yaml --engines=innodb,rocksdb --knobs=sync_binlog=0,1 --repeat 2 \
      --workload pure-random-writes --tables 4 --threads 8 --time 20 --table-size 10000
  orch matrix -i inventories/lab.yaml --resume`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			resuming := cmd.Flags().Changed("resume")
			if resuming && resume == resumeLatest {
				resume = ""
				// `--resume RUNDIR`: a bare --resume leaves the directory as
				// the positional argument.
				if len(args) == 1 && isMatrixDir(args[0]) {
					resume, args = args[0], nil
				}
			}
			stackMode, err := b.stackMode("matrix")
			if err != nil {
				return err
			}
			if err := checkAAFlags(cmd, aa, noiseFloor); err != nil {
				return err
			}
			if resuming {
				if err := resumeKeepsThePlan(cmd); err != nil {
					return err
				}
			}
			rule, err := until.until(cmd, resuming)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("warmup") && warmup < 0 {
				return usagef("matrix: --warmup %d: want 0 or more seconds", warmup)
			}
			invs, err := g.Clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			over, err := b.overrides()
			if err != nil {
				return err
			}
			o := matrix.Options{Clusters: invs, Root: b.root, Resume: resuming, ResumeDir: resume,
				Spec: matrix.Spec{Engines: engines, Knobs: knobs, Workload: b.workload, Repeat: repeat, WarmupS: given(cmd, "warmup", warmup),
					Baseline: baseline, Overrides: over, AA: aa, Until: rule, RepeatSet: cmd.Flags().Changed("repeat"), Analysis: analysis},
				NoiseFloor: noiseFloor, AllowAsymmetry: allowAsymmetry, AllowMixed: allowMixed, AllowUnsafe: allowUnsafe, DryRun: dryRun, FailFast: failFast, KeepRemote: b.keepRemote,
				WaitRunning: waitRunning, StallLimit: b.stallLimit, Stacks: stackMode, Version: buildVersion(), Command: os.Args,
				Connect: g.ConnectAll, Out: cmd.OutOrStdout(), Err: cmd.ErrOrStderr(), Terminal: isTerminal(cmd.ErrOrStderr()), Verbose: g.verbose,
				Store: store.file, StoreConfig: store.config}
			if cmd.Flags().Changed("seed") {
				o.Seed = &seed
			}
			return useCaseErr(cmd.Context(), matrix.Run(cmd.Context(), o))
		},
	}
	f := cmd.Flags()
	f.StringVar(&engines, "engines", "", "engine profiles to compare, comma-separated (default: inventory profile.engine)")
	f.StringArrayVar(&knobs, "knobs", nil, "knob axis: NAME (ON,OFF), NAME=V1,V2; several separated by ';' (repeatable)")
	allowUnsafeFlag(f, &allowUnsafe)
	b.register(f, "pure-random-writes", "a cell")
	f.IntVar(&repeat, "repeat", 1, "runs of each configuration (interleaved)")
	f.IntVar(&warmup, "warmup", 0, "seconds at the start of each run left out of every figure: when given, the warm-up of every run "+
		"(recorded in matrix.json; the report says --warmup N s); when not, detected per run as a sustained level change from the start "+
		"of its per-second rate (a dip that recovers within the run's first half is not a warm-up; stack-sampling spans are left out first), "+
		"10 s for runs with too few intervals")
	f.StringVar(&baseline, "baseline", "", "configuration label to compare against (default: first engine, first knob values)")
	f.StringVar(&resume, "resume", "", "continue an interrupted matrix: --resume [RUNDIR] (default: the latest under --runs)")
	f.Lookup("resume").NoOptDefVal = resumeLatest
	f.BoolVar(&dryRun, "dry-run", false, "print the plan and stop")
	f.BoolVar(&failFast, "fail-fast", false, "stop at the first failed cell (or unreachable cluster)")
	f.Int64Var(&seed, "seed", 0, "several clusters: seed of the randomised order of each cluster's cells (default: random, printed and recorded)")
	f.BoolVar(&waitRunning, "wait-running", false, "--resume: let a benchmark the interrupted cell left running on the load box finish (default: stop it), then redo the cell")
	f.BoolVar(&allowAsymmetry, "allow-asymmetry", false, "run although the configurations differ in durability beyond the matrix's axes, or a knob sets the durability, cache or IO of one engine only")
	f.BoolVar(&allowMixed, "allow-mixed", false, "several clusters: run them although their servers differ in flavour or major.minor version, "+
		"and report across them (labelled NOT COMPARABLE, as orch report --allow-mixed) instead of refusing")
	f.BoolVar(&aa, "aa", false, "A/A: run the one configuration of --engines/--knobs twice, as arms (a) and (b), interleaved; the report states the cluster's noise floor")
	f.StringVar(&noiseFloor, "noise-floor", matrix.NoiseFloorAuto, "A/A matrix whose noise floor the report holds verdicts against: DIR, auto (the newest finished A/A of the workload under --runs) or none")
	until.register(f)
	f.StringVar(&analysis, "analysis", "", "pre-register the report's analysis, recorded in matrix.json before any run: blocked (each round's ratio, t across rounds; "+
		"the default, as the matrix runs in rounds) or unpaired (ratio of means, Fieller's interval, rounds ignored); the stopping rule judges with it")
	store.register(f, true)
	return cmd
}

// planFlags shape the matrix's cells: --resume goes on with the plan the
// matrix recorded, so a new value for one of them would be silently
// ignored (a --time 60 resume of a --time 30 matrix running 30 s cells).
var planFlags = append([]string{"engines", "knobs", "workload", "repeat", "warmup", "baseline", "set", "aa", "seed", "noise-floor", "analysis"},
	shortOverrides...)

// resumeKeepsThePlan refuses, in one line, a --resume given a plan flag.
func resumeKeepsThePlan(cmd *cobra.Command) error {
	var set []string
	for _, name := range planFlags {
		if cmd.Flags().Changed(name) {
			set = append(set, "--"+name)
		}
	}
	if len(set) == 0 {
		return nil
	}
	return usagef("matrix: --resume goes on with the plan the matrix recorded (matrix.json): %s would be ignored; drop %s, or start a new matrix", strings.Join(set, ", "), map[bool]string{true: "them", false: "it"}[len(set) > 1])
}

// resumeLatest is --resume without a directory.
const resumeLatest = "latest"

// isMatrixDir reports whether dir holds a matrix.json.
func isMatrixDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "matrix.json"))
	return err == nil
}

// given is the flag's value when the user set it, nil when not: what the
// user set wins over what orch would guess, so "not set" must stay known.
func given(cmd *cobra.Command, name string, v int) *int {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}

// useCaseErr is a use case's error as the command exits with it: bad input
// exits 2, an interrupted command 130.
func useCaseErr(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if orchestrator.IsBadInput(err) {
		return &usageError{msg: err.Error()}
	}
	if ctx.Err() != nil {
		return &exitError{code: exitInterrupted, err: err}
	}
	return err
}
