package up

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

func loadThree(t *testing.T) *topology.Inventory {
	t.Helper()
	t.Setenv("ORCH_UP_TEST_PW", "dry-run-test-pw")
	inv, err := topology.Load("testdata/three.yaml", topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

// TestDryRunPrintsWhatUpRuns: the dry run shows the config per host and
// the replication statements Setup sends to a cluster not replicating yet,
// and nothing up never runs (no GTID check phase, no teardown). The
// statement spellings are the servers' own, from their manuals: MariaDB
// keeps CHANGE MASTER TO; MySQL 8.4 removed it, SHOW MASTER STATUS and the
// rpl_semi_sync_master_* names.
func TestDryRunPrintsWhatUpRuns(t *testing.T) {
	for _, tc := range []struct {
		hint      string
		want, not []string
	}{
		{"mariadb:10.11.19",
			[]string{"CHANGE MASTER TO MASTER_HOST = '192.0.2.11'", "SET GLOBAL rpl_semi_sync_master_enabled = ON", "START SLAVE"},
			[]string{"CHANGE REPLICATION SOURCE"}},
		{"mysql:8.4.3",
			[]string{"CHANGE REPLICATION SOURCE TO SOURCE_HOST = '192.0.2.11'", "SET GLOBAL rpl_semi_sync_source_enabled = ON", "START REPLICA"},
			[]string{"CHANGE MASTER TO", "SHOW MASTER STATUS", "rpl_semi_sync_master_", "START SLAVE", "RESET MASTER"}},
	} {
		t.Run(tc.hint, func(t *testing.T) {
			var b strings.Builder
			if err := DryRun(&b, loadThree(t), server.Desired{Engine: "innodb"}, tc.hint); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, h := range []string{"### db1 192.0.2.11: ", "### db2 192.0.2.12: ", "### db3 192.0.2.13: "} {
				if !strings.Contains(out, h) {
					t.Errorf("no config section %q", h)
				}
			}
			if strings.Count(out, "### would write /etc/mysql/conf.d/") != 3 {
				t.Errorf("want one file per database host in /etc/mysql/conf.d")
			}
			for _, w := range append([]string{"-- phase: master-setup (master)", "-- phase: slave-setup (slave"}, tc.want...) {
				if !strings.Contains(out, w) {
					t.Errorf("dry run lacks %q", w)
				}
			}
			for _, n := range append([]string{"gtid-check", "teardown", "dry-run-test-pw"}, tc.not...) {
				if strings.Contains(out, n) {
					t.Errorf("dry run shows %q, which up does not run", n)
				}
			}
			if testing.Verbose() {
				t.Log(out)
			}
		})
	}
}
