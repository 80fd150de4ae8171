package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// TestRunWithServersDownEndsFailed: when the servers cannot be opened the
// run fails naming the hosts, and its run directory is finished as failed
// (end time and error recorded), never left running.
func TestRunWithServersDownEndsFailed(t *testing.T) {
	// Each host is this machine, reached without SSH: its MySQL port 1
	// refuses every connection.
	c := localCluster(t)
	w, err := bench.LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Run(context.Background(), Config{Cluster: c, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if err == nil {
		t.Fatal("a run against refused servers succeeded")
	}
	for _, h := range []string{"db1 192.0.2.11", "db2 192.0.2.12", "db3 192.0.2.13"} {
		if !strings.Contains(err.Error(), h) {
			t.Errorf("error does not name %s: %v", h, err)
		}
	}
	if out == nil || out.Status != rundir.StatusFailed {
		t.Fatalf("outcome %+v, want failed", out)
	}
	m, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != rundir.StatusFailed || m.End.IsZero() || !strings.Contains(m.Error, "db2 192.0.2.12") {
		t.Errorf("manifest: status %s, end %v, error %q", m.Status, m.End, m.Error)
	}
	if strings.Contains(m.Error, "runner-test-pw") {
		t.Error("the manifest holds the password")
	}
}
