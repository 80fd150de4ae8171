package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

func newInventoryCmd(g *globalOptions) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inventory [INVENTORY...]",
		Short: "Parse and validate an inventory without connecting; print it normalised",
		Long: `inventory reads a YAML cluster file or a legacy ips.txt, applies defaults,
validates it (roles, addresses, ports, unknown keys) and prints the result.
Secrets are shown only as where they come from (env:VAR, file:PATH) or ***.
A file may hold several clusters (a clusters list), and several files may be
given: every cluster is printed, and a host in two clusters is an error.
It refuses what run and matrix refuse (a cluster is a master and two slaves,
semi-synchronous; or one existing server). Every problem of a file is
reported in one run, one line FILE:LINE[:COL]: message each (the first 20,
then a count), with exit status 2. Secrets that cannot be resolved are a
warning here: only a command that contacts a host needs them. The SSH column
is where orch logs in, resolved as ssh would (~/.ssh/config, the local user,
port 22). It contacts no host, so it lists no SSH flag; it takes those of the
cluster commands that change what an inventory resolves to (--ssh-user,
--ssh-port and --identity for an ips.txt, --ssh-config, --known-hosts) and
shows what such a command would use.`,
		Example: `  orch inventory -i cluster.yaml
  orch inventory ips.txt --json
  orch inventory east.yaml west.yaml`,
		Args: usageArgs(cobra.ArbitraryArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths := args
			if len(paths) == 0 {
				paths = g.inventories
			}
			set, err := g.loadSet(paths)
			if err != nil {
				return err
			}
			// What run and matrix refuse is refused here too, every
			// cluster's problems in one run.
			if err := validateSet(set); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if len(paths) > 1 || len(set.Clusters) > 1 {
				return g.writeSet(out, set, asJSON)
			}
			// One cluster: exactly what every other command loads.
			inv, err := g.parseInventory(paths[0])
			if err != nil {
				return err
			}
			if err := inv.CheckSecrets(); err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "inventory: WARNING %v (needed once a command contacts a host)\n", err)
			}
			if asJSON {
				return writeJSON(out, inv)
			}
			g.printInventory(out, inv)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the normalised inventory as JSON")
	return cmd
}

// validateSet is ValidateUse (what run and matrix refuse) over every
// cluster of set, and the
// cluster's own profile (profile.engine, profile.dir, profile.vars, the
// engine on the flavour it names) as up, run and matrix check it when
// given no engine: their problems together, with several clusters each
// naming its cluster.
func validateSet(set *topology.Set) error {
	var lines []string
	for _, inv := range set.Clusters {
		err := inv.ValidateUse()
		if err == nil {
			err = server.CheckDesired(inv, server.Desired{}, "")
		}
		if err != nil {
			for _, l := range strings.Split(err.Error(), "\n") {
				if len(set.Clusters) > 1 {
					l = "cluster " + inv.Name + ": " + l
				}
				lines = append(lines, l)
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return &usageError{msg: strings.Join(lines, "\n")}
}

// loadSet loads every cluster of the given inventories (repeated -i, or a
// file with a clusters list) with the same options as loadInventory.
func (g *globalOptions) loadSet(paths []string) (*topology.Set, error) {
	set, err := topology.LoadSet(paths, g.loadOptions())
	if err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return set, nil
}

// loadOptions are the flags that inventories need (ips.txt SSH settings,
// known_hosts, expanded by topology), for every way of loading one.
func (g *globalOptions) loadOptions() topology.LoadOptions {
	return topology.LoadOptions{
		KnownHostsOverride: g.knownHosts,
		SSH:                topology.SSHConfig{User: g.sshUser, Port: g.sshPort, IdentityFiles: g.identities},
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeSet prints several clusters: a line for the set, then each cluster
// as printInventory does.
func (g *globalOptions) writeSet(w io.Writer, set *topology.Set, asJSON bool) error {
	if asJSON {
		return writeJSON(w, set)
	}
	fmt.Fprintf(w, "%d clusters (%s)", len(set.Clusters), strings.Join(set.Names(), ", "))
	if set.Name != "" {
		fmt.Fprintf(w, ", name %s", set.Name)
	}
	fmt.Fprintln(w)
	for _, inv := range set.Clusters {
		fmt.Fprintf(w, "\ncluster %s: ", inv.Name)
		g.printInventory(w, inv)
	}
	return nil
}

func (g *globalOptions) printInventory(w io.Writer, inv *topology.Inventory) {
	fmt.Fprintf(w, "inventory %s (%s)", inv.Source, inv.Format)
	if inv.Name != "" {
		fmt.Fprintf(w, ", name %s", inv.Name)
	}
	fmt.Fprintln(w)
	if inv.Existing {
		client := "this machine"
		if lb := inv.LoadBox(); lb != nil {
			client = lb.Name
		}
		fmt.Fprintf(w, "existing server: benchmarked as it is from %s (dynamic knobs only); cluster setup is not allowed\n", client)
	}
	fmt.Fprintf(w, "known_hosts %s\n\n", inv.KnownHostsFile)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST\tROLE\tADDRESS\tSSH\tAUTH\tMYSQL\tDATADIR\tSERVICE")
	for _, h := range inv.Hosts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", h.Name, h.Role, h.Address,
			sshTarget(h, g.sshConfig), sshAuth(h), mysqlTarget(h), h.MySQL.Datadir, service(h))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nSERVICE auto: the systemd unit (mysql, mariadb or mysqld) when systemd runs on the host, else its init script through service")
	if m := inv.Master(); m != nil && m.MySQL.Managed {
		fmt.Fprintf(w, "accounts: none named; orch up makes %s@localhost on each server and %s on the master for the benchmark, through root's unix socket\n", m.MySQL.User, inv.Benchmark.User)
	} else {
		fmt.Fprintf(w, "benchmark account: %s\n", inv.Benchmark.User)
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// sshTarget is where orch logs in to h, resolved as the SSH layer will
// (ssh_config, the local user, port 22), never an empty user or address.
func sshTarget(h *topology.Host, sshConfig string) string {
	s, err := executor.Target(h, sshConfig)
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

func sshAuth(h *topology.Host) string {
	var parts []string
	if len(h.SSH.IdentityFiles) > 0 {
		parts = append(parts, "keys:"+strings.Join(h.SSH.IdentityFiles, ","))
	}
	if h.SSH.Password.IsSet() {
		parts = append(parts, "password:"+h.SSH.Password.String())
	}
	if h.SSH.Sudo {
		parts = append(parts, "sudo")
	}
	if len(parts) == 0 {
		return "agent/default keys"
	}
	return strings.Join(parts, " ")
}

func mysqlTarget(h *topology.Host) string {
	if !h.IsDB() {
		return "-"
	}
	where := "127.0.0.1:" + strconv.Itoa(h.MySQL.Port)
	if h.MySQL.Socket != "" {
		where = h.MySQL.Socket
	}
	s := h.MySQL.User + "@" + where
	if h.MySQL.Password.IsSet() {
		s += " password:" + h.MySQL.Password.String()
	}
	return s
}

func service(h *topology.Host) string {
	switch {
	case !h.IsDB():
		return "-"
	case h.MySQL.Service.Start != "":
		return "commands"
	case h.MySQL.Service.Unit != "":
		return "systemd:" + h.MySQL.Service.Unit
	}
	// Chosen on the host when orch connects: the systemd unit when
	// systemd runs, else the init script (service), which this command,
	// connecting to nothing, cannot tell.
	return "auto"
}
