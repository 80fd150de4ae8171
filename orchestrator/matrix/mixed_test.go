package matrix

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// Clusters whose inventories name different flavours are refused before
// any host, a real run as well as a dry run; --allow-mixed plans them.
func TestRunRefusesMixedFlavours(t *testing.T) {
	connect := func(context.Context, *topology.Inventory) *cluster.Cluster {
		t.Fatal("a refused matrix connected")
		return nil
	}
	east, west := loadFakeInventory(t, "east"), loadFakeInventory(t, "west")
	for _, h := range east.DBHosts() {
		h.MySQL.Flavor = "mariadb"
	}
	for _, h := range west.DBHosts() {
		h.MySQL.Flavor = "mysql"
	}
	seed := int64(7)
	spec := Spec{Engines: "innodb", Knobs: []string{"sync_binlog=0,1"}, Workload: "mysqlslap-write", Repeat: 1}
	var out, errOut bytes.Buffer
	o := Options{Clusters: []*topology.Inventory{east, west}, Spec: spec, Root: t.TempDir(), NoiseFloor: NoiseFloorNone, Seed: &seed,
		Connect: connect, Out: &out, Err: &errOut}
	err := Run(context.Background(), o)
	want := "matrix: clusters east (MariaDB) and west (MySQL) run different server flavours: "
	if !orchestrator.IsBadInput(err) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "--allow-mixed") {
		t.Fatalf("err = %v, want bad input %q ... --allow-mixed", err, want)
	}
	o.AllowMixed, o.DryRun = true, true
	if err := Run(context.Background(), o); err != nil {
		t.Fatalf("--allow-mixed: %v\n%s", err, errOut.String())
	}
	// The plan records the choice, for the report made from matrix.json.
	u := &useCase{Options: o, multi: true, linted: map[string]bool{}, logf: t.Logf}
	if m, _, err := u.plan(); err != nil || !m.AllowMixed {
		t.Errorf("--allow-mixed plan: allow_mixed %v, err %v", m != nil && m.AllowMixed, err)
	}
	// One flavour named, the other cluster naming none: judged once its
	// servers answer (checkSameServers).
	for _, h := range west.DBHosts() {
		h.MySQL.Flavor = ""
	}
	if err := checkSameFlavor([]*topology.Inventory{east, west}); err != nil {
		t.Errorf("a cluster naming no flavour refused: %v", err)
	}
}

// Clusters whose servers answer with different flavours or major.minor
// versions are refused before the first cell; a patch release apart is
// the same server.
func TestCheckSameServers(t *testing.T) {
	names := []string{"east", "west"}
	maria := flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 19)}
	for _, c := range []struct {
		other flavor.Server
		want  string
	}{
		{flavor.Server{Flavor: flavor.MySQL, Version: flavor.V(9, 7, 4)}, "matrix: clusters east (MariaDB 10.11.19) and west (MySQL 9.7.4) run different servers: "},
		{flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 6, 21)}, "matrix: clusters east (MariaDB 10.11.19) and west (MariaDB 10.6.21) run different servers: "},
		{flavor.Server{Flavor: flavor.MariaDB, Version: flavor.V(10, 11, 20)}, ""},
	} {
		err := checkSameServers(names, []flavor.Server{maria, c.other})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.other, err)
		case c.want != "" && (!orchestrator.IsBadInput(err) || !strings.HasPrefix(err.Error(), c.want) || !strings.Contains(err.Error(), "--allow-mixed")):
			t.Errorf("%s: err = %v, want %q", c.other, err, c.want)
		}
	}
}
