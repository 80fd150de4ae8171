package account

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

func loadInv(t *testing.T, doc string) *topology.Inventory {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	inv, err := topology.Load(p, topology.LoadOptions{HomeDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

const stockHosts = `name: lab
hosts:
  - {name: master, role: master, address: 10.0.0.11}
  - {name: slave1, role: slave, address: 10.0.0.12}
  - {name: slave2, role: slave, address: 10.0.0.13}
  - {name: loadbox, role: loadbox, address: 10.0.0.14}
`

// An inventory naming no account: every password is orch's own, in one
// state directory per cluster, generated once, 0600, never shared
// between the admin, replication and benchmark accounts.
func TestManagedAccounts(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	inv := loadInv(t, stockHosts)
	dir, err := StateDir(inv)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "lab-") {
		t.Errorf("state dir %s is not named for the cluster", dir)
	}
	Resolve(inv, dir)
	if !Pending(inv.Benchmark.Password) {
		t.Error("a password counts as generated before Generate")
	}
	if err := Generate(inv); err != nil {
		t.Fatal(err)
	}
	pws := map[string]bool{}
	for _, s := range []topology.Secret{inv.Master().MySQL.Password, inv.Slaves()[1].MySQL.Password, inv.Replication.Password, inv.Benchmark.Password} {
		pw, err := s.Resolve()
		if err != nil || len(pw) != 32 {
			t.Fatalf("%s: %q, %v", s, pw, err)
		}
		pws[pw] = true
		if fi, err := os.Stat(s.File); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v", s.File, fi.Mode(), err)
		}
	}
	if len(pws) != 3 {
		t.Errorf("want 3 distinct passwords (admin shared by the hosts, replication, benchmark); got %d", len(pws))
	}
	bench := BenchAccounts(inv, "pw", "")
	if len(bench) != 2*len(BenchSchemas) || bench[0].String() != "orch_bench@10.0.0.14" || bench[0].Grants != "ALL PRIVILEGES ON `sbtest`.*" ||
		bench[len(bench)-1].String() != "orch_bench@127.0.0.1" {
		t.Errorf("benchmark accounts %+v", bench)
	}
	if a := AdminAccounts(inv.Master(), "pw"); a[0].String() != "orch@localhost" || a[1].String() != "orch@127.0.0.1" || !a[0].Admin {
		t.Errorf("admin accounts %+v", a)
	}
	if err := Forget(inv); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("state dir left after Forget: %v", err)
	}
}

// Accounts the inventory names are never touched.
func TestNamedAccountsWin(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	inv := loadInv(t, "defaults:\n  mysql:\n    user: admin\n    password: {env: PW}\n"+strings.TrimPrefix(stockHosts, "name: lab\n"))
	dir, _ := StateDir(inv)
	Resolve(inv, dir)
	if inv.Master().MySQL.Managed || inv.Benchmark.Managed || inv.Replication.PasswordManaged {
		t.Errorf("named accounts managed: %+v %+v", inv.Master().MySQL, inv.Benchmark)
	}
	if inv.Benchmark.User != "admin" || inv.Replication.Password.Env != "PW" || len(managedFiles(inv)) != 0 {
		t.Errorf("benchmark %+v, replication %+v", inv.Benchmark, inv.Replication.Password)
	}
}
