package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

func newUpCmd(g *globalOptions) *cobra.Command {
	var (
		engine, profileDir, flavorHint string
		knobs                          []string
		dryRun, fixTHP, asJSON, adopt  bool
		verifyTimeout                  time.Duration
		logPath                        string
	)
	cmd := &cobra.Command{
		Use:   "up [INVENTORY]",
		Short: "Configure the cluster: engine profile, knobs, semi-sync replication, and prove it",
		Long: `up turns three hosts with a MySQL-family server into a 1-master/2-slave cluster
with semi-synchronous replication (AFTER_SYNC by default), ready for a benchmark.

It renders the engine profile (innodb, tokudb, rocksdb, or your own from
--profile-dir) with the inventory's profile.vars and every --knob, checks each
variable against the server before anything restarts (unknown names fail with
a suggestion; names the server ignores are warned about), writes one
orch-owned config file per host (the previous one backed up), applies dynamic
changes with SET GLOBAL and restarts only for static ones, all hosts in
parallel. A server that will not start is rolled back. Then it wires
replication and proves it: threads running, semi-sync on both sides, and a
canary row read on both slaves. Run it again and nothing restarts.`,
		Example: `  orch up cluster.yaml
  orch up -i inventories/lab.yaml --engine rocksdb --knob sync_binlog=1
  orch up cluster.yaml --engine tokudb --dry-run --flavor percona:5.7.44`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := ""
			if len(args) == 1 {
				path = args[0]
			}
			invs, err := g.clusters(path)
			if err != nil {
				return err
			}
			if err := validateClusters(invs); err != nil {
				return err
			}
			kv, err := server.ParseKnobs(knobs)
			if err != nil {
				return usagef("%v", err)
			}
			if profileDir, err = topology.LocalPath(profileDir); err != nil {
				return usagef("--profile-dir: %v", err)
			}
			if flavorHint != "" {
				if !dryRun {
					return usagef("--flavor is for --dry-run: a real up reads the flavour from each server")
				}
				if _, _, err := flavor.ParseHint(flavorHint); err != nil {
					return usagef("--flavor %s: %v", flavorHint, err)
				}
			}
			desired := server.Desired{Engine: engine, Knobs: kv, ProfileDir: profileDir, FixTHP: fixTHP}
			for _, inv := range invs {
				if err := server.CheckDesiredAs(inv, desired, "--engine", flavorHint); err != nil {
					return usagef("%v", err)
				}
				if dryRun {
					// A dry run renders for the named flavour: without one
					// it is bad input, said before anything is printed.
					for _, h := range inv.DBHosts() {
						if _, err := server.OfflineTarget(h, inv, flavorHint); err != nil {
							return usagef("%v", err)
						}
					}
				}
			}
			if dryRun {
				logPath = "" // nothing is sent
			}
			cmdLog, err := openCommandLog(logPath)
			if err != nil {
				return err
			}
			defer closeCommandLog(cmdLog, logPath, cmd.ErrOrStderr(), "up")
			// One tracker per cluster: a second Ctrl-C names what every
			// cluster left mid-step.
			trackers := make(map[string]*up.Tracker, len(invs))
			for _, inv := range invs {
				trackers[inv.Name] = &up.Tracker{}
			}
			defer exitOnSecondInterrupt(cmd.Context(), cmd.ErrOrStderr(), "up", func() []string {
				var left []string
				for _, inv := range invs {
					left = append(left, trackers[inv.Name].Unfinished()...)
				}
				return left
			})()
			err = forEachCluster(cmd.Context(), invs, cmd.OutOrStdout(), cmd.ErrOrStderr(), func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error {
				if dryRun {
					return up.DryRun(out, inv, desired, flavorHint)
				}
				// The load box too: up proves it can log in before a restart.
				c := g.connect(ctx, inv, inv.Hosts)
				// Closing sends too (the lock is released on the hosts).
				defer logClusterCommands(c, cmdLog, inv, len(invs) > 1)()
				defer c.Close()
				if err := c.Lock(ctx, "orch up"); err != nil {
					return err
				}
				stop := runner.UpStillAt(ctx, errOut, "up", trackers[inv.Name])
				steps := runner.NewSteps(errOut, "up", g.verbose)
				rep, err := up.Up(ctx, c, up.Options{Desired: desired, VerifyTimeout: verifyTimeout, CheckPaths: true,
					Progress: steps.Event, Tracker: trackers[inv.Name], AdoptAccounts: adopt})
				stop()
				steps.Flush()
				if rep != nil && asJSON {
					enc := json.NewEncoder(out)
					enc.SetIndent("", "  ")
					if jerr := enc.Encode(rep); jerr != nil {
						return jerr
					}
				} else if rep != nil {
					for _, w := range rep.Warnings {
						fmt.Fprintf(errOut, "up: WARNING %s\n", w)
					}
					if rep.Status != nil {
						fmt.Fprintln(out)
						replication.WriteTable(out, rep.Status)
					}
					if len(rep.Timings) > 0 && g.verbose {
						fmt.Fprintln(out)
						writeTimings(out, rep.Timings, rep.Total)
					}
				}
				return err
			})
			var intr *up.Interrupted
			if errors.As(err, &intr) {
				return &exitError{code: exitInterrupted, err: err}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&engine, "engine", "", "engine profile: innodb, tokudb, rocksdb or one of --profile-dir (default: inventory profile.engine, else innodb)")
	f.StringArrayVar(&knobs, "knob", nil, "server variable override NAME=VALUE (repeatable)")
	f.StringVar(&profileDir, "profile-dir", "", "directory of NAME.cnf profile templates that replace the embedded ones")
	f.BoolVar(&dryRun, "dry-run", false, "print the config files and statements per host; connect to nothing, change nothing")
	f.StringVar(&flavorHint, "flavor", "", "server for --dry-run: mariadb, mysql or percona, optionally :VERSION (default: inventory mysql.flavor)")
	f.BoolVar(&fixTHP, "fix-thp", false, "turn transparent huge pages off where TokuDB needs it (else fail with instructions)")
	f.BoolVar(&asJSON, "json", false, "print the report (per-host results, replication steps, status, timings) as JSON")
	f.BoolVar(&adopt, "adopt-accounts", false, "take over existing accounts with orch's names that orch did not make (sets their passwords and grants; says which)")
	f.DurationVar(&verifyTimeout, "verify-timeout", up.DefaultVerifyTimeout, "how long replication may take to prove itself")
	f.StringVar(&logPath, "log", "", "append every command and SQL statement sent to the hosts to FILE, one JSON object per line, passwords redacted")
	return cmd
}

func newDownCmd(g *globalOptions) *cobra.Command {
	var (
		purge   bool
		logPath string
	)
	cmd := &cobra.Command{
		Use:   "down [INVENTORY]",
		Short: "Undo up: stop replication, remove orch's config (restoring the backup), restart",
		Long: `down undoes up: replication stopped and forgotten, semi-sync off, orch's config
file removed (the previous one put back) and every server restarted on it.
It keeps the data: the benchmark and canary schemas, the binary logs and GTID
history, and the accounts orch made on a stock server. --purge removes those
too, and the generated passwords in orch's state; accounts the inventory
names are never dropped.`,
		Example: `  orch down cluster.yaml
  orch down -i inventories/lab.yaml --purge`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			invs, err := g.clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			if err := validateClusters(invs); err != nil {
				return err
			}
			cmdLog, err := openCommandLog(logPath)
			if err != nil {
				return err
			}
			defer closeCommandLog(cmdLog, logPath, cmd.ErrOrStderr(), "down")
			return forEachCluster(cmd.Context(), invs, cmd.OutOrStdout(), cmd.ErrOrStderr(), func(ctx context.Context, inv *topology.Inventory, out, errOut io.Writer) error {
				c := g.connect(ctx, inv, inv.DBHosts())
				// Closing sends too (the lock is released on the hosts).
				defer logClusterCommands(c, cmdLog, inv, len(invs) > 1)()
				defer c.Close()
				if err := c.Lock(ctx, "orch down"); err != nil {
					return err
				}
				down := up.Down
				if purge {
					down = up.Purge
				}
				steps := runner.NewSteps(errOut, "down", g.verbose)
				rep, err := down(ctx, c, steps.Event)
				steps.Flush()
				if rep != nil {
					for _, l := range rep.Purged {
						fmt.Fprintln(errOut, "down: "+l)
					}
				}
				if rep != nil && len(rep.Timings) > 0 && g.verbose {
					writeTimings(out, rep.Timings, 0)
				}
				if err == nil && !purge {
					fmt.Fprintln(errOut, "down: left "+up.Left(inv))
				}
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&purge, "purge", false, "also drop orch's schemas, binary logs, GTID history and the accounts orch made, and forget their passwords")
	cmd.Flags().StringVar(&logPath, "log", "", "append every command and SQL statement sent to the hosts to FILE, one JSON object per line, passwords redacted")
	return cmd
}

func newStatusCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status [INVENTORY]",
		Short: "Show replication, semi-sync, lag and engine on every database host",
		Example: `  orch status cluster.yaml
  orch status -i inventories/lab.yaml --json`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			invs, err := g.clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			return forEachCluster(cmd.Context(), invs, cmd.OutOrStdout(), cmd.ErrOrStderr(), func(ctx context.Context, inv *topology.Inventory, out, _ io.Writer) error {
				c := g.connect(ctx, inv, inv.DBHosts())
				defer c.Close()
				st, err := up.Status(ctx, c)
				if err != nil {
					return err
				}
				if asJSON {
					enc := json.NewEncoder(out)
					enc.SetIndent("", "  ")
					if err := enc.Encode(st); err != nil {
						return err
					}
				} else {
					if err := replication.WriteTable(out, st.Status); err != nil {
						return err
					}
					fmt.Fprintln(out)
					up.WriteApplied(out, inv.DBHosts(), st.Applied)
				}
				if problems := st.Problems(); len(problems) > 0 {
					return &exitError{code: exitFailure, err: fmt.Errorf("status: %s", topology.CapJoin(problems, topology.MaxListedHosts, "; "))}
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

// exitOnSecondInterrupt makes a second Ctrl-C (or SIGTERM), once the first
// has cancelled ctx and the command is undoing its work, exit at once with
// status 130, saying which hosts were left mid-step. The returned function
// ends the watch.
func exitOnSecondInterrupt(ctx context.Context, w io.Writer, prefix string, unfinished func() []string) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		select {
		case <-sig:
		case <-done:
			return
		}
		left := unfinished()
		if len(left) == 0 {
			left = []string{"nothing mid-step"}
		}
		fmt.Fprintf(w, "%s: second interrupt: exiting without finishing the rollback; left unfinished: %s; run orch up again to converge\n", prefix, topology.CapJoin(left, topology.MaxListedHosts, "; "))
		os.Exit(exitInterrupted)
	}()
	return func() { close(done) }
}

// writeTimings prints per-step wall times, slowest first within each host.
func writeTimings(w io.Writer, timings []up.Timing, total time.Duration) {
	ts := append([]up.Timing(nil), timings...)
	sort.SliceStable(ts, func(i, j int) bool { return ts[i].Host < ts[j].Host })
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tSTEP\tTIME")
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Host, t.Step, t.Took.Round(time.Millisecond))
	}
	if total > 0 {
		fmt.Fprintf(tw, "total\t\t%s\n", total.Round(time.Millisecond))
	}
	tw.Flush()
}
