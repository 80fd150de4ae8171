package main

import (
	"fmt"
	"io"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/topology"
)

// openCommandLog opens up's or down's --log FILE ("" : none), before any
// host is contacted: a path that cannot be written is bad input.
func openCommandLog(path string) (*rundir.CommandLog, error) {
	if path == "" {
		return nil, nil
	}
	l, err := rundir.OpenCommandLog(path)
	if err != nil {
		return nil, usagef("--log %s: %v", path, err)
	}
	return l, nil
}

// closeCommandLog closes the log, saying where it is; a line it could not
// write is a warning: the command itself did what it did.
func closeCommandLog(l *rundir.CommandLog, path string, errOut io.Writer, cmd string) {
	if l == nil {
		return
	}
	if err := l.Close(); err != nil {
		fmt.Fprintf(errOut, "%s: WARNING %v\n", cmd, err)
	}
	fmt.Fprintf(errOut, "%s: commands sent to the hosts are in %s\n", cmd, path)
}

// logClusterCommands sends what c sends to its hosts to l (nil: nowhere)
// until the returned function is called. The cluster's passwords are
// looked up at each line, since up generates some as it goes; with
// several clusters, host names are prefixed with the cluster's.
func logClusterCommands(c *cluster.Cluster, l *rundir.CommandLog, inv *topology.Inventory, several bool) func() {
	if l == nil {
		return func() {}
	}
	return c.LogCommands(executor.RecorderFunc(func(r executor.Record) {
		r.Secrets = append(r.Secrets, runner.Secrets(inv)...)
		if several {
			r.Host = inv.Name + "/" + r.Host
		}
		l.Record(r)
	}))
}
