package server

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// testInventory is a three-server cluster with the inventory defaults.
func testInventory(vars map[string]string) *topology.Inventory {
	inv := &topology.Inventory{Source: "/etc/orch/cluster.yaml"}
	for i, name := range []string{"master", "slave1", "slave2"} {
		role := topology.RoleSlave
		if i == 0 {
			role = topology.RoleMaster
		}
		inv.Hosts = append(inv.Hosts, &topology.Host{Name: name, Role: role, Address: "10.0.0." + string(rune('1'+i)),
			MySQL: topology.MySQLConfig{Datadir: "/var/lib/mysql"}})
	}
	inv.Hosts = append(inv.Hosts, &topology.Host{Name: "loadbox", Role: topology.RoleLoadBox, Address: "10.0.0.9"})
	inv.Replication.SemiSync = topology.SemiSync{Enabled: true, TimeoutMs: topology.DefaultSemiSyncTimeoutMs,
		WaitPoint: topology.DefaultWaitPoint, WaitForSlaveCount: 2}
	inv.Profile.Vars = vars
	return inv
}

func mustServer(t *testing.T, f flavor.Flavor, v flavor.Version) flavor.Server {
	t.Helper()
	s, err := flavor.New(f, v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func target(t *testing.T, inv *topology.Inventory, host int, s flavor.Server) Target {
	return Target{Host: inv.Hosts[host], Inventory: inv, Server: s, ConfigDir: "/etc/mysql/conf.d", Datadir: "/var/lib/mysql"}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestRenderGolden(t *testing.T) {
	mariadb := mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))
	mysql8 := mustServer(t, flavor.MySQL, flavor.V(8, 0, 36))
	percona57 := mustServer(t, flavor.Percona, flavor.V(5, 7, 44))
	lab := map[string]string{"innodb_buffer_pool_size": "128M"}
	cases := []struct {
		file   string
		server flavor.Server
		host   int
		vars   map[string]string
		d      Desired
	}{
		{"mariadb-10.11-innodb-master.cnf", mariadb, 0, lab, Desired{Knobs: []KV{{"sync_binlog", "1"}, {"max_connections", "500"}}}},
		{"mariadb-10.11-rocksdb-slave1.cnf", mariadb, 1, nil, Desired{Engine: "rocksdb"}},
		{"mysql-8.0.36-innodb-master.cnf", mysql8, 0, nil, Desired{}},
		{"mysql-8.0.36-innodb-slave2.cnf", mysql8, 2, nil, Desired{}},
		{"percona-5.7-tokudb-master.cnf", percona57, 0, map[string]string{"tokudb_cache_size": "1G"}, Desired{Engine: "tokudb"}},
		{"percona-5.7-tokudb-slave1.cnf", percona57, 1, nil, Desired{Engine: "tokudb"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			cfg, err := Render(target(t, testInventory(c.vars), c.host, c.server), c.d)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.file, cfg.Text)
			if cfg.Path != "/etc/mysql/conf.d/99-orch.cnf" {
				t.Errorf("path %q", cfg.Path)
			}
		})
	}
}

// The original experiment's values are in the profiles exactly.
func TestProfilesCarryExperimentValues(t *testing.T) {
	percona57 := mustServer(t, flavor.Percona, flavor.V(5, 7, 44))
	want := map[string]map[string]string{
		"innodb": {"innodb_flush_log_at_trx_commit": "2", "innodb_buffer_pool_size": "4G", "sync_binlog": "0", "default_storage_engine": "InnoDB"},
		"tokudb": {"tokudb_directio": "ON", "tokudb_fsync_log_period": "1000", "tokudb_cache_size": "4G", "sync_binlog": "0", "default_storage_engine": "TokuDB"},
	}
	for engine, vars := range want {
		cfg, err := Render(target(t, testInventory(nil), 0, percona57), Desired{Engine: engine})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, v := range cfg.Vars {
			got[v.Name] = v.Value
		}
		for name, value := range vars {
			if got[name] != value {
				t.Errorf("%s: %s = %q, want %q", engine, name, got[name], value)
			}
		}
		if _, ok := got["binlog_sync"]; ok {
			t.Errorf("%s: binlog_sync is not a server variable", engine)
		}
	}
}

