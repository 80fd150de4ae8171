package flavor

import (
	"reflect"
	"strings"
	"testing"
)

// The table's rows for the servers orch is asked about most, pinned value
// by value. Every expected string is written out by hand from the server
// manuals (shared/reference/mysql-sysbench.md sections 1-4: MySQL 5.7 /
// 8.0 / 8.4 semi-sync installation and replication statements, Percona's
// TokuDB installation guide, MariaDB's MyRocks and semi-sync pages, the
// MySQL "option modifiers" page for loose-), never computed from the
// table under test.

// row is what one server must answer.
type row struct {
	s Server
	// engines it can have, in orch's order.
	engines []string
	// enable are the statements enabling its plugin engines (SQL only).
	enable map[string][]string
	// disable undoes enable.
	disable map[string][]string
	// absent are engines it lacks, with a word the reason must hold.
	absent map[string]string
	// plugins maps variables to the plugin providing them ("" = built in).
	plugins map[string]string
	// mariadbGroup: whether it reads [mariadb] in option files.
	mariadbGroup bool
	// readOnlyQuery for innodb_buffer_pool_size ("" = none).
	readOnlyQuery string
	replication
}

// replication are a server's replication building blocks (SQL).
type replication struct {
	masterSemiSync, enableSlaveSemiSync, stopReplication, slaveOff []string
}

// replication57 is MySQL and Percona 5.7: semi-sync plugins with the
// master/slave names (manual: "Semisynchronous Replication Installation").
var replication57 = replication{
	masterSemiSync: []string{
		superReadOnlySaved, superReadOnlyOff,
		"INSTALL PLUGIN rpl_semi_sync_master SONAME 'semisync_master.so'",
		superReadOnlyBack,
		"SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'",
		"SET GLOBAL rpl_semi_sync_master_timeout = " + testTimeout,
		"SET GLOBAL rpl_semi_sync_master_wait_for_slave_count = 2",
		"SET GLOBAL rpl_semi_sync_master_enabled = ON",
	},
	enableSlaveSemiSync: []string{
		superReadOnlySaved, superReadOnlyOff,
		"INSTALL PLUGIN rpl_semi_sync_slave SONAME 'semisync_slave.so'",
		superReadOnlyBack,
		"SET GLOBAL rpl_semi_sync_slave_enabled = ON",
		"STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD",
	},
	stopReplication: []string{"STOP SLAVE", "RESET SLAVE ALL"},
	slaveOff:        []string{"SET GLOBAL rpl_semi_sync_slave_enabled = OFF"},
}

// replication80 is MySQL 8.0.26+ and 8.4: the source/replica plugins and
// the REPLICA statements (8.4 removed the old spellings).
var replication80 = replication{
	masterSemiSync: []string{
		superReadOnlySaved, superReadOnlyOff,
		"INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'",
		superReadOnlyBack,
		"SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'",
		"SET GLOBAL rpl_semi_sync_source_timeout = " + testTimeout,
		"SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = 2",
		"SET GLOBAL rpl_semi_sync_source_enabled = ON",
	},
	enableSlaveSemiSync: []string{
		superReadOnlySaved, superReadOnlyOff,
		"INSTALL PLUGIN rpl_semi_sync_replica SONAME 'semisync_replica.so'",
		superReadOnlyBack,
		"SET GLOBAL rpl_semi_sync_replica_enabled = ON",
		"STOP REPLICA IO_THREAD", "START REPLICA IO_THREAD",
	},
	stopReplication: []string{"STOP REPLICA", "RESET REPLICA ALL"},
	slaveOff:        []string{"SET GLOBAL rpl_semi_sync_replica_enabled = OFF"},
}

const testTimeout = "1000000000000000000" // DefaultSemiSyncTimeoutMS

// super_read_only (MySQL 5.7.8+) refuses INSTALL PLUGIN, which writes the
// mysql.plugin table (ERROR 1290, seen on MySQL 9.7 replicas): it is
// switched off around the install and put back as it was.
const (
	superReadOnlySaved = "SET @orch_super_read_only = @@GLOBAL.super_read_only"
	superReadOnlyOff   = "SET GLOBAL super_read_only = OFF"
	superReadOnlyBack  = "SET GLOBAL super_read_only = @orch_super_read_only"
)

