package server

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// update rewrites the golden option files from the code. They are a
// rendering snapshot (header comments, order, layout): a golden regenerated
// from the code cannot fail, so the settings each file must hold are written
// by hand in TestRenderGolden's cases (from the manuals and the case's
// inputs) and, where a real server's variable list exists, every name is
// held to it; -update touches neither.
var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden (a rendering snapshot; the cases' settings are the facts)")

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

// The settings of each case, by hand: the names the manuals give
// (../shared/reference/mysql-sysbench.md §1 semi-sync, §2 GTID, §4 engines;
// a plugin's variables exist only once it is loaded, so they are loose-:
// MySQL's and Percona's semi-sync plugins, TokuDB, MyRocks; MariaDB's
// semi-sync is built in and has no wait_for_slave_count), the values the
// case's inventory, knobs and the seed's profiles (innodb: flush 2, 4G,
// sync_binlog 0; tokudb: directio ON, fsync period 1000, 4G cache) give.
var (
	replication = []string{"log_bin = mysql-bin", "relay_log = relay-bin", "binlog_format = ROW", "bind_address = 0.0.0.0"}
	mysqlGTID   = []string{"gtid_mode = ON", "enforce_gtid_consistency = ON"}
	semiTimeout = "1000000000000000000" // topology.DefaultSemiSyncTimeoutMs
	seedInnoDB  = []string{"innodb_flush_log_at_trx_commit = 2", "innodb_buffer_pool_size = 4G", "sync_binlog = 0"}
	seedTokuDB  = []string{"loose-tokudb_directio = ON", "loose-tokudb_fsync_log_period = 1000", "sync_binlog = 0"}
	replicaRO   = []string{"read_only = ON", "super_read_only = ON"}
)

func hostLines(id int) []string {
	return []string{fmt.Sprintf("server_id = %d", id), fmt.Sprintf("report_host = 10.0.0.%d", id)}
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
		want   [][]string
	}{
		{"mariadb-10.11-innodb-master.cnf", mariadb, 0, lab, Desired{Knobs: []KV{{"sync_binlog", "1"}, {"max_connections", "500"}}}, [][]string{
			hostLines(1), replication, {"default_storage_engine = InnoDB", "gtid_strict_mode = ON",
				"rpl_semi_sync_master_enabled = ON", "rpl_semi_sync_master_timeout = " + semiTimeout, "rpl_semi_sync_master_wait_point = AFTER_SYNC",
				"innodb_flush_log_at_trx_commit = 2", "innodb_buffer_pool_size = 128M", "sync_binlog = 1", "max_connections = 500"}}},
		{"mariadb-10.11-rocksdb-slave1.cnf", mariadb, 1, nil, Desired{Engine: "rocksdb"}, [][]string{
			hostLines(2), replication, {"default_storage_engine = ROCKSDB", "gtid_strict_mode = ON", "rpl_semi_sync_slave_enabled = ON",
				"loose-rocksdb_flush_log_at_trx_commit = 2", "loose-rocksdb_block_cache_size = 4G", "loose-rocksdb_use_direct_reads = ON",
				"loose-rocksdb_use_direct_io_for_flush_and_compaction = ON", "innodb_flush_log_at_trx_commit = 2", "sync_binlog = 0",
				"gtid_pos_auto_engines = rocksdb", "read_only = ON"}}},
		{"mysql-8.0.36-innodb-master.cnf", mysql8, 0, nil, Desired{}, [][]string{
			hostLines(1), replication, mysqlGTID, seedInnoDB, {"default_storage_engine = InnoDB",
				"loose-rpl_semi_sync_source_enabled = ON", "loose-rpl_semi_sync_source_timeout = " + semiTimeout,
				"loose-rpl_semi_sync_source_wait_point = AFTER_SYNC", "loose-rpl_semi_sync_source_wait_for_replica_count = 2"}}},
		{"mysql-8.0.36-innodb-slave2.cnf", mysql8, 2, nil, Desired{}, [][]string{
			hostLines(3), replication, mysqlGTID, seedInnoDB, replicaRO, {"default_storage_engine = InnoDB", "loose-rpl_semi_sync_replica_enabled = ON"}}},
		{"percona-5.7-tokudb-master.cnf", percona57, 0, map[string]string{"tokudb_cache_size": "1G"}, Desired{Engine: "tokudb"}, [][]string{
			hostLines(1), replication, mysqlGTID, seedTokuDB, {"default_storage_engine = TokuDB", "loose-tokudb_cache_size = 1G",
				"loose-rpl_semi_sync_master_enabled = ON", "loose-rpl_semi_sync_master_timeout = " + semiTimeout,
				"loose-rpl_semi_sync_master_wait_point = AFTER_SYNC", "loose-rpl_semi_sync_master_wait_for_slave_count = 2"}}},
		{"percona-5.7-tokudb-slave1.cnf", percona57, 1, nil, Desired{Engine: "tokudb"}, [][]string{
			hostLines(2), replication, mysqlGTID, seedTokuDB, replicaRO, {"default_storage_engine = TokuDB", "loose-tokudb_cache_size = 4G",
				"loose-rpl_semi_sync_slave_enabled = ON"}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			cfg, err := Render(target(t, testInventory(c.vars), c.host, c.server), c.d)
			if err != nil {
				t.Fatal(err)
			}
			got := settings(t, cfg.Text)
			want := slices.Concat(c.want...)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("settings differ from the case's, by hand:\n--- got\n%s\n--- want\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Where the real server's variable list exists, it knows every name.
			if names, ok := KnownVariables(c.server, false); ok {
				for _, line := range got {
					name, _, _ := strings.Cut(strings.TrimPrefix(line, "loose-"), " = ")
					if !contains(names, name) {
						t.Errorf("%s is no variable of the real %s", name, c.server)
					}
				}
			}
			golden(t, c.file, cfg.Text)
			if cfg.Path != "/etc/mysql/conf.d/99-orch.cnf" {
				t.Errorf("path %q", cfg.Path)
			}
		})
	}
}

// settings are an option file's "name = value" lines of [mysqld], sorted.
func settings(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	section := ""
	for _, line := range strings.Split(text, "\n") {
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "["):
			section = line
		case section != "[mysqld]":
			t.Errorf("%q outside [mysqld]", line)
		default:
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
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
