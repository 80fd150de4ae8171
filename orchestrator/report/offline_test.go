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

// The report reads run directories and writes files: no package it
// imports, however indirectly, reaches a host (go list -deps
// ./orchestrator/report names none of reachesHosts).
func TestReportReachesNoHost(t *testing.T) {
	root, err := imports.Root()
	if err != nil {
		t.Fatal(err)
	}
	chain, err := imports.Deps(root, "orchestrator/report")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range reachesHosts {
		if c := chain[bad]; c != nil {
			t.Errorf("the report reaches %s, which drives hosts: %s", bad, strings.Join(c, " -> "))
		}
	}
}
