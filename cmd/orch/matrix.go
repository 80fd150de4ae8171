package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/matrix"
	"github.com/orch-bench/orch/orchestrator/report"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/stacks"
	"github.com/orch-bench/orch/topology"
)

func newMatrixCmd(g *globalOptions) *cobra.Command {
	var (
		engines, workload, root, baseline, resume string
		knobs, sets                               []string
		repeat, warmup                            int
		dryRun, failFast, keepRemote, waitRunning bool
		allowAsymmetry, aa                        bool
		noiseFloor                                string
		stallLimit                                time.Duration
		stacksFlag                                string
		seed                                      int64
		until                                     untilFlags
		short                                     = map[string]*string{}
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
the others (--fail-fast stops instead).`,
		Example: `  orch matrix cluster.yaml --engines=innodb,tokudb --knobs=binlog_order_commits
  orch matrix -i inventories/lab.yaml --engines=innodb,rocksdb --knobs=sync_binlog=0,1 --repeat 2 \
      --workload pure-random-writes --tables 4 --threads 8 --time 20 --table-size 10000
  orch matrix -i inventories/lab.yaml --resume`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			stderr := cmd.ErrOrStderr()
			logf := func(f string, a ...any) { fmt.Fprintf(stderr, f+"\n", a...) }
			resuming := cmd.Flags().Changed("resume")
			if resuming && resume == resumeLatest {
				resume = ""
				// `--resume RUNDIR`: a bare --resume leaves the directory as
				// the positional argument.
				if len(args) == 1 && isMatrixDir(args[0]) {
					resume, args = args[0], nil
				}
			}
			stackMode, err := stacks.ParseMode(stacksFlag)
			if err != nil {
				return usagef("matrix: %v", err)
			}
			if err := checkAAFlags(cmd, aa, noiseFloor); err != nil {
				return err
			}
			rule, err := until.until(cmd, resuming)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("warmup") && warmup < 0 {
				return usagef("matrix: --warmup %d: want 0 or more seconds", warmup)
			}
			invs, err := g.clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			if engines == "" && !resuming {
				engines = defaultEngines(invs)
			}
			if len(invs) > 1 {
				over, err := overrides(short, sets)
				if err != nil {
					return err
				}
				return runBlockedMatrix(cmd, g, invs, blockedArgs{engines: engines, workload: workload, root: root, baseline: baseline,
					resume: resume, knobs: knobs, over: over, repeat: repeat, warmup: given(cmd, "warmup", warmup), resuming: resuming, dryRun: dryRun,
					failFast: failFast, stallLimit: stallLimit, seed: seed, seedSet: cmd.Flags().Changed("seed"),
					keepRemote: keepRemote, waitRunning: waitRunning, allowAsymmetry: allowAsymmetry, stacks: stackMode, aa: aa, noiseFloor: noiseFloor,
					until: rule, repeatSet: cmd.Flags().Changed("repeat")})
			}
			inv := invs[0]
			if err := validateForRun(inv); err != nil {
				return err
			}
			var m *matrix.Matrix
			if resuming {
				if m, err = matrix.LoadResume(root, resume, nil); err != nil {
					return &usageError{msg: err.Error()}
				}
				logf("matrix: resuming %s: %d of %d cells left", m.Dir(), len(m.Remaining()), len(m.Cells))
			} else {
				over, err := overrides(short, sets)
				if err != nil {
					return err
				}
				spec := matrix.Spec{Engines: engines, Knobs: knobs, Workload: workload, Repeat: repeat, WarmupS: given(cmd, "warmup", warmup), Baseline: baseline, Overrides: over, AA: aa,
					Until: rule, RepeatSet: cmd.Flags().Changed("repeat")}
				if m, err = matrix.Build(spec); err != nil {
					return &usageError{msg: err.Error()}
				}
				if err := planNoiseFloor(cmd, m, noiseFloor, root); err != nil {
					return err
				}
			}
			for _, e := range m.Engines {
				if err := server.CheckDesired(inv, server.Desired{Engine: e}, "--engines"); err != nil {
					return usagef("%v", err)
				}
			}
			makeWorkload := m.CellWorkload
			w, err := makeWorkload(m.Engines[0])
			if err == nil {
				err = runner.CheckClients(inv, w)
			}
			if err != nil {
				return &usageError{msg: err.Error()}
			}
			if err := matrix.WritePlan(cmd.OutOrStdout(), m, matrix.CostsOf(w)); err != nil {
				return err
			}
			// Linted before any host when the inventory names the flavour,
			// else once the servers have said what they are.
			linted, err := lintPlan(cmd, inv, m, "", allowAsymmetry)
			if err != nil {
				return err
			}
			if dryRun {
				return nil
			}
			warnWeakSecrets(stderr, inv)
			ctx := cmd.Context()
			c := g.connect(ctx, inv, inv.Hosts)
			defer c.Close()
			if err := c.ConnectErr(); err != nil {
				return err
			}
			if err := c.Lock(ctx, "orch matrix"); err != nil {
				return err
			}
			if !resuming {
				srv, err := validatePlan(cmd, c, m)
				if err != nil {
					return err
				}
				if !linted {
					if _, err := lintPlan(cmd, inv, m, string(srv.Flavor)+":"+srv.Version.String(), allowAsymmetry); err != nil {
						return err
					}
				}
				if _, err := matrix.Create(root, m, time.Now()); err != nil {
					return err
				}
				logf("matrix: %s", m.Dir())
			}
			progress := &runner.Progress{W: stderr, Terminal: isTerminal(stderr)}
			if w.Options.TimeS != nil {
				progress.Total = time.Duration(*w.Options.TimeS) * time.Second
			}
			err = matrix.Execute(ctx, m, matrix.ExecConfig{
				Cluster: c, Workload: makeWorkload, Version: buildVersion(), Command: os.Args, Costs: matrix.CostsOf(w),
				FailFast: failFast, StallLimit: stallLimit, KeepRemote: keepRemote, WaitRunning: waitRunning, Stacks: stackMode, Progress: progress, Logf: logf,
				Secrets: runner.Secrets(inv), Judge: report.JudgeMatrix,
			})
			writeMatrixEnd(cmd, m)
			if rerr := writeMatrixReport(cmd, m.Dir()); rerr != nil && err == nil {
				err = rerr
			}
			if ctx.Err() != nil {
				return &exitError{code: exitInterrupted, err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&engines, "engines", "", "engine profiles to compare, comma-separated (default: inventory profile.engine)")
	f.StringArrayVar(&knobs, "knobs", nil, "knob axis: NAME (ON,OFF), NAME=V1,V2; several separated by ';' (repeatable)")
	f.StringVar(&workload, "workload", "pure-random-writes", "workload: an embedded name or a YAML file")
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
	f.BoolVar(&keepRemote, "keep-remote", false, "keep each cell's working directory on the load box (removed once collected)")
	f.BoolVar(&waitRunning, "wait-running", false, "--resume: let a benchmark the interrupted cell left running on the load box finish (default: stop it), then redo the cell")
	f.BoolVar(&allowAsymmetry, "allow-asymmetry", false, "run although the configurations differ in durability beyond the matrix's axes, or a knob sets the durability, cache or IO of one engine only")
	f.BoolVar(&aa, "aa", false, "A/A: run the one configuration of --engines/--knobs twice, as arms (a) and (b), interleaved; the report states the cluster's noise floor")
	f.StringVar(&noiseFloor, "noise-floor", noiseFloorAuto, "A/A matrix whose noise floor the report holds verdicts against: DIR, auto (the newest finished A/A of the workload under --runs) or none")
	f.StringVar(&root, "runs", "runs", "directory that holds run directories")
	f.StringArrayVar(&sets, "set", nil, "workload option override KEY=VALUE (repeatable)")
	f.DurationVar(&stallLimit, "stall-limit", 60*time.Second, "stop a cell when the master makes no progress this long")
	f.StringVar(&stacksFlag, "stacks", "auto", stacksHelp)
	until.register(f)
	for _, k := range []string{"threads", "time", "tables", "table-size", "events", "concurrency", "iterations"} {
		short[k] = f.String(k, "", "workload override: "+k)
	}
	return cmd
}

// lintPlan prints the plan's fairness warnings and refuses a durability
// asymmetry, or any a knob makes for one engine only, unless allowed. hint names the servers' flavour ("" for the
// inventory's); without one the lint waits for the servers (linted false,
// said on stderr), so that an inventory without mysql.flavor still runs.
func lintPlan(cmd *cobra.Command, inv *topology.Inventory, m *matrix.Matrix, hint string, allow bool) (linted bool, err error) {
	ws, err := matrix.Fairness(inv, m, hint)
	if err != nil {
		if hint == "" {
			fmt.Fprintf(cmd.ErrOrStderr(), "matrix: fairness checked once the servers are known (%v)\n", err)
			return false, nil
		}
		return false, fmt.Errorf("matrix: fairness: %w", err)
	}
	if err := matrix.WriteFairness(cmd.OutOrStdout(), ws); err != nil {
		return true, err
	}
	if w, refused := fairness.Refusal(ws); refused && !allow {
		if w.Knob != nil {
			return true, usagef("matrix: %s", w.Knob.Line(w))
		}
		return true, usagef("matrix: the configurations differ in durability beyond the matrix's axes (ASYMMETRY above): fix the profiles or pass --allow-asymmetry")
	}
	return true, nil
}

// writeMatrixEnd is the matrix's closing count, and why its rule stopped.
func writeMatrixEnd(cmd *cobra.Command, m *matrix.Matrix) {
	w := cmd.OutOrStdout()
	line := fmt.Sprintf("matrix %s: %d ok, %d failed, %d not run", m.Dir(), m.Count(matrix.OK), m.Count(matrix.Failed), len(m.Remaining()))
	if n := m.Count(matrix.Skipped); n > 0 {
		line += fmt.Sprintf(", %d not needed", n)
	}
	fmt.Fprintln(w, line)
	if u := m.Until; u != nil && u.Stopped {
		fmt.Fprintf(w, "matrix: %s\n", u.Why)
	}
}

// resumeLatest is --resume without a directory.
const resumeLatest = "latest"

// isMatrixDir reports whether dir holds a matrix.json.
func isMatrixDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "matrix.json"))
	return err == nil
}

// validatePlan checks the plan against the servers (matrix.Validate) and
// says which knobs have no effect on them.
func validatePlan(cmd *cobra.Command, c *cluster.Cluster, m *matrix.Matrix) (flavor.Server, error) {
	srv, err := matrix.Validate(cmd.Context(), c, m)
	if err != nil {
		return srv, err
	}
	for name, why := range m.NoEffect {
		fmt.Fprintf(cmd.ErrOrStderr(), "matrix: WARNING %s has no effect on this server: %s\n", name, why)
	}
	return srv, nil
}

// writeMatrixReport writes report.md, report.html and results.csv into the
// matrix directory, as `orch report DIR` would.
func writeMatrixReport(cmd *cobra.Command, dir string) error {
	formats := []string{report.FormatMarkdown, report.FormatHTML, report.FormatCSV}
	rep, paths, err := report.Generate([]string{dir}, dir, formats, report.Options{})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	for _, p := range paths {
		fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", p)
	}
	// The verdicts (and fairness warnings), not only where they are.
	fmt.Fprint(cmd.OutOrStdout(), rep.Summary())
	return nil
}

// given is the flag's value when the user set it, nil when not: what the
// user set wins over what orch would guess, so "not set" must stay known.
func given(cmd *cobra.Command, name string, v int) *int {
	if !cmd.Flags().Changed(name) {
		return nil
	}
	return &v
}
