package lab

import (
	"net/netip"
	"os"
	"path/filepath"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// Lab k of a lab of clusters has its own state dir and the k-th subnet.
func TestClusterConfig(t *testing.T) {
	base := netip.MustParsePrefix("10.97.0.0/24")
	cfg := Config{StateDir: "/var/lib/x", InventoryPath: "/tmp/inv/lab.yaml"}
	for k, want := range map[int][2]string{1: {"/var/lib/x", "10.97.0.0/24"}, 2: {"/var/lib/x-2", "10.97.1.0/24"}, 3: {"/var/lib/x-3", "10.97.2.0/24"}} {
		c := clusterConfig(cfg, k, base)
		if c.StateDir != want[0] || c.Subnet != want[1] || c.InventoryPath != filepath.Join(want[0], "lab.yaml") {
			t.Errorf("cluster %d: state %s subnet %s inventory %s, want %v", k, c.StateDir, c.Subnet, c.InventoryPath, want)
		}
	}
	if got := nthSubnet(netip.MustParsePrefix("10.0.0.0/28"), 2); got.String() != "10.0.0.32/28" {
		t.Errorf("third /28 after 10.0.0.0/28: %s", got)
	}
}

// The combined inventory loads with orch's parser as two clusters, each
// with its own hosts, known_hosts, key and passwords.
func TestClusterInventoryLoads(t *testing.T) {
	dir := t.TempDir()
	base := netip.MustParsePrefix("10.97.0.0/24")
	var parts []clusterPart
	for k := 1; k <= 2; k++ {
		c := clusterConfig(Config{StateDir: filepath.Join(dir, "state")}, k, base)
		plan, err := planAddrs(c.Subnet)
		if err != nil {
			t.Fatal(err)
		}
		var hosts []HostState
		for i, h := range labHosts {
			hosts = append(hosts, HostState{Name: h.name, Role: h.role, IP: plan.hosts[i].String()})
		}
		parts = append(parts, clusterPart{name: clusterName(k), cfg: c, hosts: hosts})
	}
	for _, v := range []inventoryVariant{asRoot, asBench} {
		body, err := renderClusterInventory(parts, v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "lab.yaml")
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		set, err := topology.LoadSet([]string{p}, topology.LoadOptions{HomeDir: dir})
		if err != nil {
			t.Fatalf("does not load: %v\n%s", err, body)
		}
		if len(set.Clusters) != 2 || set.Clusters[0].Name != "lab1" || set.Clusters[1].Name != "lab2" {
			t.Fatalf("clusters %v", set.Names())
		}
		for i, inv := range set.Clusters {
			state := parts[i].cfg.StateDir
			if err := inv.ValidateCluster(); err != nil {
				t.Errorf("%s: %v", inv.Name, err)
			}
			m := inv.Master()
			if inv.KnownHostsFile != filepath.Join(state, knownHostsName) || m.MySQL.Password.File != filepath.Join(state, mysqlPassName) {
				t.Errorf("%s: known_hosts %s, mysql password %s: want the files of %s", inv.Name, inv.KnownHostsFile, m.MySQL.Password.File, state)
			}
			if want := netip.MustParsePrefix(parts[i].cfg.Subnet); !want.Contains(netip.MustParseAddr(m.Address)) {
				t.Errorf("%s: master %s outside %s", inv.Name, m.Address, want)
			}
			if v == asRoot && (len(m.SSH.IdentityFiles) != 1 || m.SSH.IdentityFiles[0] != filepath.Join(state, clientKeyName)) {
				t.Errorf("%s: identity %v", inv.Name, m.SSH.IdentityFiles)
			}
			if v == asBench && m.SSH.Password.File != filepath.Join(state, benchPassName) {
				t.Errorf("%s: ssh password %s", inv.Name, m.SSH.Password.File)
			}
		}
	}
}
