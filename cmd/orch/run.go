package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/report"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/stacks"
)

// exitInterrupted is the status of a run stopped with Ctrl-C (128+SIGINT).
const exitInterrupted = 130

func newRunCmd(g *globalOptions) *cobra.Command {
	var (
		workload, engine, root  string
		knobs, sets             []string
		noUp, keepRemote        bool
		stallLimit              time.Duration
		stacksFlag, monitorFlag string
		short                   = map[string]*string{}
	)
	cmd := &cobra.Command{
		Use:   "run [INVENTORY] --workload NAME|FILE",
		Short: "Run one benchmark from the load box while watching the cluster; keep everything in a run directory",
		Long: `run brings the cluster to the wanted engine and knobs (as up does; --no-up skips
it), prepares the dataset unless it already matches, and runs the workload's
benchmark detached on the load box, so a dropped connection does not stop it:
orch follows its output, shows progress and re-attaches. Monitors sample every
database host each second into CSV time series; a master that stalls longer
than --stall-limit stops the run with that diagnosis. Afterwards the slaves
must catch up and agree with the master (CHECKSUM TABLE, row counts), and
the engine footprint is measured. Then the servers' thread stacks (--stacks)
are sampled in a profiling tail: a few seconds more of the same workload,
after the measured load, into benchmark/profile.txt, which no figure reads,
because a sampler slows (perf) or stops (gdb) the server. Everything lands in runs/<UTC>-<name>/
(runs/latest points at it): manifest.json, results.json, raw output, host
snapshots, error log slices and time series. No password is ever written there.

Workloads: the embedded pure-random-writes, mysqlslap-write, db-insert, or a
YAML file. Ctrl-C stops the benchmark, collects what there is and marks the
run interrupted.`,
		Example: `  orch run cluster.yaml --workload pure-random-writes
  orch run -i inventories/lab.yaml --workload pure-random-writes --engine rocksdb \
      --tables 4 --threads 16 --time 20 --table-size 10000
  orch run cluster.yaml --workload mysqlslap-write --set concurrency=50 --set iterations=2`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			inv, err := g.loadInventory(strings.Join(args, ""))
			if err != nil {
				return err
			}
			stackMode, err := stacks.ParseMode(stacksFlag)
			if err != nil {
				return usagef("run: %v", err)
			}
			noMonitors, err := parseMonitorFlag(monitorFlag)
			if err != nil {
				return err
			}
			over, err := overrides(short, sets)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			out, err := runner.Bench(ctx, runner.BenchOptions{
				Inventory: inv, Workload: workload, Engine: engine, Knobs: knobs, Overrides: over, NoUp: noUp, Root: root,
				StallLimit: stallLimit, KeepRemote: keepRemote, Stacks: stackMode, NoMonitors: noMonitors,
				Connect: g.connectInventory, Version: buildVersion(), Command: os.Args,
				Err: cmd.ErrOrStderr(), Terminal: isTerminal(cmd.ErrOrStderr()), Verbose: g.verbose,
			})
			if out == nil {
				if errors.Is(err, runner.ErrInterrupted) { // up, stopped by Ctrl-C
					return &exitError{code: exitInterrupted, err: err}
				}
				return useCaseErr(ctx, err)
			}
			printOutcome(cmd, out)
			switch {
			case errors.Is(err, runner.ErrInterrupted) || out.Status == rundir.StatusInterrupted:
				return &exitError{code: exitInterrupted, err: fmt.Errorf("run interrupted: stopped the benchmark and collected what there is in %s", out.Dir.Path())}
			case err != nil:
				return err
			case ctx.Err() != nil:
				return &exitError{code: exitInterrupted, err: fmt.Errorf("interrupted in the profiling tail: the run itself is complete in %s (its stack samples may be missing)", out.Dir.Path())}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&workload, "workload", "", "workload: an embedded name ("+strings.Join(bench.BuiltinWorkloads(), ", ")+") or a YAML file")
	f.StringVar(&engine, "engine", "", "engine profile for the cluster and the tables (default: inventory profile.engine)")
	f.StringArrayVar(&knobs, "knob", nil, "server variable override NAME=VALUE (repeatable)")
	f.StringArrayVar(&sets, "set", nil, "workload option override KEY=VALUE (repeatable), e.g. concurrency=4,8")
	for _, k := range []string{"threads", "time", "tables", "table-size", "events", "concurrency", "iterations"} {
		short[k] = f.String(k, "", "workload override: "+k)
	}
	f.BoolVar(&noUp, "no-up", false, "do not bring the cluster to the engine and knobs first")
	f.BoolVar(&keepRemote, "keep-remote", false, "keep the benchmark's working directory on the load box (removed once collected)")
	f.StringVar(&root, "runs", "runs", "directory that holds run directories")
	f.DurationVar(&stallLimit, "stall-limit", 60*time.Second, "stop the run when the master makes no progress this long")
	f.StringVar(&stacksFlag, "stacks", "auto", stacksHelp)
	f.StringVar(&monitorFlag, "monitor", "on", "on, or off: no per-second time series, no stall watchdog and no monitor figures in the report; only for measuring what orch's watching costs (make bench)")
	return cmd
}

// parseMonitorFlag reads --monitor: true means off.
func parseMonitorFlag(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "on", "":
		return false, nil
	case "off":
		return true, nil
	}
	return false, usagef("run: --monitor %q: want on or off", s)
}