func rows() []row {
	return []row{{
		s:       Server{MySQL, V(5, 7, 44)},
		engines: []string{"innodb"},
		absent:  map[string]string{"tokudb": "Percona Server 5.7", "rocksdb": "MariaDB"},
		plugins: map[string]string{
			"rpl_semi_sync_master_enabled": "rpl_semi_sync_master", "rpl_semi_sync_slave_enabled": "rpl_semi_sync_slave",
			"Rpl-Semi-Sync-Master-Timeout": "rpl_semi_sync_master", "tokudb_cache_size": "TokuDB",
			"rocksdb_block_cache_size": "ROCKSDB", "innodb_buffer_pool_size": "", "sync_binlog": "",
		},
		replication: replication57,
	}, {
		s:       Server{MySQL, V(8, 0, 36)},
		engines: []string{"innodb"},
		absent:  map[string]string{"tokudb": "Percona Server 5.7", "rocksdb": "MariaDB"},
		plugins: map[string]string{
			"rpl_semi_sync_source_enabled": "rpl_semi_sync_source", "rpl_semi_sync_replica_enabled": "rpl_semi_sync_replica",
			"innodb_flush_log_at_trx_commit": "",
		},
		replication: replication80,
	}, {
		s:           Server{MySQL, V(8, 4, 3)},
		engines:     []string{"innodb"},
		absent:      map[string]string{"tokudb": "Percona Server 5.7", "rocksdb": "MariaDB"},
		plugins:     map[string]string{"rpl_semi_sync_source_timeout": "rpl_semi_sync_source", "loose-rpl_semi_sync_replica_enabled": "rpl_semi_sync_replica"},
		replication: replication80,
	}, {
		// 9.7: what 8.4 has (the lab's MySQL, Debian sid's mysql-server).
		s:           Server{MySQL, V(9, 7, 4)},
		engines:     []string{"innodb"},
		absent:      map[string]string{"tokudb": "Percona Server 5.7", "rocksdb": "MariaDB"},
		plugins:     map[string]string{"rpl_semi_sync_source_wait_point": "rpl_semi_sync_source", "rpl_semi_sync_replica_enabled": "rpl_semi_sync_replica"},
		replication: replication80,
	}, {
		s:       Server{Percona, V(5, 7, 44)},
		engines: []string{"innodb", "tokudb"},
		// Percona's TokuDB installation guide: the engine and its
		// information_schema plugins, all from ha_tokudb.so.
		enable: map[string][]string{"tokudb": {
			"INSTALL PLUGIN tokudb SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_file_map SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_fractal_tree_info SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_fractal_tree_block_map SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_trx SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_locks SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_lock_waits SONAME 'ha_tokudb.so'",
			"INSTALL PLUGIN tokudb_background_job_status SONAME 'ha_tokudb.so'",
		}},
		disable: map[string][]string{"tokudb": {
			"UNINSTALL PLUGIN tokudb_background_job_status", "UNINSTALL PLUGIN tokudb_lock_waits",
			"UNINSTALL PLUGIN tokudb_locks", "UNINSTALL PLUGIN tokudb_trx",
			"UNINSTALL PLUGIN tokudb_fractal_tree_block_map", "UNINSTALL PLUGIN tokudb_fractal_tree_info",
			"UNINSTALL PLUGIN tokudb_file_map", "UNINSTALL PLUGIN tokudb",
		}},
		absent:      map[string]string{"rocksdb": "8.0"},
		plugins:     map[string]string{"tokudb_cache_size": "TokuDB", "tokudb-directio": "TokuDB", "rpl_semi_sync_master_enabled": "rpl_semi_sync_master"},
		replication: replication57,
	}, {
		s:       Server{MariaDB, V(10, 11, 19)},
		engines: []string{"innodb", "rocksdb"},
		// MariaDB's "Getting started with MyRocks": INSTALL SONAME 'ha_rocksdb'.
		enable:  map[string][]string{"rocksdb": {"INSTALL SONAME 'ha_rocksdb'"}},
		disable: map[string][]string{"rocksdb": {"UNINSTALL SONAME 'ha_rocksdb'"}},
		absent:  map[string]string{"tokudb": "10.6"},
		// Semi-sync is built in since 10.3.3: no plugin, no loose-.
		plugins: map[string]string{
			"rpl_semi_sync_master_enabled": "", "rpl_semi_sync_slave_enabled": "",
			"rocksdb_block_cache_size": "ROCKSDB", "innodb_buffer_pool_size": "",
		},
		mariadbGroup:  true,
		readOnlyQuery: "SELECT READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = 'INNODB_BUFFER_POOL_SIZE'",
		// No wait_for_slave_count on MariaDB (it always waits for one).
		replication: replication{
			masterSemiSync: []string{
				"SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'",
				"SET GLOBAL rpl_semi_sync_master_timeout = " + testTimeout,
				"SET GLOBAL rpl_semi_sync_master_enabled = ON",
			},
			enableSlaveSemiSync: []string{
				"SET GLOBAL rpl_semi_sync_slave_enabled = ON",
				"STOP SLAVE IO_THREAD", "START SLAVE IO_THREAD",
			},
			stopReplication: []string{"STOP SLAVE", "RESET SLAVE ALL"},
			slaveOff:        []string{"SET GLOBAL rpl_semi_sync_slave_enabled = OFF"},
		},
	}}
}

