package matrix

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// TestExecuteOnTheFakeCluster: a two-cell matrix (sync_binlog 0 and 1) on a
// simulated cluster runs both cells to the end, each server configured as
// its cell asks, each cell's run directory complete; the cells share one
// session per server.
func TestExecuteOnTheFakeCluster(t *testing.T) {
	t.Setenv("ORCH_MATRIX_TEST_PW", "matrix-test-pw")
	t.Setenv("ORCH_MATRIX_BENCH_PW", "bench-test-pw")
	f := fakemaria.NewCluster(t, "testdata/fakelab.yaml", "mariadb-slap", "testdata/mariadb-slap-write-innodb.txt")
	m, err := New("mysqlslap-write", []string{"innodb"}, []Axis{{Name: "sync_binlog", Values: []string{"0", "1"}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Create(t.TempDir(), m, time.Now()); err != nil {
		t.Fatal(err)
	}
	var syncBinlogSeen []string
	err = execute(context.Background(), m, []Target{{Name: "fakelab", Cluster: f.C}}, ExecConfig{
		Workload: func(string) (*bench.Workload, error) {
			// What the previous cell left on the master (the first sees
			// the stock value).
			syncBinlogSeen = append(syncBinlogSeen, f.Lab.Hosts[0].Server().Var("sync_binlog"))
			return bench.LoadWorkload("mysqlslap-write")
		},
		Version: "test",
	})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if len(m.Cells) != 2 {
		t.Fatalf("%d cells", len(m.Cells))
	}
	// Workload is asked for after up: each cell's own value is in place.
	if len(syncBinlogSeen) != 2 || syncBinlogSeen[0] != "0" || syncBinlogSeen[1] != "1" {
		t.Errorf("sync_binlog during the cells: %v, want [0 1]", syncBinlogSeen)
	}
	for _, c := range m.Cells {
		if c.State != OK {
			t.Errorf("cell %s: %s %s", c.ID, c.State, c.Error)
			continue
		}
		d, err := rundir.Open(filepath.Join(m.Dir(), c.Dir))
		if err != nil {
			t.Fatal(err)
		}
		man, err := d.LoadManifest()
		if err != nil || man.Status != rundir.StatusOK || man.Knobs["sync_binlog"] == "" {
			t.Errorf("cell %s manifest: %+v, %v", c.ID, man, err)
		}
		if _, err := os.Stat(filepath.Join(d.Path(), "benchmark", "run.txt")); err != nil {
			t.Errorf("cell %s: %v", c.ID, err)
		}
	}
	for _, h := range []string{"db1", "db2", "db3"} {
		if n := f.Opens(h); n != 1 {
			t.Errorf("%s opened %d times over two cells, want once", h, n)
		}
	}
}
