package runner

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// The use case of `orch inventory`: an inventory checked as the commands
// that contact hosts check it, and printed normalised, contacting nothing.

// ValidateSet is ValidateUse (what run and matrix refuse) over every
// cluster of set, and the cluster's own profile (profile.engine,
// profile.dir, profile.vars, the engine on the flavour it names) as up,
// run and matrix check it when given no engine: their problems together
// as bad input, with several clusters each naming its cluster.
func ValidateSet(set *topology.Set) error {
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
	return orchestrator.BadInput(errors.New(strings.Join(lines, "\n")))
}

// WriteSet prints several clusters: a line for the set, then each cluster
// as WriteInventory does.
func WriteSet(w io.Writer, set *topology.Set, sshConfig string, asJSON bool) error {
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
		printInventory(w, inv, sshConfig)
	}
	return nil
}

// WriteInventory prints one normalised inventory, as a table or JSON;
// secrets only as where they come from. sshConfig is --ssh-config, for
// where orch logs in.
func WriteInventory(w io.Writer, inv *topology.Inventory, sshConfig string, asJSON bool) error {
	if asJSON {
		return writeJSON(w, inv)
	}
	printInventory(w, inv, sshConfig)
	return nil
}

func printInventory(w io.Writer, inv *topology.Inventory, sshConfig string) {
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
			sshTarget(h, sshConfig), sshAuth(h), mysqlTarget(h), h.MySQL.Datadir, service(h))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nSERVICE auto: the systemd unit (mysql, mariadb or mysqld) when systemd runs on the host, else its init script through service")
	// An existing server is never set up, so up makes no account on it.
	if m := inv.Master(); m != nil && m.MySQL.Managed && !inv.Existing {
		fmt.Fprintf(w, "accounts: none named; orch up makes %s@localhost on each server and %s on the master for the benchmark, through root's unix socket\n", m.MySQL.User, inv.Benchmark.User)
	} else {
		fmt.Fprintf(w, "benchmark account: %s\n", inv.Benchmark.User)
	}
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
