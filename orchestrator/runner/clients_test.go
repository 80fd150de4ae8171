package runner

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/topology"
)

// The run phase's clients, one or several, and where each one's output
// goes: one client (one load box, the master for a library benchmark, this
// machine) writes the run's benchmark output, as runs always did; several
// write one file each, for the merge.
func TestClientHostsOneOrSeveral(t *testing.T) {
	host := func(name string, role topology.Role) *topology.Host { return &topology.Host{Name: name, Role: role} }
	db := []*topology.Host{host("db1", topology.RoleMaster), host("db2", topology.RoleSlave)}
	one := &topology.Inventory{Hosts: append(db[:2:2], host("lb1", topology.RoleLoadBox))}
	two := &topology.Inventory{Hosts: append(db[:2:2], host("lb1", topology.RoleLoadBox), host("lb2", topology.RoleLoadBox))}
	none := &topology.Inventory{Hosts: db}
	sb := &bench.Workload{Tool: bench.DriverSysbench, RunOn: topology.RoleLoadBox}
	lib := &bench.Workload{Tool: bench.DriverDBInsert, RunOn: topology.RoleMaster}
	for _, c := range []struct {
		inv          *topology.Inventory
		w            *bench.Workload
		bhost, want  string
		wantFirstOut string
	}{
		{one, sb, "lb1", "lb1", rundir.BenchmarkRun},
		{two, sb, "lb1", "lb1,lb2", rundir.ClientRun("lb1")},
		{two, lib, "db1", "db1", rundir.BenchmarkRun},
		{none, sb, rundir.LocalHost, rundir.LocalHost, rundir.BenchmarkRun},
	} {
		names := clientHosts(c.inv, c.w, c.bhost)
		if got := strings.Join(names, ","); got != c.want {
			t.Errorf("%d load boxes, run on %q: clients %s, want %s", len(c.inv.LoadBoxes()), c.w.RunOn, got, c.want)
		}
		if got := clientLocal(names[0], len(names)); got != c.wantFirstOut {
			t.Errorf("clients %s: the first writes %s, want %s", c.want, got, c.wantFirstOut)
		}
	}
	if launchMargin(1) != 0 || launchMargin(2) <= 0 {
		t.Errorf("launch margins %s for one, %s for two", launchMargin(1), launchMargin(2))
	}
}

// Whether a workload can run on the inventory's clients is decided before
// any host, for one load box as for several: mysqlslap runs from one,
// and is refused from two (its averages do not merge).
func TestCheckClientsOneOrSeveral(t *testing.T) {
	box := func(name string) *topology.Host { return &topology.Host{Name: name, Role: topology.RoleLoadBox} }
	master := &topology.Host{Name: "db1", Role: topology.RoleMaster}
	slap := &bench.Workload{Name: "slap", Tool: bench.DriverMysqlslap, RunOn: topology.RoleLoadBox}
	if err := CheckClients(&topology.Inventory{Hosts: []*topology.Host{master, box("lb1")}}, slap); err != nil {
		t.Errorf("mysqlslap from one load box: %v", err)
	}
	err := CheckClients(&topology.Inventory{Hosts: []*topology.Host{master, box("lb1"), box("lb2")}}, slap)
	if err == nil || !strings.Contains(err.Error(), "several load boxes (2)") {
		t.Errorf("mysqlslap from two load boxes: %v", err)
	}
}