func sqlOf(sts []Statement) []string {
	out := []string{}
	for _, st := range sts {
		out = append(out, st.SQL)
	}
	return out
}

func TestTableRows(t *testing.T) {
	for _, r := range rows() {
		t.Run(r.s.String(), func(t *testing.T) {
			s := r.s
			var names []string
			for _, e := range s.Engines() {
				names = append(names, e.Name)
				if e.Enable == "" {
					t.Errorf("%s has no enabling instructions", e.Name)
				}
			}
			if !reflect.DeepEqual(names, r.engines) {
				t.Errorf("engines %q, want %q", names, r.engines)
			}
			for name, want := range r.enable {
				e, _ := LookupEngine(name)
				if got := sqlOf(s.InstallEngine(e)); !reflect.DeepEqual(got, want) {
					t.Errorf("enable %s:\n got %q\nwant %q", name, got, want)
				}
				if got := sqlOf(s.UninstallEngine(e)); !reflect.DeepEqual(got, r.disable[name]) {
					t.Errorf("disable %s:\n got %q\nwant %q", name, got, r.disable[name])
				}
			}
			if got := s.InstallEngine(EngineSpec{Name: "innodb"}); len(got) != 0 {
				t.Errorf("a built-in engine is installed: %v", got)
			}
			for name, word := range r.absent {
				if _, ok := s.Engine(name); ok {
					t.Errorf("%s claims %s", s, name)
				}
				err := s.EngineUnavailable("slave1 10.0.0.2", name, r.engines)
				msg := err.Error()
				if !strings.HasPrefix(msg, "slave1 10.0.0.2: "+name+" is not available on "+s.String()+" (") ||
					!strings.Contains(msg, word) || strings.Contains(msg, "\n") ||
					!strings.HasSuffix(msg, "; engines: "+strings.Join(r.engines, ", ")) {
					t.Errorf("unavailable %s: %q (want host, server, a reason with %q, the engines, one line)", name, msg, word)
				}
			}
			for v, want := range r.plugins {
				if got := s.PluginFor(v); got != want {
					t.Errorf("PluginFor(%s) = %q, want %q", v, got, want)
				}
				wantLine := VariableName(v)
				if want != "" {
					wantLine = "loose-" + wantLine
				}
				if got := s.OptionLine(VariableName(v)); got != wantLine || s.NeedsLoose(v) != (want != "") {
					t.Errorf("OptionLine(%s) = %q, want %q", v, got, wantLine)
				}
			}
			if !s.ReadsGroup("mysqld") || !s.ReadsGroup("server") || s.ReadsGroup("mysqld_safe") || s.ReadsGroup("client") {
				t.Errorf("server groups wrong: mysqld %t server %t", s.ReadsGroup("mysqld"), s.ReadsGroup("server"))
			}
			if got := s.ReadsGroup("mariadb"); got != r.mariadbGroup {
				t.Errorf("reads [mariadb] = %t, want %t", got, r.mariadbGroup)
			}
			q, ok := s.ReadOnlyQuery("innodb-buffer-pool-size")
			if q != r.readOnlyQuery || ok != (r.readOnlyQuery != "") {
				t.Errorf("read-only query %q, %t; want %q", q, ok, r.readOnlyQuery)
			}
			master, err := s.MasterSemiSync(testParams())
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				what      string
				got, want []string
			}{
				{"master semi-sync", sqlOf(master), r.masterSemiSync},
				{"enable slave semi-sync", sqlOf(s.EnableSlaveSemiSync()), r.enableSlaveSemiSync},
				{"stop replication", sqlOf(s.StopReplication()), r.stopReplication},
				{"slave semi-sync off", sqlOf(s.SlaveSemiSyncOff()), r.slaveOff},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s:\n got %q\nwant %q", c.what, c.got, c.want)
				}
			}
		})
	}
}

