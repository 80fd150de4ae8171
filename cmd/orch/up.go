package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/topology"
)

func newUpCmd(g *globalOptions) *cobra.Command {
	var (
		engine, profileDir, flavorHint string
		knobs                          []string
		dryRun, fixTHP, asJSON, adopt  bool
		verifyTimeout                  time.Duration
		logPath                        string
		allowUnsafe                    []string
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
			invs, err := g.Clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			u, err := runner.NewUp(runner.UpOptions{ClusterOptions: g.clusterOptions(cmd, invs, logPath),
				Engine: engine, Knobs: knobs, ProfileDir: profileDir, DryRun: dryRun, FlavorHint: flavorHint,
				FixTHP: fixTHP, JSON: asJSON, AdoptAccounts: adopt, VerifyTimeout: verifyTimeout, AllowUnsafe: allowUnsafe})
			if err != nil {
				return useCaseErr(cmd.Context(), err)
			}
			defer exitOnSecondInterrupt(cmd.Context(), cmd.ErrOrStderr(), "up", u.Unfinished)()
			return useCaseErr(cmd.Context(), u.Run(cmd.Context()))
		},
	}
	f := cmd.Flags()
	f.StringVar(&engine, "engine", "", "engine profile: innodb, tokudb, rocksdb or one of --profile-dir (default: inventory profile.engine, else innodb)")
	f.StringArrayVar(&knobs, "knob", nil, "server variable override NAME=VALUE (repeatable)")
	allowUnsafeFlag(f, &allowUnsafe)
	f.StringVar(&profileDir, "profile-dir", "", "directory of NAME.cnf profile templates that replace the embedded ones")
	f.BoolVar(&dryRun, "dry-run", false, "print the config files and statements per host; connect to nothing, change nothing")
	f.StringVar(&flavorHint, "flavor", "", "server for --dry-run: mariadb, mysql or percona, optionally :VERSION (default: inventory mysql.flavor)")
	f.BoolVar(&fixTHP, "fix-thp", false, "turn transparent huge pages off where TokuDB needs it (else fail with instructions)")
	f.BoolVar(&asJSON, "json", false, "print the report (per-host results, replication steps, status, timings) as JSON")
	f.BoolVar(&adopt, "adopt-accounts", false, "take over existing accounts with orch's names that orch did not make (sets their passwords and grants; says which)")
	f.DurationVar(&verifyTimeout, "verify-timeout", runner.DefaultVerifyTimeout, "how long replication may take to prove itself")
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
			invs, err := g.Clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			return useCaseErr(cmd.Context(), runner.Down(cmd.Context(), g.clusterOptions(cmd, invs, logPath), purge))
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
			invs, err := g.Clusters(strings.Join(args, ""))
			if err != nil {
				return err
			}
			return useCaseErr(cmd.Context(), runner.Status(cmd.Context(), g.clusterOptions(cmd, invs, ""), asJSON))
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
