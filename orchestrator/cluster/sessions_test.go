package cluster_test

import (
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
)

// TestOpenReusesAndRedialsOnlyABrokenLink: a second Open reuses every
// session; after one slave's link dropped, Open fails naming that host
// alone while the link is down, and once it is back dials that host again
// and opens its server again, the others untouched. The set is the master,
// the slaves in inventory order and the load box apart.
func TestOpenReusesAndRedialsOnlyABrokenLink(t *testing.T) {
	t.Setenv("ORCH_CLUSTER_TEST_PW", "cluster-test-pw")
	t.Setenv("ORCH_CLUSTER_BENCH_PW", "bench-test-pw")
	f := fakemaria.NewCluster(t, "testdata/fakelab.yaml", "", "")
	ctx := context.Background()
	s, err := f.C.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Master.Host.Name != "db1" || len(s.Slaves) != 2 || s.Slaves[0].Host.Name != "db2" || s.Slaves[1].Host.Name != "db3" {
		t.Fatalf("sessions: master %s, slaves %v", s.Master, s.Slaves)
	}
	if lb, ok := s.LoadBox("lb"); !ok || lb.Exec == nil || len(s.LoadBoxes) != 1 {
		t.Errorf("load boxes %+v", s.LoadBoxes)
	}
	if f.C.OpenedDB(s.Master.Host) != s.Master.DB {
		t.Error("OpenedDB is not the master's session pool")
	}
	again, err := f.C.Open(ctx, cluster.OpenOptions{})
	if err != nil || again.Master != s.Master || again.Slaves[1] != s.Slaves[1] {
		t.Fatalf("second open: %v, new sessions", err)
	}

	db3 := f.Lab.Hosts[2]
	db3.CutLink()
	_, err = f.C.Open(ctx, cluster.OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "db3 192.0.2.13") || strings.Contains(err.Error(), "db2") {
		t.Fatalf("open with db3's link down: %v", err)
	}
	db3.RestoreLink()
	s2, err := f.C.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		t.Fatalf("open after the link is back: %v", err)
	}
	if s2.Master != s.Master || s2.Slaves[0] != s.Slaves[0] || s2.Slaves[1] == s.Slaves[1] {
		t.Error("only db3's session should be new")
	}
	if db3.Dials() != 2 || f.Lab.Hosts[1].Dials() != 1 {
		t.Errorf("dials: db3 %d, db2 %d", db3.Dials(), f.Lab.Hosts[1].Dials())
	}
	if f.Opens("db3") != 2 || f.Opens("db1") != 1 {
		t.Errorf("opens: db3 %d, db1 %d", f.Opens("db3"), f.Opens("db1"))
	}
	if _, err := s2.Slaves[1].Variables(ctx); err != nil {
		t.Errorf("db3's new session: %v", err)
	}
}

// TestOpenFindsAServerNoNewConnectionReaches: a server whose socket file
// went away still answers on its open connections; Open dials afresh, so
// it reports that host instead of handing out a session that breaks at the
// next connection.
func TestOpenFindsAServerNoNewConnectionReaches(t *testing.T) {
	t.Setenv("ORCH_CLUSTER_TEST_PW", "cluster-test-pw")
	t.Setenv("ORCH_CLUSTER_BENCH_PW", "bench-test-pw")
	f := fakemaria.NewCluster(t, "testdata/fakelab.yaml", "", "")
	ctx := context.Background()
	if _, err := f.C.Open(ctx, cluster.OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Lab.Hosts[1].RemoveSocket()
	_, err := f.C.Open(ctx, cluster.OpenOptions{})
	if err == nil || !strings.Contains(err.Error(), "db2 192.0.2.12") || !strings.Contains(err.Error(), "open failed") {
		t.Fatalf("open with db2's socket gone: %v", err)
	}
}
