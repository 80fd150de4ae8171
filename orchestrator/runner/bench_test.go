package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/topology"
)

// Bad input is refused before any host is contacted, as an InputError
// (exit status 2), each naming what is wrong. (The whole of Bench runs on
// the lab: integration TestRunEngines and the other `orch run` tests; the
// simulated hosts do not take the command lock.)
func TestBenchRefusesBadInput(t *testing.T) {
	f := newFakeLab(t)
	connected := false
	connect := func(context.Context, *topology.Inventory) *cluster.Cluster { connected = true; return f.C }
	for _, c := range []struct {
		o    BenchOptions
		want string
	}{
		{BenchOptions{}, "--workload is required"},
		{BenchOptions{Workload: "no-such-workload"}, "no-such-workload"},
		{BenchOptions{Workload: "mysqlslap-write", Knobs: []string{"=1"}}, "=1"},
		{BenchOptions{Workload: "mysqlslap-write", Engine: "no-such-engine"}, "no-such-engine"},
		{BenchOptions{Workload: "mysqlslap-write", Overrides: map[string]string{"no_such_option": "1"}}, "no_such_option"},
	} {
		c.o.Inventory, c.o.Connect, c.o.Err = f.C.Inventory, connect, &bytes.Buffer{}
		_, err := Bench(context.Background(), c.o)
		if !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want bad input naming %q", c.o, err, c.want)
		}
	}
	if connected {
		t.Error("a host was contacted for bad input")
	}
}

// The engine rule of orch run: the cluster's engine is --engine, else the
// inventory's profile.engine, and the tables are created with it unless an
// override names their engine (what the user set wins).
func TestBenchEngineRule(t *testing.T) {
	f := newFakeLab(t)
	inv := f.C.Inventory
	if inv.Profile.Engine == "" {
		t.Fatal("the fake lab's inventory names no engine")
	}
	for _, c := range []struct {
		engine, override, wantCluster, wantTables string
	}{
		{"", "", inv.Profile.Engine, inv.Profile.Engine},
		{"innodb", "", "innodb", "innodb"},
		{"innodb", "myisam", "innodb", "myisam"},
	} {
		o := BenchOptions{Inventory: inv, Workload: "mysqlslap-write", Engine: c.engine}
		if c.override != "" {
			o.Overrides = map[string]string{"engine": c.override}
		}
		desired, w, err := o.plan()
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if desired.Engine != c.wantCluster || w.Options.Engine != c.wantTables {
			t.Errorf("--engine %q, override %q: cluster %q, tables %q; want %q, %q", c.engine, c.override, desired.Engine, w.Options.Engine, c.wantCluster, c.wantTables)
		}
	}
}

// For db-insert, --engine is the library the program is built against
// (tokudb, bdb) and the servers keep the inventory's profile: the load does
// not go through them (the lab's first `orch run --workload db-insert` took
// the profile's innodb for the library and was refused).
func TestBenchEngineRuleDBInsert(t *testing.T) {
	f := newFakeLab(t)
	inv := f.C.Inventory
	for _, c := range []struct{ engine, wantLibrary string }{{"", "tokudb"}, {"bdb", "bdb"}, {"tokudb", "tokudb"}} {
		desired, w, err := BenchOptions{Inventory: inv, Workload: "db-insert", Engine: c.engine}.plan()
		if err != nil {
			t.Fatalf("--engine %q: %v", c.engine, err)
		}
		if desired.Engine != inv.Profile.Engine || w.Options.Engine != c.wantLibrary {
			t.Errorf("--engine %q: cluster %q, library %q; want %q, %q", c.engine, desired.Engine, w.Options.Engine, inv.Profile.Engine, c.wantLibrary)
		}
	}
	if _, _, err := (BenchOptions{Inventory: inv, Workload: "db-insert", Engine: "innodb"}).plan(); err == nil ||
		!strings.Contains(err.Error(), `"innodb" is not a library db-insert is built against`) {
		t.Errorf("--engine innodb for db-insert: %v", err)
	}
}
