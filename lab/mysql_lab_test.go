package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// The MySQL lab's inventory names its flavour and the package's unit
// (Debian's mysql-server ships mysql.service), and no account.
func TestRenderMySQLInventory(t *testing.T) {
	dir, hosts, paths := stockInventoryInputs(t, "10.91.0.0/24")
	body, err := renderStockInventory(hosts, paths, flavorOf(FlavorMySQL))
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"password", "user: orch", "rocksdb", "mariadb"} {
		if strings.Contains(string(body), banned) {
			t.Errorf("MySQL lab inventory mentions %q:\n%s", banned, body)
		}
	}
	p := filepath.Join(dir, "lab.yaml")
	if err := os.WriteFile(p, body, 0o644); err != nil {
		t.Fatal(err)
	}
	inv, err := topology.Load(p, topology.LoadOptions{HomeDir: dir})
	if err != nil {
		t.Fatalf("MySQL lab inventory does not load: %v\n%s", err, body)
	}
	m := inv.Master()
	if m == nil || m.MySQL.Service.Unit != "mysql" || m.MySQL.Flavor != "mysql" {
		t.Fatalf("master's mysql section: %+v\n%s", m, body)
	}
}

func TestMySQLLabTrees(t *testing.T) {
	for _, c := range []struct {
		flavor, role, suite, unit string
	}{
		{FlavorMySQL, "master", "sid", "mysql.service"},
		{FlavorMySQL, "slave", "sid", "mysql.service"},
		{FlavorMySQL, "loadbox", "bookworm", "mariadb.service"}, // masked there: sysbench 1.0.20 and the clients
		{"", "master", "bookworm", "mariadb.service"},
	} {
		tr := flavorOf(c.flavor).treeFor(c.role)
		// Every tree boots in the unified cgroup hierarchy (sid's systemd
		// needs it; bookworm's cleans a unit's cgroup reliably only there).
		if tr.suite != c.suite || tr.dbUnit != c.unit || !tr.unifiedCgroup {
			t.Errorf("%q %s: tree %s (%s, unified %v), want %s (%s, unified)", c.flavor, c.role, tr.suite, tr.dbUnit, tr.unifiedCgroup, c.suite, c.unit)
		}
	}
	// Both trees in one cache, apart; the bookworm key is the one every
	// cache built before the MySQL lab has.
	if a, b := bookwormTree.dir("/c"), mysqlTree.dir("/c"); a == b || !strings.HasPrefix(b, "/c/sid-") || a != "/c/bookworm-478f6fc2" {
		t.Errorf("tree dirs %s and %s", a, b)
	}
}

func TestCheckFlavor(t *testing.T) {
	for _, c := range []struct {
		flavor   string
		clusters int
		err      string
	}{
		{"", 2, ""}, {"mariadb", 1, ""}, {"mysql", 1, ""},
		{"mysql", 2, "--clusters 2 --flavor mysql: not supported"},
		{"percona", 1, `--flavor "percona": want mariadb, mysql, tokudb`},
		{"tokudb", 1, ""}, {"mariadb-10.5", 1, ""}, {"TokuDB", 1, ""},
		{"tokudb", 2, "--clusters 2 --flavor tokudb: not supported"},
	} {
		err := CheckFlavor(c.flavor, c.clusters)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("CheckFlavor(%q, %d) = %v, want %q", c.flavor, c.clusters, err, c.err)
		}
	}
}

// A cgroup dir outside the cgroup2 root is never removed.
func TestRemoveHostCgroupRefusesOtherDirs(t *testing.T) {
	dir := t.TempDir()
	if err := removeHostCgroup(dir); err == nil {
		t.Errorf("removeHostCgroup(%s) = nil: removed a dir that is no lab cgroup", dir)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("dir gone: %v", err)
	}
	if err := removeHostCgroup(""); err != nil {
		t.Errorf("no cgroup recorded: %v", err)
	}
}
