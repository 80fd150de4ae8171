package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/preflight"
	"github.com/orch-bench/orch/topology"
)

// Check is `orch check`: every host's facts and the network paths a run
// needs, per cluster, as a table or JSON; a blocking problem or a broken
// path is an error.
func Check(ctx context.Context, o ClusterOptions, asJSON bool) error {
	return onClusters(asJSON)(ctx, o.Clusters, o.Out, o.Err, func(ctx context.Context, inv *topology.Inventory, out, _ io.Writer) error {
		c := o.Connect(ctx, inv, inv.Hosts)
		defer c.Close()
		facts := preflight.Check(ctx, c)
		var paths []preflight.Path
		if !inv.Existing || inv.LoadBox() != nil {
			paths = preflight.Paths(ctx, c)
		}
		if asJSON {
			if err := writeJSON(out, checkJSON{Hosts: facts, Paths: paths, ReplicationPassword: preflight.ReplicationPassword(inv)}); err != nil {
				return err
			}
		} else {
			printFacts(out, facts)
			printPaths(out, paths, preflight.ReplicationPassword(inv), inv.Existing)
		}
		blocking := 0
		for _, f := range facts {
			if f.Blocking() {
				blocking++
			}
		}
		if blocking > 0 {
			return fmt.Errorf("check: %d of %d hosts have blocking problems", blocking, len(facts))
		}
		if err := preflight.PathsErr(paths); err != nil {
			return fmt.Errorf("check: %w", err)
		}
		return nil
	})
}

// onClusters is how a command runs on every cluster: with --json, the
// clusters' documents are one JSON object.
func onClusters(asJSON bool) func(context.Context, []*topology.Inventory, io.Writer, io.Writer, orchestrator.ClusterFunc) error {
	if asJSON {
		return orchestrator.OnClustersJSON
	}
	return orchestrator.OnClusters
}

// printFacts prints one column per host and one row per check, then the
// problems, blocking first.
func printFacts(w io.Writer, facts []*preflight.Facts) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(label string, val func(*preflight.Facts) string) {
		cells := []string{label}
		for _, f := range facts {
			v := val(f)
			if v == "" {
				v = "-"
			}
			cells = append(cells, v)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	row("HOST", func(f *preflight.Facts) string { return f.Host })
	row("role", func(f *preflight.Facts) string { return f.Role })
	row("address", func(f *preflight.Facts) string { return f.Address })
	row("ssh", func(f *preflight.Facts) string { return f.SSH })
	row("sudo", func(f *preflight.Facts) string { return f.Sudo })
	row("os", func(f *preflight.Facts) string { return f.OS })
	row("kernel", func(f *preflight.Facts) string { return f.Kernel })
	row("cpus", func(f *preflight.Facts) string { return itoa(int64(f.CPUs)) })
	row("memory", func(f *preflight.Facts) string { return mb(f.MemoryMB) })
	row("disk free", func(f *preflight.Facts) string {
		if f.DiskPath == "" {
			return ""
		}
		return mb(f.DiskFreeMB) + " on " + f.DiskPath
	})
	row("clock offset", func(f *preflight.Facts) string {
		if f.SSH == "FAILED" {
			return ""
		}
		return fmt.Sprintf("%+.1f ms", f.ClockOffsetMs)
	})
	row("server", func(f *preflight.Facts) string { return f.Server })
	row("mysql login", func(f *preflight.Facts) string { return f.MySQL })
	row("engines", func(f *preflight.Facts) string { return benchEngines(f.Engines) })
	row("huge pages", func(f *preflight.Facts) string { return f.THP })
	for _, c := range bench.ClientChecks() {
		row(c.Fact, func(f *preflight.Facts) string { return shortVersion(f.Clients[c.Fact]) })
	}
	row("stacks", func(f *preflight.Facts) string { return strings.Join(f.StackTools, ",") })
	row("rtt to master", func(f *preflight.Facts) string {
		if f.RTTToMasterMs == 0 {
			return ""
		}
		return fmt.Sprintf("%.3f ms", f.RTTToMasterMs)
	})
	tw.Flush()
	var lines []string
	for _, blocking := range []bool{true, false} {
		for _, f := range facts {
			for _, p := range f.Problems {
				if p.Blocking == blocking {
					tag := "WARNING"
					if blocking {
						tag = "BLOCKING"
					}
					lines = append(lines, tag+"  "+p.Msg)
				}
			}
		}
	}
	if len(lines) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(lines, "\n"))
	}
}

// checkJSON is check's --json document.
type checkJSON struct {
	Hosts               []*preflight.Facts `json:"hosts"`
	Paths               []preflight.Path   `json:"paths"`
	ReplicationPassword string             `json:"replication_password"`
}

// printPaths prints the network paths a run uses, one line each.
func printPaths(w io.Writer, paths []preflight.Path, replPassword string, existing bool) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "PATHS")
	for _, p := range paths {
		fmt.Fprintln(w, "  "+p.String())
	}
	if !existing {
		fmt.Fprintln(w, "  replication password: "+replPassword)
	}
}

func itoa(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprint(n)
}

func mb(n int64) string {
	switch {
	case n == 0:
		return ""
	case n >= 10*1024:
		return fmt.Sprintf("%.1f GB", float64(n)/1024)
	}
	return fmt.Sprintf("%d MB", n)
}

// benchEngines keeps the table narrow: the engines a benchmark compares, then
// how many others there are (--json lists them all).
func benchEngines(engines []string) string {
	var keep []string
	others := 0
	for _, e := range engines {
		switch strings.Fields(e)[0] {
		case "innodb", "rocksdb", "tokudb", "myisam", "aria":
			keep = append(keep, e)
		default:
			others++
		}
	}
	if others > 0 {
		keep = append(keep, fmt.Sprintf("+%d more", others))
	}
	return strings.Join(keep, ", ")
}

// shortVersion turns "/usr/bin/mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for ..."
// into "mariadb-slap 1.0 (10.11.19-MariaDB)".
func shortVersion(line string) string {
	f := strings.Fields(line)
	if len(f) < 3 || f[1] != "Ver" {
		return line
	}
	s := f[0][strings.LastIndexByte(f[0], '/')+1:] + " " + f[2]
	if len(f) >= 5 && f[3] == "Distrib" {
		s += " (" + strings.TrimSuffix(f[4], ",") + ")"
	}
	return s
}
