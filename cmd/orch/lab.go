package main

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/lab"
)

// newLabCmd is `orch lab`: the local four-host lab (root only).
func newLabCmd() *cobra.Command {
	cfg := &lab.Config{}
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Build, check, break and remove the local four-host lab (root)",
		Long: `lab manages a local test lab: four hosts (master, slave1, slave2, loadbox) on
this machine, each in its own network, mount, UTS, IPC and PID namespaces on a
bridge with no route out, each with its own sshd, host keys, /etc/mysql,
/var/lib/mysql, /var/log and /root. master and the slaves run MariaDB,
initialised but not configured for replication; the load box has the clients.

` + "`lab up`" + ` writes two inventories: lab.yaml (root with the lab's key) and, next to
it, lab-password.yaml (user bench with a password and sudo).`,
		Example: `  orch lab up
  orch lab up --systemd --subnet 10.98.0.0/24 --state-dir /var/lib/orch-lab-systemd -i /tmp/sd/lab.yaml
  orch lab status
  orch lab fault master link-down
  orch lab down`,
		Args: unknownCommand,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&cfg.StateDir, "state-dir", lab.DefaultStateDir, "where the lab keeps its state, keys, passwords and host files")
	// Shadows the global -i: here it is the inventory the lab writes.
	pf.StringVarP(&cfg.InventoryPath, "inventory", "i", lab.DefaultInventory,
		"inventory to write (lab-password.yaml goes next to it); down removes the ones the lab wrote")
	cmd.AddCommand(newLabUpCmd(cfg), newLabTreeCmd(cfg), newLabDownCmd(cfg), newLabStatusCmd(cfg), newLabFaultCmd(cfg), newLabHostInitCmd())
	return cmd
}

func newLabUpCmd(cfg *lab.Config) *cobra.Command {
	clusters := 1
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Build the lab (or, if it is up and healthy, only rewrite the inventories)",
		Long: `up builds the four hosts, starts sshd everywhere and MariaDB on master, slave1
and slave2, and writes the inventories. Run twice it is harmless: a healthy lab
is kept (the inventories are rewritten), a half-made one is torn down and rebuilt.

With --systemd, each host is instead a container (systemd-nspawn) booting a
stock Debian 12 tree with systemd as PID 1: openssh-server, mariadb-server and
mariadb-plugin-rocksdb installed by apt, root on the unix socket, mariadb.service,
journald; the load box has sysbench and its server masked. The tree is built
once with debootstrap from this machine's Debian mirror (about 2 min) and
cached in --cache-dir; every host boots an overlay of it with its own /etc,
/var and datadir. The inventory names only the hosts and root's SSH key (no
MySQL account); down keeps the cached tree.

With --flavor mysql, the lab is a systemd lab whose master and slaves boot a
Debian sid tree with Oracle MySQL 9.7 (mysql-server, root on the unix socket,
mysql.service), built once like the Debian 12 tree (about 4 min, 0.9 GB); the
load box boots the Debian 12 tree (sysbench 1.0.20, mariadb-client). The
inventory names flavor mysql. --clusters N > 1 is refused with it.

With --flavor tokudb, master and slaves run MariaDB 10.5.23 built with TokuDB
5.6.49-89.0 (InnoDB and TokuDB; jemalloc preloaded by mysqld_safe's malloc-lib,
as TokuDB needs), in the namespace lab; the load box is as above. The server
tree comes from --server-archive FILE (or $` + lab.ArchiveEnv + `; checked against
--server-sha256 or the SHA256SUMS beside it), else from the cache, else it is
built from Debian bullseye's mariadb-10.5 source package (about 15-30 min; the
log and the tree stay in --cache-dir). --clusters N > 1 and --systemd are refused
with it.

Flavours:
` + lab.FlavorHelp() + `
With --loadboxes N, the cluster has N load boxes: loadbox, then loadbox2 ...
at the next addresses (.15, ...), all in the one inventory; orch run then
drives the cluster from all of them at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := *cfg
			c.Out = cmd.ErrOrStderr()
			if err := lab.CheckUp(c, clusters); err != nil {
				return useCaseErr(cmd.Context(), err)
			}
			return lab.UpClusters(cmd.Context(), c, clusters)
		},
	}
	cmd.Flags().IntVar(&clusters, "clusters", 1, "clusters of four hosts to build, each on the next subnet, in one inventory with a clusters list")
	cmd.Flags().IntVar(&cfg.LoadBoxes, "loadboxes", 1, "load boxes per cluster: loadbox, loadbox2, ... at the addresses after .14")
	cmd.Flags().StringVar(&cfg.Subnet, "subnet", "",
		"IPv4 network of the lab, /28 or larger and unused (default "+lab.DefaultSubnet+", or the running lab's)")
	cmd.Flags().BoolVar(&cfg.Systemd, "systemd", false,
		"boot stock Debian 12 hosts with systemd as PID 1 (needs debootstrap and systemd-container)")
	cmd.Flags().StringVar(&cfg.CacheDir, "cache-dir", lab.DefaultCacheDir,
		"where --systemd, --flavor mysql and --flavor tokudb keep their Debian trees and server builds between runs (down keeps them)")
	labFlavorFlags(cmd, cfg)
	return cmd
}

func newLabDownCmd(cfg *lab.Config) *cobra.Command {
	return &cobra.Command{
		Use:   "down",
		Short: "Remove every host, interface, process and file the lab made",
		Long: `down stops every host (MariaDB cleanly), then removes the namespaces, veths,
bridge, generated inventories and the state dir, exactly as recorded in the
state dir. It is safe to run on a half-made lab or when no lab is up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := *cfg
			c.Out = cmd.ErrOrStderr()
			return lab.DownClusters(cmd.Context(), c)
		},
	}
}

