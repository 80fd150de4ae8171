package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

func newExecCmd(g *globalOptions) *cobra.Command {
	var role string
	var sudo bool
	cmd := &cobra.Command{
		Use:   "exec [flags] -- COMMAND...",
		Short: "Run a shell command on the chosen hosts in parallel",
		Long: `exec runs COMMAND through the POSIX shell on every chosen host at once, like
ssh does (the words are joined with spaces, so pipes and globs work), and
prints each output line prefixed with the host name. It exits non-zero if the
command failed on any host or any host could not be reached.`,
		Example: `  orch exec cluster.yaml -- uptime
  orch exec -i cluster.yaml --role slave -- 'tail -n 20 /var/log/mysql/error.log'
  orch exec -i cluster.yaml --role db --sudo -- systemctl status mariadb`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			inv, err := g.loadInventory("")
			if err != nil {
				return err
			}
			hosts, err := inv.Select(role)
			if err != nil {
				return usagef("--role %s: %v", role, err)
			}
			if len(hosts) == 0 {
				return usagef("no %s hosts in %s", role, inv.Source)
			}
			c := g.connect(cmd.Context(), inv, hosts)
			defer c.Close()
			script := strings.Join(args, " ")
			out := &orchestrator.SyncWriter{W: cmd.OutOrStdout()}
			width := 0
			for _, h := range hosts {
				width = max(width, len(h.Name))
			}
			errs := c.Each(cmd.Context(), hosts, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
				prefix := fmt.Sprintf("%-*s | ", width, h.Name)
				stdout := &orchestrator.PrefixWriter{Out: out, Prefix: prefix}
				stderr := &orchestrator.PrefixWriter{Out: out, Prefix: prefix}
				_, err := ex.Run(ctx, executor.Command{Script: script, Sudo: sudo, Stdout: stdout, Stderr: stderr})
				stdout.Flush()
				stderr.Flush()
				return err
			})
			if err := orchestrator.Aggregate(errs); err != nil {
				failed := 0
				for _, e := range errs {
					if e != nil {
						failed++
					}
				}
				fmt.Fprintln(cmd.ErrOrStderr(), capLines(err.Error()))
				return &silentError{&exitError{code: exitFailure, err: fmt.Errorf("exec: failed on %d of %d hosts", failed, len(hosts))}}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&role, "role", "all", "hosts to run on: master, slave, loadbox, db, all, or a host name")
	cmd.Flags().BoolVar(&sudo, "sudo", false, "run as root through sudo when the SSH user is not root")
	return cmd
}
