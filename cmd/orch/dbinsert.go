package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/dbinsert"
)

func newDBInsertCmd(g *globalOptions) *cobra.Command {
	var source, role string
	cmd := &cobra.Command{
		Use:   "dbinsert [INVENTORY] --source ARCHIVE|DIR",
		Short: "Build PerconaFT's db-insert (fractal tree) and db-insert-bdb (Berkeley DB) on the master",
		Long: `dbinsert sends a PerconaFT source tree (an archive, .tar.zst/.tar.gz/.tar, or
a directory; PerconaFT's examples branch, commit f85cba7e8, builds on Debian
12) to each chosen host, builds the fractal-tree library from it, then
PerconaFT's examples/db-insert.c against that library (db-insert) and against
the host's Berkeley DB (db-insert-bdb), in ~/.orch/dbinsert/<source sha256>/
of the SSH user (private, with build.log kept), and points
~/.orch/dbinsert/current at it: the db-insert workload's default programs. A
host that already has the build of that source is not built again. The host
needs: ` + dbinsert.Deps + `. Then:
orch matrix --workload db-insert --engines=tokudb,bdb compares them.`,
		Example: `  orch dbinsert -i inventories/lab.yaml --source ../shared/prebuilt/perconaft-f85cba7e8-src.tar.zst
  orch dbinsert cluster.yaml --source ~/src/PerconaFT --role db`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			inv, err := g.Load("")
			if err != nil {
				return err
			}
			logf := func(format string, a ...any) { fmt.Fprintf(cmd.ErrOrStderr(), format+"\n", a...) }
			_, err = dbinsert.Run(cmd.Context(), dbinsert.Options{Inventory: inv, Role: role, Source: source,
				Connect: g.Connect, Out: cmd.OutOrStdout(), Logf: logf})
			return useCaseErr(cmd.Context(), err)
		},
	}
	cmd.Flags().StringVar(&source, "source", "", "PerconaFT source: a .tar.zst, .tar.gz or .tar archive, or a directory")
	cmd.Flags().StringVar(&role, "role", "master", "hosts to build on: master, slave, loadbox, db, all, or a host name")
	return cmd
}
