package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
)

// exitInterrupted is the status of a run stopped with Ctrl-C (128+SIGINT).
const exitInterrupted = 130

func newRunCmd(g *globalOptions) *cobra.Command {
	var (
		b                   benchFlags
		engine, monitorFlag string
		knobs               []string
		allowUnsafe         []string
		noUp                bool
		store               storeFlags
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
			inv, err := g.Load(strings.Join(args, ""))
			if err != nil {
				return err
			}
			stackMode, err := b.stackMode("run")
			if err != nil {
				return err
			}
			noMonitors, err := parseMonitorFlag(monitorFlag)
			if err != nil {
				return err
			}
			over, err := b.overrides()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			out, err := runner.Bench(ctx, runner.BenchOptions{
				Inventory: inv, Workload: b.workload, Engine: engine, Knobs: knobs, AllowUnsafe: allowUnsafe, Overrides: over, NoUp: noUp, Root: b.root,
				StallLimit: b.stallLimit, KeepRemote: b.keepRemote, Stacks: stackMode, NoMonitors: noMonitors,
				Connect: g.ConnectAll, Version: buildVersion(), Command: os.Args,
				Err: cmd.ErrOrStderr(), Terminal: isTerminal(cmd.ErrOrStderr()), Verbose: g.verbose,
				Store: store.file, StoreConfig: store.config,
			})
			if out == nil {
				if errors.Is(err, runner.ErrInterrupted) { // up, stopped by Ctrl-C
					return &exitError{code: exitInterrupted, err: err}
				}
				return useCaseErr(ctx, err)
			}
			out.Write(cmd.OutOrStdout())
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
	b.register(f, "", "the run")
	f.StringVar(&engine, "engine", "", "engine profile for the cluster and the tables (default: inventory profile.engine)")
	f.StringArrayVar(&knobs, "knob", nil, "server variable override NAME=VALUE (repeatable)")
	allowUnsafeFlag(f, &allowUnsafe)
	f.BoolVar(&noUp, "no-up", false, "do not bring the cluster to the engine and knobs first")
	store.register(f, true)
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

func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
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
			return useCaseErr(cmd.Context(), runner.CollectDir(cmd.Context(), runner.CollectOptions{Dir: strings.Join(args, ""), Root: root,
				Access: &g.Access, InventoryGiven: cmd.Flags().Changed("inventory"), KeepRemote: keepRemote, Out: cmd.OutOrStdout()}))
		},
	}
	cmd.Flags().StringVar(&root, "runs", "runs", "directory that holds run directories")
	cmd.Flags().BoolVar(&keepRemote, "keep-remote", false, "keep the benchmark's working directory on its host after a complete collect")
	return cmd
}
