package report

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/internal/imports"
)

// reachesHosts are the packages that open a connection or drive a host:
// the report is an offline program over files, and must not take them
// with it.
var reachesHosts = []string{
	"orchestrator/executor", "orchestrator/mysqlconn", "orchestrator/cluster", "orchestrator/server",
	"orchestrator/replication", "orchestrator/monitor", "orchestrator/dataset", "orchestrator/runner",
	"orchestrator/matrix", "orchestrator/account", "orchestrator/preflight", "orchestrator/up",
	"orchestrator/labenv", "lab",
}

// offline are the packages of the analysis side: the report and what it
// stands on read files and compute, and reach no host.
var offline = []string{"orchestrator/report", "orchestrator/runs", "orchestrator/schema", "orchestrator/stats", "orchestrator/bench"}

// The report reads run directories and writes files: no package it
// imports, however indirectly, reaches a host (go list -deps
// ./orchestrator/report names none of reachesHosts), nor does any package
// of the analysis side.
func TestReportReachesNoHost(t *testing.T) {
	root, err := imports.Root()
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range offline {
		chain, err := imports.Deps(root, pkg)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range reachesHosts {
			if c := chain[bad]; c != nil {
				t.Errorf("%s reaches %s, which drives hosts: %s", pkg, bad, strings.Join(c, " -> "))
			}
		}
	}
}