func newLabStatusCmd(cfg *lab.Config) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Check every host: namespace, PID 1, sshd, MariaDB (exit 1 unless all healthy)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			hosts, err := lab.StatusClusters(cmd.Context(), *cfg)
			if err != nil {
				return err
			}
			return lab.WriteStatus(cmd.OutOrStdout(), hosts, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return cmd
}

func newLabFaultCmd(cfg *lab.Config) *cobra.Command {
	return &cobra.Command{
		Use:   "fault HOST " + strings.Join(lab.FaultKinds, "|"),
		Short: "Inject a fault into one host: cut or restore its link, or kill its MariaDB",
		Long: `fault breaks one lab host on purpose:
  link-down    set the host's root-side veth down: no other host (nor this machine) reaches it
  link-up      restore it
  kill-mysqld  SIGKILL mysqld_safe, then mariadbd, so the server stays down until
               its start script (/etc/mysql/lab/start on the host) runs; in the
               systemd lab, SIGKILL mariadbd: mariadb.service restarts it as its
               unit says (Restart=on-abort, after 5 s), as on a real host`,
		Example: `  orch lab fault slave1 link-down
  orch lab fault master kill-mysqld`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usagef("lab fault: want HOST and one of %s", strings.Join(lab.FaultKinds, ", "))
			}
			if !slices.Contains(lab.FaultKinds, args[1]) {
				return usagef("lab fault: unknown fault %q (want one of %s)", args[1], strings.Join(lab.FaultKinds, ", "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			c := *cfg
			c.Out = cmd.ErrOrStderr()
			return lab.Fault(cmd.Context(), c, args[0], args[1])
		},
	}
}

// newLabHostInitCmd is the hidden PID 1 of every lab host; lab.HostInit
// parses its own flags.
func newLabHostInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "hostinit --name NAME --root DIR",
		Short:              "PID 1 of a lab host (started by lab up)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(_ *cobra.Command, args []string) error {
			return lab.HostInit(args)
		},
	}
}

func newLabTreeCmd(cfg *lab.Config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tree",
		Short: "Build the cached Debian trees or server a systemd, MySQL or TokuDB lab runs, without a lab",
		Long: `tree builds (or finds) in --cache-dir the Debian trees that ` + "`lab up --systemd`" + `
(Debian 12) or ` + "`lab up --flavor mysql`" + ` (Debian 12 and sid) boot, or the server tree
of ` + "`lab up --flavor tokudb`" + ` (from --server-archive, the cache or a build from source),
and makes no network, namespace or lab state: a test run makes them while other
tests use the lab.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c := *cfg
			c.Out = cmd.ErrOrStderr()
			if err := lab.CheckTree(c); err != nil {
				return useCaseErr(cmd.Context(), err)
			}
			return lab.BuildTrees(cmd.Context(), c)
		},
	}
	cmd.Flags().BoolVar(&cfg.Systemd, "systemd", false, "build the systemd lab's Debian 12 tree")
	cmd.Flags().StringVar(&cfg.CacheDir, "cache-dir", lab.DefaultCacheDir, "where the trees are kept")
	labFlavorFlags(cmd, cfg)
	return cmd
}

// labFlavorFlags are the flags that choose the lab's server.
func labFlavorFlags(cmd *cobra.Command, cfg *lab.Config) {
	cmd.Flags().StringVar(&cfg.Flavor, "flavor", lab.FlavorMariaDB,
		"database server: "+strings.Join(lab.FlavorNames(), ", ")+" (see Flavours)")
	cmd.Flags().StringVar(&cfg.ServerArchive, "server-archive", "",
		"--flavor tokudb: a server tree archive to use instead of building one (default $"+lab.ArchiveEnv+")")
	cmd.Flags().StringVar(&cfg.ServerSHA256, "server-sha256", "",
		"--server-archive's SHA-256 (default: the SHA256SUMS file beside it)")
}
