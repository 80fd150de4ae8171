package lab

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// The systemd lab's inventory names hosts and SSH access only: a user's
// inventory for stock servers, loaded by the real parser.
func TestRenderStockInventory(t *testing.T) {
	dir, hosts, paths := stockInventoryInputs(t, "10.98.0.0/24")
	body, err := renderStockInventory(hosts, paths, flavorOf(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"password", "user: orch", "start:", "socket", "error_log"} {
		if strings.Contains(string(body), banned) {
			t.Errorf("stock inventory mentions %q:\n%s", banned, body)
		}
	}
	p := filepath.Join(dir, "lab.yaml")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := topology.Load(p, topology.LoadOptions{HomeDir: dir})
	if err != nil {
		t.Fatalf("stock inventory does not load: %v\n%s", err, body)
	}
	m := inv.Master()
	if m == nil || m.Address != "10.98.0.11" || len(inv.Slaves()) != 2 || inv.LoadBox().Address != "10.98.0.14" {
		t.Fatalf("roles/addresses wrong: %+v", inv.Hosts)
	}
	if m.SSH.User != "root" || !slices.Equal(m.SSH.IdentityFiles, []string{paths.identity}) || m.SSH.Sudo ||
		m.SSH.Password.IsSet() {
		t.Errorf("ssh: %+v", m.SSH)
	}
	if m.MySQL.Service.Unit != "mariadb" || m.MySQL.Service.Start != "" || m.MySQL.Password.IsSet() {
		t.Errorf("mysql: %+v", m.MySQL)
	}
	if inv.KnownHostsFile != paths.knownHosts {
		t.Errorf("known_hosts = %q", inv.KnownHostsFile)
	}
}

// stockInventoryInputs are a temp dir, the lab's hosts on subnet and
// key paths in that dir.
func stockInventoryInputs(t *testing.T, subnet string) (string, []HostState, invPaths) {
	t.Helper()
	dir := t.TempDir()
	plan, err := planAddrs(subnet)
	if err != nil {
		t.Fatal(err)
	}
	var hosts []HostState
	for i, h := range labHosts {
		hosts = append(hosts, HostState{Name: h.name, Role: h.role, IP: plan.hosts[i].String()})
	}
	return dir, hosts, invPaths{knownHosts: filepath.Join(dir, "known_hosts"), identity: filepath.Join(dir, "id_ed25519")}
}

func TestNspawnArgsJoinTheLabNetwork(t *testing.T) {
	args := nspawnArgs("/state/hosts/master/root", "orchlab-a262-master", "master")
	for _, want := range []string{
		"--boot", "--directory=/state/hosts/master/root", "--register=no", "--keep-unit",
		"--network-namespace-path=/run/netns/orchlab-a262-master", "--hostname=master",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("nspawn args lack %s: %v", want, args)
		}
	}
	for _, a := range args {
		if strings.HasPrefix(a, "--private-network") || strings.HasPrefix(a, "--network-veth") {
			t.Errorf("nspawn would make its own network (%s): the host must join the lab's", a)
		}
	}
}
