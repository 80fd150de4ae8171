package runner

import (
	"context"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/up"
)

// newFakeLab is the simulated cluster of testdata/fakelab.yaml brought up by
// orch up, its client printing what mariadb-slap printed on the lab.
func newFakeLab(t *testing.T) *fakemaria.Cluster {
	t.Helper()
	return fakeLabOf(t, "testdata/fakelab.yaml", "mariadb-slap", "testdata/mariadb-slap-write-innodb.txt")
}

// fakeLabOf is newFakeLab of another inventory, whose client program
// prints sample.
func fakeLabOf(t *testing.T, inventory, program, sample string) *fakemaria.Cluster {
	t.Helper()
	t.Setenv("ORCH_RUNNER_TEST_PW", "runner-test-pw")
	t.Setenv("ORCH_RUNNER_BENCH_PW", "bench-test-pw")
	f := fakemaria.NewCluster(t, inventory, program, sample)
	if _, err := up.Up(context.Background(), f.C, up.Options{Desired: server.Desired{Engine: "innodb"}, VerifyTimeout: 5 * time.Second}); err != nil {
		t.Fatalf("up: %v", err)
	}
	return f
}