// Install statements are guarded so that a re-run does nothing, and their
// undo only touches what is there.
func TestEngineStatementsAreGuarded(t *testing.T) {
	maria := Server{MariaDB, V(10, 11, 19)}
	rocks, _ := LookupEngine("RocksDB")
	in, out := maria.InstallEngine(rocks), maria.UninstallEngine(rocks)
	if in[0].OnlyIf != "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'ROCKSDB')" ||
		out[0].OnlyIf != "SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = 'ROCKSDB'" {
		t.Errorf("MyRocks guards: %q / %q", in[0].OnlyIf, out[0].OnlyIf)
	}
	percona := Server{Percona, V(5, 7, 44)}
	toku, _ := LookupEngine("tokudb")
	for _, st := range append(percona.InstallEngine(toku), percona.UninstallEngine(toku)...) {
		plugin := strings.Fields(st.SQL)[2] // INSTALL|UNINSTALL PLUGIN name
		if !strings.HasSuffix(st.OnlyIf, "PLUGIN_NAME = '"+plugin+"'") && !strings.HasSuffix(st.OnlyIf, "PLUGIN_NAME = '"+plugin+"')") {
			t.Errorf("%s guarded by %q", st.SQL, st.OnlyIf)
		}
	}
}

// What the engines are, on every server (MariaDB's MyRocks pages: the
// #rocksdb directory and rocksdb_force_flush_memtable_now; TokuDB's
// .tokudb files in the datadir; InnoDB's file-per-table .ibd files).
func TestEngineSpecs(t *testing.T) {
	if got := EngineNames(); !reflect.DeepEqual(got, []string{"innodb", "tokudb", "rocksdb"}) {
		t.Errorf("engine names %q", got)
	}
	if got := PluginLibraries(); !reflect.DeepEqual(got, []string{"ha_tokudb.so", "ha_rocksdb.so"}) {
		t.Errorf("plugin libraries %q", got)
	}
	inno, _ := LookupEngine("InnoDB")
	toku, _ := EngineByPlugin("tokudb")
	rocks, _ := EngineByLibrary("ha_rocksdb.so")
	if inno.Display != "InnoDB" || inno.Plugin != "" || inno.TableFiles != (FileGlob{After: "/*.ibd"}) || inno.NeedsTHPOff {
		t.Errorf("innodb %+v", inno)
	}
	if toku.Name != "tokudb" || toku.Display != "TokuDB" || toku.VarPrefix != "tokudb_" || !toku.NeedsTHPOff ||
		toku.TableFiles != (FileGlob{Before: "./_", After: "_*.tokudb"}) || !strings.Contains(toku.StartHint, "jemalloc") {
		t.Errorf("tokudb %+v", toku)
	}
	if rocks.Name != "rocksdb" || rocks.Display != "ROCKSDB" || rocks.DataDir != "#rocksdb" || rocks.VarPrefix != "rocksdb_" ||
		rocks.FlushStmt != "SET GLOBAL rocksdb_force_flush_memtable_now = 1" || !rocks.TableFiles.IsZero() {
		t.Errorf("rocksdb %+v", rocks)
	}
	if _, ok := LookupEngine("myisam"); ok {
		t.Error("orch has no MyISAM profile")
	}
	if _, ok := EngineByLibrary("semisync_master.so"); ok {
		t.Error("a semi-sync library is an engine")
	}
}

// Every supported server that lacks an engine says why: the error is what
// a user sees when the engine cannot run there.
func TestEveryAbsentEngineHasAReason(t *testing.T) {
	for _, s := range probeServers() {
		if _, ok := s.Lookup(Supported); !ok {
			continue
		}
		for _, e := range engineSpecs {
			_, has := s.Engine(e.Name)
			note := s.EngineAbsence(e.Name)
			if has == (note != "") {
				t.Errorf("%v %s: available %t, absence note %q", s, e.Name, has, note)
			}
		}
	}
}
