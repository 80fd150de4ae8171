package matrix

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/topology"
)

func loadFakeInventory(t *testing.T, name string) *topology.Inventory {
	t.Helper()
	t.Setenv("ORCH_MATRIX_TEST_PW", "matrix-test-pw")
	t.Setenv("ORCH_MATRIX_BENCH_PW", "bench-test-pw")
	inv, err := topology.Load("testdata/fakelab.yaml", topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	inv.Name = name
	return inv
}

// Run with --dry-run is the same use case for one cluster and several: it
// plans, prints the plan (one cluster) or the design (several), and
// connects to nothing; bad input is an InputError, naming the cluster when
// there are several.
func TestRunDryRunOneAndSeveral(t *testing.T) {
	connect := func(context.Context, *topology.Inventory) *cluster.Cluster {
		t.Fatal("a dry run connected")
		return nil
	}
	spec := Spec{Engines: "innodb", Knobs: []string{"sync_binlog=0,1"}, Workload: "mysqlslap-write", Repeat: 2}
	for _, c := range []struct {
		clusters []string
		want     string
	}{
		{[]string{"fake"}, "4 cells"},
		{[]string{"east", "west"}, "east"},
	} {
		var invs []*topology.Inventory
		for _, n := range c.clusters {
			invs = append(invs, loadFakeInventory(t, n))
		}
		var out, errOut bytes.Buffer
		seed := int64(7)
		o := Options{Clusters: invs, Spec: spec, Root: t.TempDir(), NoiseFloor: NoiseFloorNone, DryRun: true, Seed: &seed,
			Connect: connect, Out: &out, Err: &errOut}
		if err := Run(context.Background(), o); err != nil {
			t.Fatalf("%v: %v\n%s", c.clusters, err, errOut.String())
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("%v: the plan does not say %q:\n%s", c.clusters, c.want, out.String())
		}
		o.Spec.Engines = "nosuchprofile"
		err := Run(context.Background(), o)
		if !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "nosuchprofile") {
			t.Errorf("%v: unknown engine: %v, want bad input", c.clusters, err)
		}
		if len(c.clusters) > 1 && !strings.Contains(err.Error(), "cluster east: ") {
			t.Errorf("several clusters: %v does not name the cluster", err)
		}
	}
}

// With no A/A noise floor, an earlier finished matrix of the workload under
// the runs directory says how much its runs vary: a precision plan states
// the rounds that spread predicts.
func TestPlanExpectsRoundsFromAnEarlierMatrix(t *testing.T) {
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "20261201T200500Z-demo"), os.DirFS("../report/testdata/demo")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	o := Options{Clusters: []*topology.Inventory{loadFakeInventory(t, "fake")}, Root: root, NoiseFloor: NoiseFloorAuto, DryRun: true,
		Spec: Spec{Engines: "innodb,rocksdb", Workload: "pure-random-writes", Until: &Until{Precision: 0.10, MinRounds: 3, MaxRounds: 8}},
		Connect: func(context.Context, *topology.Inventory) *cluster.Cluster {
			t.Fatal("a dry run connected")
			return nil
		},
		Out: &out, Err: &errOut}
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	want := regexp.MustCompile(`(?m)^Expected: (about \d+ rounds|more than --max-repeat 8 rounds) to reach ±10% \(the runs of 20261201T200500Z-demo, an earlier matrix of the workload, vary by CV \d+\.\d%\)$`)
	if !want.MatchString(out.String()) {
		t.Errorf("the plan does not say what the earlier matrix predicts:\n%s", out.String())
	}
	if testing.Verbose() {
		t.Log(out.String())
	}
}