// fromManifest returns the inventory file the run directory recorded,
// taking for an ips.txt the SSH settings it ran with where no flag is set.
func (g *globalOptions) fromManifest(d *rundir.Dir) (string, error) {
	m, err := d.LoadManifest()
	if err != nil {
		return "", err
	}
	r, err := m.RecordedInventory()
	if err != nil {
		return "", err
	}
	if r.Format == "ips" && len(r.Hosts) > 0 {
		ssh := r.Hosts[0].SSH
		if g.sshUser == "" {
			g.sshUser = ssh.User
		}
		if g.sshPort == 0 {
			g.sshPort = ssh.Port
		}
		if len(g.identities) == 0 {
			g.identities = ssh.IdentityFiles
		}
	}
	if g.knownHosts == "" {
		g.knownHosts = r.KnownHostsFile
	}
	return r.Source, nil
}

// overrides merges the short flags and --set KEY=VALUE into one map.
func overrides(short map[string]*string, sets []string) (map[string]string, error) {
	over := map[string]string{}
	for k, v := range short {
		if *v != "" {
			over[k] = *v
		}
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: want KEY=VALUE", s)
		}
		over[k] = v
	}
	return over, nil
}

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// printOutcome prints where the run is and its figures, as its report
// computes them over the run's one window (report.RunSummary).
func printOutcome(cmd *cobra.Command, out *runner.Outcome) {
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "run %s: %s\n", out.Status, out.Dir.Path())
	res := out.Results
	if res == nil {
		return
	}
	if res.Benchmark.Result != nil {
		sum, err := report.RunSummary(out.Dir.Path())
		if err != nil {
			sum = fmt.Sprintf("no figures: %v (orch report %s says more)\n", err, out.Dir.Path())
		}
		for _, l := range strings.Split(strings.TrimSuffix(sum, "\n"), "\n") {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if res.Consistency != nil {
		verdict := "ok: CHECKSUM TABLE and row counts match on master and slaves"
		if !res.Consistency.OK {
			verdict = "MISMATCH: " + res.Consistency.Summary()
		}
		fmt.Fprintf(w, "  consistency: %s\n", verdict)
	}
	for _, c := range res.Checks {
		fmt.Fprintf(w, "  FAILED CHECK: %s\n", c)
	}
}

func newCollectCmd(g *globalOptions) *cobra.Command {
	var root string
	var keepRemote bool
	cmd := &cobra.Command{
		Use:   "collect [RUNDIR]",
		Short: "Fetch whatever a run directory should hold but does not yet (resumable, idempotent)",
		Long: `collect completes a run directory from the hosts in the inventory: the
benchmark's output once it has ended (after an interrupted run, a detached run
or a crash of this machine), error log slices for the run window, and any
other file the manifest expects. Partial files are resumed, transfers are
compressed, and a second collect fetches nothing. RUNDIR defaults to the
latest run.`,
		Example: `  orch collect
  orch collect -i cluster.yaml runs/20261129T221102Z-pure-random-writes-innodb`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			var d *rundir.Dir
			var err error
			if len(args) == 1 {
				d, err = rundir.Open(args[0])
			} else {
				d, err = rundir.OpenLatest(root)
			}
			if err != nil {
				return &usageError{msg: err.Error()}
			}
			path := ""
			if !cmd.Flags().Changed("inventory") {
				// The run directory knows its inventory (and the SSH
				// flags an ips.txt ran with).
				if path, err = g.fromManifest(d); err != nil {
					return &usageError{msg: fmt.Sprintf("%s: %v (give -i)", d.Path(), err)}
				}
			}
			inv, err := g.loadInventory(path)
			if err != nil {
				return err
			}
			if err := runner.CheckSources(d, inv); err != nil {
				return &usageError{msg: err.Error()}
			}
			c := g.connect(cmd.Context(), inv, inv.Hosts)
			defer c.Close()
			res, err := runner.Collect(cmd.Context(), d, c, keepRemote)
			w := cmd.OutOrStdout()
			if res != nil && res.Report != nil {
				fetched := 0
				for _, f := range res.Report.Files {
					if f.Outcome == rundir.Fetched {
						fetched++
						fmt.Fprintf(w, "fetched %s:%s -> %s (%d bytes, %d on the wire", f.Host, f.Remote, f.Local, f.Written, f.WireBytes)
						if f.ResumedAt > 0 {
							fmt.Fprintf(w, ", resumed at %d", f.ResumedAt)
						}
						fmt.Fprintln(w, ")")
					} else if f.Outcome != rundir.Present {
						fmt.Fprintf(w, "%s %s:%s -> %s %s\n", f.Outcome, f.Host, f.Remote, f.Local, f.Error)
					}
				}
				fmt.Fprintf(w, "collect: %s: %d file(s) fetched, %d already present\n", d.Path(), fetched, len(res.Report.Files)-fetched)
				if res.StillRunning {
					fmt.Fprintln(w, "collect: the benchmark is still running; run orch collect again when it ends")
				}
				if res.Parsed {
					fmt.Fprintln(w, "collect: results.json updated from the benchmark output")
				}
				if res.RemovedRemote {
					fmt.Fprintln(w, "collect: removed the benchmark's working directory from its host (--keep-remote keeps it)")
				}
			}
			return err
		},
	}
	cmd.Flags().StringVar(&root, "runs", "runs", "directory that holds run directories")
	cmd.Flags().BoolVar(&keepRemote, "keep-remote", false, "keep the benchmark's working directory on its host after a complete collect")
	return cmd
}

// stacksHelp documents --stacks for run and matrix.
const stacksHelp = "thread stacks of the master and a slave, taken in a profiling tail after the run's load and checks " +
	"(a few seconds more of the same workload that no figure reads), never inside the measured load: off, perf, " +
	"gdb (stops the server for each snapshot; the stop is measured), or auto (perf where perf record works, else off)"
