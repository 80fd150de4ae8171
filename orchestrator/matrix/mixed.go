package matrix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// A block design compares configurations within clusters and combines the
// clusters: clusters of different servers (MariaDB and MySQL, or 10.11 and
// 10.6) would make it compare the servers, and the report refuses such runs
// as not comparable. So the matrix refuses them first: before any host
// when the inventories name the flavours (mysql.flavor), else once the
// servers have said what they are (before the first cell), unless
// Options.AllowMixed.

// mixedHint is the refusals' way out.
const mixedHint = "a report across them would compare the servers, not the configurations: " +
	"give the clusters one flavour and version, or pass --allow-mixed to run and compare them anyway (labelled NOT COMPARABLE)"

// inventoryFlavors is the flavours a cluster's inventory names for its
// database hosts, by product name and sorted ("MariaDB"; "MariaDB+MySQL"
// when its hosts differ); "" when it names none.
func inventoryFlavors(inv *topology.Inventory) string {
	var names []string
	for _, h := range inv.DBHosts() {
		if h.MySQL.Flavor == "" {
			continue
		}
		srv, _, err := flavor.ParseHint(h.MySQL.Flavor) // checked when the inventory was read
		if err != nil {
			continue
		}
		if n := srv.Flavor.Name(); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return strings.Join(names, "+")
}

// checkSameFlavor refuses, before any host, clusters whose inventories
// name different server flavours. A cluster that names none is judged
// once its servers answer (checkSameServers).
func checkSameFlavor(clusters []*topology.Inventory) error {
	first, firstF := "", ""
	for _, inv := range clusters {
		f := inventoryFlavors(inv)
		switch {
		case f == "":
		case first == "":
			first, firstF = inv.Name, f
		case f != firstF:
			return orchestrator.BadInputf("matrix: clusters %s (%s) and %s (%s) run different server flavours: %s", first, firstF, inv.Name, f, mixedHint)
		}
	}
	return nil
}

// checkSameServers refuses, before the first cell, clusters whose servers
// (as they answered; names[i] is servers[i]'s cluster) differ in flavour
// or major.minor version. A patch release apart is the same server.
func checkSameServers(names []string, servers []flavor.Server) error {
	for i := 1; i < len(servers); i++ {
		a, b := servers[0], servers[i]
		if a.Flavor != b.Flavor || a.Version.Major != b.Version.Major || a.Version.Minor != b.Version.Minor {
			return orchestrator.BadInput(fmt.Errorf("matrix: clusters %s (%s) and %s (%s) run different servers: %s", names[0], a, names[i], b, mixedHint))
		}
	}
	return nil
}
