package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/runner"
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
			inv, err := g.Load("")
			if err != nil {
				return err
			}
			err = runner.Exec(cmd.Context(), runner.ExecOptions{Inventory: inv, Role: role, Script: strings.Join(args, " "), Sudo: sudo,
				Connect: g.Connect, Out: cmd.OutOrStdout()})
			var failed *runner.ExecFailed
			if errors.As(err, &failed) {
				// Every host's failure, then only the status.
				fmt.Fprintln(cmd.ErrOrStderr(), capLines(failed.Err.Error()))
				return &silentError{&exitError{code: exitFailure, err: failed}}
			}
			return useCaseErr(cmd.Context(), err)
		},
	}
	cmd.Flags().StringVar(&role, "role", "all", "hosts to run on: master, slave, loadbox, db, all, or a host name")
	cmd.Flags().BoolVar(&sudo, "sudo", false, "run as root through sudo when the SSH user is not root")
	return cmd
}