func TestRenderServerIDsAndRoles(t *testing.T) {
	mariadb := mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))
	inv := testInventory(nil)
	for i, want := range []struct{ id, semi string }{{"1", "rpl_semi_sync_master_enabled"}, {"2", "rpl_semi_sync_slave_enabled"}, {"3", "rpl_semi_sync_slave_enabled"}} {
		cfg, err := Render(target(t, inv, i, mariadb), Desired{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(cfg.Text, "\nserver_id = "+want.id+"\n") || !strings.Contains(cfg.Text, "\n"+want.semi+" = ON\n") {
			t.Errorf("host %d:\n%s", i, cfg.Text)
		}
		if i > 0 && strings.Contains(cfg.Text, "rpl_semi_sync_master") {
			t.Errorf("a slave got master-side semi-sync settings:\n%s", cfg.Text)
		}
	}
	if _, err := Render(target(t, inv, 3, mariadb), Desired{}); err == nil || !strings.Contains(err.Error(), "loadbox 10.0.0.9: role loadbox runs no database server") {
		t.Errorf("load box: %v", err)
	}
}

func TestRenderIsDeterministic(t *testing.T) {
	mariadb := mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19))
	vars := map[string]string{"b_var": "1", "a_var": "2", "innodb_buffer_pool_size": "1G", "c_var": "3"}
	first, err := Render(target(t, testInventory(vars), 0, mariadb), Desired{})
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := Render(target(t, testInventory(vars), 0, mariadb), Desired{})
		if err != nil {
			t.Fatal(err)
		}
		if again.Text != first.Text {
			t.Fatalf("two renders differ:\n%s\n---\n%s", first.Text, again.Text)
		}
	}
}

// The rocksdb profile keeps the replicas' applied position in RocksDB
// where the flavour table says the server can (MariaDB's
// gtid_pos_auto_engines), on the master too, and sets nothing of the kind
// on Percona Server 8.0, which has no such variable (its manual's
// variable index).
func TestRocksDBPositionTable(t *testing.T) {
	for _, c := range []struct {
		srv  flavor.Server
		want string
	}{
		{mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)), "rocksdb"},
		{mustServer(t, flavor.Percona, flavor.V(8, 0, 36)), ""},
	} {
		for host := 0; host < 2; host++ {
			cfg, err := Render(target(t, testInventory(nil), host, c.srv), Desired{Engine: "rocksdb"})
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, v := range cfg.Vars {
				if v.Name == "gtid_pos_auto_engines" {
					got = v.Value
				}
			}
			if got != c.want {
				t.Errorf("%s host %d: gtid_pos_auto_engines = %q, want %q", c.srv, host, got, c.want)
			}
		}
	}
}

// On MariaDB 10.5 TokuDB loads from orch's option file (plugin_load_add):
// in its own profile, and in another engine's when the server has its
// plugin (its tables must be dropped by it), never on a server without
// the plugin file or where the engine does not load at start (10.11).
func TestRenderLoadsTokuDBAtStart(t *testing.T) {
	m105 := mustServer(t, flavor.MariaDB, flavor.V(10, 5, 23))
	loads := func(cfg *Config) int { return strings.Count(cfg.Text, "\nplugin_load_add = ha_tokudb.so\n") }
	for _, c := range []struct {
		engine  string
		plugins []string
		want    int
	}{
		{"tokudb", nil, 1}, {"tokudb", []string{"ha_tokudb.so"}, 1},
		{"innodb", []string{"ha_tokudb.so"}, 1}, {"innodb", nil, 0}, {"innodb", []string{"ha_rocksdb.so"}, 0},
	} {
		tg := target(t, testInventory(nil), 0, m105)
		tg.PluginFiles = c.plugins
		cfg, err := Render(tg, Desired{Engine: c.engine})
		if err != nil {
			t.Fatal(err)
		}
		if got := loads(cfg); got != c.want {
			t.Errorf("%s with plugins %v: plugin_load_add = ha_tokudb.so %d times, want %d:\n%s", c.engine, c.plugins, got, c.want, cfg.Text)
		}
	}
	tg := target(t, testInventory(nil), 0, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 6)))
	tg.PluginFiles = []string{"ha_tokudb.so"}
	if cfg, err := Render(tg, Desired{Engine: "innodb"}); err != nil || loads(cfg) != 0 {
		t.Errorf("MariaDB 10.11 loads no TokuDB (%v)", err)
	}
}
