package flavor

import (
	"fmt"
	"strings"
)

// UnloggedStatements is UnloggedSession on every supported server, for
// the one session orch opens before it knows the server (root's socket).
const UnloggedStatements = "SET SESSION sql_log_off = 1; SET SESSION long_query_time = 31536000"

// Feature names one way in which servers differ. Its value for a server is
// looked up in rules; "" (no matching rule) means the server lacks it.
type Feature string

const (
	// Supported is "yes" for the flavours and versions orch supports.
	Supported Feature = "supported"

	// Statement words.
	ChangeSourceStmt   Feature = "change-source-stmt"   // CHANGE MASTER TO | CHANGE REPLICATION SOURCE TO
	SourceOptionPrefix Feature = "source-option-prefix" // MASTER_ | SOURCE_ (MASTER_HOST, SOURCE_AUTO_POSITION...)
	ReplicaKeyword     Feature = "replica-keyword"      // SLAVE | REPLICA in START/STOP/RESET/SHOW ... and IO_THREAD
	ResetBinlogsStmt   Feature = "reset-binlogs-stmt"   // RESET MASTER | RESET BINARY LOGS AND GTIDS
	BinlogStatusStmt   Feature = "binlog-status-stmt"   // SHOW MASTER STATUS | SHOW BINARY LOG STATUS
	// StatusColumns is "Slave/Master" or "Replica/Source": the words in
	// the replica status column names (Slave_IO_Running, Source_Host...).
	StatusColumns Feature = "status-columns"
	// ReplGrants is the privilege list given to the replication account.
	ReplGrants Feature = "repl-grants"
	// MaxReplPassword is the longest replication password CHANGE MASTER /
	// CHANGE REPLICATION SOURCE accepts, in characters.
	MaxReplPassword Feature = "max-repl-password"
	// UnloggedSession are the statements ("; "-separated) that keep the
	// session's next statements out of the server's general and slow logs
	// (a password in CREATE USER or CHANGE MASTER would land there in
	// clear text); LoggedSession puts the session back as the server has it.
	UnloggedSession Feature = "unlogged-session"
	LoggedSession   Feature = "logged-session"

	// GTID replication.
	GTIDStyle Feature = "gtid-style" // auto-position (MySQL) | slave-pos (MariaDB)
	// GTIDSettings are the space-separated name=value server settings GTID
	// replication needs on every node (persisted in the config file).
	GTIDSettings      Feature = "gtid-settings"
	GTIDSourcePosVar  Feature = "gtid-source-pos-var"  // what the master has written: gtid_executed | gtid_binlog_pos
	GTIDReplicaPosVar Feature = "gtid-replica-pos-var" // what a slave has applied: gtid_executed | gtid_slave_pos
	GTIDWaitFunc      Feature = "gtid-wait-func"       // WAIT_FOR_EXECUTED_GTID_SET | MASTER_GTID_WAIT
	// PublicKeyOption lets a replica fetch the source's RSA key so that
	// caching_sha2_password works without TLS (MySQL 8 error 2061).
	PublicKeyOption Feature = "public-key-option" // GET_MASTER_PUBLIC_KEY | GET_SOURCE_PUBLIC_KEY

	// ReadOnlySettings keep a slave's data the master's: read_only stops
	// clients without SUPER (or READ_ONLY ADMIN) from writing; MySQL and
	// Percona also have super_read_only, which stops those too.
	ReadOnlySettings Feature = "read-only-settings"
	// GTIDResetStmt forgets a standalone server's GTID history once its
	// binary logs are gone (orch down --purge).
	GTIDResetStmt Feature = "gtid-reset-stmt"

	// Semi-synchronous replication. Plugin and library are "" where
	// semi-sync is built in (MariaDB 10.3.3+).
	SemiSyncMasterPlugin  Feature = "semisync-master-plugin"
	SemiSyncMasterLibrary Feature = "semisync-master-library"
	SemiSyncSlavePlugin   Feature = "semisync-slave-plugin"
	SemiSyncSlaveLibrary  Feature = "semisync-slave-library"
	// Variable prefixes: <prefix>_enabled etc., and the status variables
	// Rpl_semi_sync_<...>_status etc. On MySQL 8.0.26+ the old names are
	// not aliases: only the loaded plugin's names exist.
	SemiSyncMasterPrefix Feature = "semisync-master-prefix"
	SemiSyncSlavePrefix  Feature = "semisync-slave-prefix"
	// SemiSyncWaitCountVar is the number of acks the master waits for;
	// MariaDB has none (it always waits for one).
	SemiSyncWaitCountVar Feature = "semisync-wait-count-var"

	// Storage engines (engines.go): the value says how the engine is
	// enabled; EngineAbsent(name) says why a server lacks it.
	EngineInnoDB  Feature = "engine:innodb"
	EngineTokuDB  Feature = "engine:tokudb"
	EngineRocksDB Feature = "engine:rocksdb"
	// PluginInstallStmt is how a plugin library is loaded at run time:
	// INSTALL PLUGIN name SONAME 'lib.so' per plugin (MySQL, Percona), or
	// INSTALL SONAME 'lib' for all plugins of the library (MariaDB).
	PluginInstallStmt Feature = "plugin-install-stmt"

	// PositionEnginesVar lists the engines that get their own table of
	// a replica's applied position (engine_settings.go); "" where the
	// position's table is always InnoDB's.
	PositionEnginesVar Feature = "position-engines-var"
	// VarDefaults names the set of manual defaults the fairness check
	// uses for s (varDefaults in engine_settings.go).
	VarDefaults Feature = "var-defaults"

	// Option files (config.go). OptionGroups are the [groups] of the
	// option files the server reads, space-separated.
	OptionGroups Feature = "option-groups"
	// ReadOnlyVarQuery asks whether a variable is read-only (static); its
	// one row's one column is YES or NO. "" where the server has no such
	// catalogue (MySQL: set the variable to itself and see error 1238).
	ReadOnlyVarQuery Feature = "read-only-var-query"
	// ValueOriginQuery asks where a variable's global value comes from;
	// its one row's one column is SQL when a SET GLOBAL put it there after
	// the start. Absent where orch does not ask (no StartupDerived there).
	ValueOriginQuery Feature = "value-origin-query"
)

// Values of PluginInstallStmt.
const (
	perPlugin  = "INSTALL PLUGIN"
	perLibrary = "INSTALL SONAME"
)

// AbsentVar(name) is a variable users ask for that the server does not
// have although another flavour does; its value says why and where the
// question can be asked instead. A knob so named is refused before any host:
// its cells would measure nothing but noise.
func AbsentVar(name string) Feature { return Feature("absent-var:" + name) }

// OptionOnly(name) is an option mysqld reads at startup that SHOW
// VARIABLES never lists, so orch checks it in the option files only; its
// value is "yes".
func OptionOnly(name string) Feature { return Feature("option-only:" + name) }

// EngineLoadAtStart(engine) is "yes" where orch loads the engine's plugin
// with plugin-load-add in its option file (and a restart) rather than
// INSTALL at run time.
func EngineLoadAtStart(engine string) Feature { return Feature("engine-load-at-start:" + engine) }

// RestartOnly(name) is a dynamic variable orch still changes by restarting
// the server; its value is why.
func RestartOnly(name string) Feature { return Feature("restart-only:" + name) }

// StartupDerived(name) is a dynamic variable from whose value at startup
// the server derives another variable; its value is "DERIVED: how". SET
// GLOBAL name leaves DERIVED as the last start chose, so the server would
// run a config no option file describes: orch changes name by restarting,
// unless the same config sets DERIVED too.
func StartupDerived(name string) Feature { return Feature("startup-derived:" + name) }

// flavorSet is a set of flavours a rule applies to.
type flavorSet uint8

const (
	onMySQL flavorSet = 1 << iota
	onPercona
	onMariaDB

	// Percona Server uses MySQL's syntax for the same version.
	mysqlFamily = onMySQL | onPercona
)

func (fs flavorSet) has(f Flavor) bool {
	switch f {
	case MySQL:
		return fs&onMySQL != 0
	case Percona:
		return fs&onPercona != 0
	case MariaDB:
		return fs&onMariaDB != 0
	}
	return false
}

// rule gives a feature's value on some flavours for versions in [min, max).
// A zero max means no upper bound.
type rule struct {
	feature Feature
	on      flavorSet
	min     Version
	max     Version
	value   string
}

func (r rule) matches(s Server) bool {
	return r.on.has(s.Flavor) && s.Version.AtLeast(r.min) &&
		(r.max.IsZero() || s.Version.Compare(r.max) < 0)
}

var none = Version{}

// rules is the one place where flavours and versions differ. Sources are
// the reference notes (shared/reference/mysql-sysbench.md, sections 1-4).
// For any server, at most one rule per feature may match (tested).
var rules = []rule{
	{Supported, mysqlFamily, V(5, 7, 0), none, "yes"},
	// Semi-sync became built in (and got its wait point) in 10.3.3; earlier
	// 10.3 releases were pre-GA.
	{Supported, onMariaDB, V(10, 3, 3), none, "yes"},

	// START/STOP/RESET REPLICA and SHOW REPLICA STATUS came in 8.0.22,
	// CHANGE REPLICATION SOURCE TO and SOURCE_* options in 8.0.23; 8.4.0
	// removed the old spellings. MariaDB 10.5+ accepts REPLICA for some
	// statements but SLAVE works on every version orch supports.
	{ReplicaKeyword, mysqlFamily, V(5, 7, 0), V(8, 0, 22), "SLAVE"},
	{ReplicaKeyword, mysqlFamily, V(8, 0, 22), none, "REPLICA"},
	{ReplicaKeyword, onMariaDB, none, none, "SLAVE"},
	{StatusColumns, mysqlFamily, V(5, 7, 0), V(8, 0, 22), "Slave/Master"},
	{StatusColumns, mysqlFamily, V(8, 0, 22), none, "Replica/Source"},
	{StatusColumns, onMariaDB, none, none, "Slave/Master"},
	{ChangeSourceStmt, mysqlFamily, V(5, 7, 0), V(8, 0, 23), "CHANGE MASTER TO"},
	{ChangeSourceStmt, mysqlFamily, V(8, 0, 23), none, "CHANGE REPLICATION SOURCE TO"},
	{ChangeSourceStmt, onMariaDB, none, none, "CHANGE MASTER TO"},
	{SourceOptionPrefix, mysqlFamily, V(5, 7, 0), V(8, 0, 23), "MASTER_"},
	{SourceOptionPrefix, mysqlFamily, V(8, 0, 23), none, "SOURCE_"},
	{SourceOptionPrefix, onMariaDB, none, none, "MASTER_"},
	// MariaDB 10.11 rejects the new spellings (ERROR 1064).
	{ResetBinlogsStmt, mysqlFamily, V(5, 7, 0), V(8, 4, 0), "RESET MASTER"},
	{ResetBinlogsStmt, mysqlFamily, V(8, 4, 0), none, "RESET BINARY LOGS AND GTIDS"},
	{ResetBinlogsStmt, onMariaDB, none, none, "RESET MASTER"},
	{BinlogStatusStmt, mysqlFamily, V(5, 7, 0), V(8, 4, 0), "SHOW MASTER STATUS"},
	{BinlogStatusStmt, mysqlFamily, V(8, 4, 0), none, "SHOW BINARY LOG STATUS"},
	{BinlogStatusStmt, onMariaDB, none, none, "SHOW MASTER STATUS"},
	// REPLICATION SLAVE is all replication needs; REPLICATION CLIENT lets
	// the same account read master/replica status (MariaDB 10.5+ keeps it
	// as an alias of BINLOG MONITOR).
	{ReplGrants, mysqlFamily | onMariaDB, none, none, "REPLICATION SLAVE, REPLICATION CLIENT"},
	// MySQL's manual: MASTER_PASSWORD (SOURCE_PASSWORD) is at most 32
	// characters (error 3056, ER_CHANGE_MASTER_PASSWORD_LENGTH); MariaDB's
	// CHANGE MASTER: at most 96 (error 1470 beyond, seen on the lab).
	{MaxReplPassword, mysqlFamily, V(5, 7, 0), none, "32"},
	{MaxReplPassword, onMariaDB, none, none, "96"},
	// sql_log_off (SUPER, or SYSTEM_VARIABLES_ADMIN on MySQL 8: what
	// up's SET GLOBAL needs anyway) is the general log's switch; MySQL's
	// slow_query_log is global only, so the slow log is kept off by a
	// session long_query_time of its maximum, a year (MariaDB takes it too).
	{UnloggedSession, mysqlFamily | onMariaDB, none, none, UnloggedStatements},
	{LoggedSession, mysqlFamily | onMariaDB, none, none, "SET SESSION sql_log_off = @@GLOBAL.sql_log_off; SET SESSION long_query_time = @@GLOBAL.long_query_time"},

	// GTIDs: MySQL and MariaDB GTIDs are incompatible and set up differently.
	{GTIDStyle, mysqlFamily, none, none, "auto-position"},
	{GTIDStyle, onMariaDB, none, none, "slave-pos"},
	{GTIDSettings, mysqlFamily, none, none, "gtid_mode=ON enforce_gtid_consistency=ON"},
	{GTIDSettings, onMariaDB, none, none, "gtid_strict_mode=ON"},
	{GTIDSourcePosVar, mysqlFamily, none, none, "gtid_executed"},
	{GTIDSourcePosVar, onMariaDB, none, none, "gtid_binlog_pos"},
	{GTIDReplicaPosVar, mysqlFamily, none, none, "gtid_executed"},
	{GTIDReplicaPosVar, onMariaDB, none, none, "gtid_slave_pos"},
	{GTIDWaitFunc, mysqlFamily, none, none, "WAIT_FOR_EXECUTED_GTID_SET"},
	{GTIDWaitFunc, onMariaDB, none, none, "MASTER_GTID_WAIT"},
	{ReadOnlySettings, mysqlFamily, V(5, 7, 0), none, "read_only=ON super_read_only=ON"},
	{ReadOnlySettings, onMariaDB, none, none, "read_only=ON"},
	// MySQL keeps executed GTIDs in mysql.gtid_executed, cleared by the
	// binlog reset even with binary logging off; MariaDB's binlog state
	// lives in the binlog files, its applied position in gtid_slave_pos.
	{GTIDResetStmt, mysqlFamily, V(5, 7, 0), V(8, 4, 0), "RESET MASTER"},
	{GTIDResetStmt, mysqlFamily, V(8, 4, 0), none, "RESET BINARY LOGS AND GTIDS"},
	{GTIDResetStmt, onMariaDB, none, none, "SET GLOBAL gtid_slave_pos = ''"},
	// caching_sha2_password is MySQL 8's default; 5.7 and MariaDB default
	// to mysql_native_password and need nothing.
	{PublicKeyOption, mysqlFamily, V(8, 0, 0), V(8, 0, 23), "GET_MASTER_PUBLIC_KEY"},
	{PublicKeyOption, mysqlFamily, V(8, 0, 23), none, "GET_SOURCE_PUBLIC_KEY"},

	// Semi-sync: plugins on MySQL/Percona, renamed in 8.0.26; built in on
	// MariaDB, which keeps the master/slave names.
	{SemiSyncMasterPlugin, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "rpl_semi_sync_master"},
	{SemiSyncMasterPlugin, mysqlFamily, V(8, 0, 26), none, "rpl_semi_sync_source"},
	{SemiSyncMasterLibrary, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "semisync_master.so"},
	{SemiSyncMasterLibrary, mysqlFamily, V(8, 0, 26), none, "semisync_source.so"},
	{SemiSyncSlavePlugin, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "rpl_semi_sync_slave"},
	{SemiSyncSlavePlugin, mysqlFamily, V(8, 0, 26), none, "rpl_semi_sync_replica"},
	{SemiSyncSlaveLibrary, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "semisync_slave.so"},
	{SemiSyncSlaveLibrary, mysqlFamily, V(8, 0, 26), none, "semisync_replica.so"},
	{SemiSyncMasterPrefix, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "rpl_semi_sync_master"},
	{SemiSyncMasterPrefix, mysqlFamily, V(8, 0, 26), none, "rpl_semi_sync_source"},
	{SemiSyncMasterPrefix, onMariaDB, none, none, "rpl_semi_sync_master"},
	{SemiSyncSlavePrefix, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "rpl_semi_sync_slave"},
	{SemiSyncSlavePrefix, mysqlFamily, V(8, 0, 26), none, "rpl_semi_sync_replica"},
	{SemiSyncSlavePrefix, onMariaDB, none, none, "rpl_semi_sync_slave"},
	{SemiSyncWaitCountVar, mysqlFamily, V(5, 7, 0), V(8, 0, 26), "rpl_semi_sync_master_wait_for_slave_count"},
	{SemiSyncWaitCountVar, mysqlFamily, V(8, 0, 26), none, "rpl_semi_sync_source_wait_for_replica_count"},

	// Engines. TokuDB: Percona 5.7 only (deprecated in 8.0, removed from
	// 8.0.28 packages; MariaDB dropped it in 10.5/10.6). MyRocks: MariaDB's
	// mariadb-plugin-rocksdb package ships rocksdb.cnf loading the plugin;
	// Percona 8 ships ps-admin (its MyRocks switch is UNCONFIRMED in the notes).
	{EngineInnoDB, mysqlFamily | onMariaDB, none, none, "built in"},
	{EngineTokuDB, onPercona, V(5, 7, 0), V(5, 8, 0), "ps-admin --enable-tokudb (or INSTALL PLUGIN tokudb SONAME 'ha_tokudb.so'); needs transparent huge pages off and jemalloc"},
	// MariaDB 10.5 still has storage/tokudb in its sources, DISABLED in
	// its cmake (a build with -DPLUGIN_TOKUDB=DYNAMIC has it); its plugin
	// loads only into a mariadbd with jemalloc preloaded, and without it
	// the server starts anyway, without TokuDB (shared/reference/tokudb.md).
	// orch loads it from its option file, where down takes it back.
	{EngineTokuDB, onMariaDB, V(10, 5, 0), V(10, 6, 0), "plugin-load-add=ha_tokudb.so (a 10.5 build with -DPLUGIN_TOKUDB=DYNAMIC), with jemalloc preloaded into mariadbd: malloc-lib=libjemalloc.so.2 in [mysqld_safe], or LD_PRELOAD in the service's environment"},
	{EngineLoadAtStart("tokudb"), onMariaDB, V(10, 5, 0), V(10, 6, 0), "yes"},
	{EngineRocksDB, onMariaDB, none, none, "plugin-load-add=ha_rocksdb.so (package mariadb-plugin-rocksdb)"},
	{EngineRocksDB, onPercona, V(8, 0, 0), none, "ps-admin --enable-rocksdb"},
	// Why the others lack them: the history a user needs to believe it.
	{EngineAbsent("tokudb"), onMySQL, none, none, "TokuDB is a Percona Server 5.7 engine"},
	{EngineAbsent("tokudb"), onPercona, V(5, 8, 0), V(8, 0, 28), "TokuDB is for Percona Server 5.7 (deprecated in 8.0.13, disabled by default in 8.0.26)"},
	{EngineAbsent("tokudb"), onPercona, V(8, 0, 28), none, "TokuDB is for Percona Server 5.7 (removed from the packages in 8.0.28)"},
	{EngineAbsent("tokudb"), onMariaDB, none, V(10, 5, 0), "orch runs TokuDB on Percona Server 5.7 and MariaDB 10.5"},
	{EngineAbsent("tokudb"), onMariaDB, V(10, 6, 0), none, "removed in 10.6"},
	{EngineAbsent("rocksdb"), onMySQL, none, none, "MyRocks ships with MariaDB and Percona Server 8.0"},
	{EngineAbsent("rocksdb"), onPercona, none, V(8, 0, 0), "orch runs MyRocks on MariaDB and Percona Server 8.0"},
	{PositionEnginesVar, onMariaDB, none, none, positionEnginesVar},
	{VarDefaults, onMariaDB, none, V(10, 5, 0), "mariadb"},
	{VarDefaults, onMariaDB, V(10, 5, 0), V(10, 6, 0), "mariadb-10.5"},
	{VarDefaults, onMariaDB, V(10, 6, 0), none, "mariadb"},
	{VarDefaults, mysqlFamily, none, V(8, 0, 0), "mysql-5.7"},
	{VarDefaults, mysqlFamily, V(8, 0, 0), none, "mysql-8"},
	{PluginInstallStmt, mysqlFamily, none, none, perPlugin},
	{PluginInstallStmt, onMariaDB, none, none, perLibrary},

	// Option files: mysqld reads [mysqld] and [server]; MariaDB also
	// [mariadb], which MySQL ignores without a word.
	{OptionGroups, mysqlFamily, none, none, "mysqld server"},
	{OptionGroups, onMariaDB, none, none, "mysqld server mariadb"},
	// MariaDB lists every variable's READ_ONLY in SYSTEM_VARIABLES (the
	// name in upper case); MySQL has no such column.
	{ReadOnlyVarQuery, onMariaDB, none, none, "SELECT READ_ONLY FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = "},
	// ... and where each global value comes from (GLOBAL_VALUE_ORIGIN:
	// COMPILE-TIME, CONFIG, COMMAND-LINE, AUTO or SQL), since 10.1.
	{ValueOriginQuery, onMariaDB, V(10, 1, 0), none, "SELECT GLOBAL_VALUE_ORIGIN FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = "},

	// Variables of another flavour: MariaDB never had binlog_order_commits
	// (no SHOW VARIABLES of 10.5 or 10.11 lists it; 10.5 refuses SET GLOBAL
	// with "Unknown system variable", 10.11 tolerates it in an option file
	// only, with "Not used or needed in MariaDB" in its error log).
	{AbsentVar("binlog_order_commits"), onMariaDB, none, none,
		"it is MySQL's and Percona Server's (MariaDB orders binlog commits always; its binlog group commit is tuned by binlog_commit_wait_count and binlog_commit_wait_usec): ask it on a MySQL server (the lab: orch lab up --flavor mysql)"},

	// Startup options that are no system variables (the server manuals'
	// option tables list them as command-line and option-file only):
	// --early-plugin-load is MySQL's (5.7.11+), --log-basename MariaDB's.
	{OptionOnly("plugin_load"), mysqlFamily | onMariaDB, none, none, "yes"},
	{OptionOnly("plugin_load_add"), mysqlFamily | onMariaDB, none, none, "yes"},
	{OptionOnly("user"), mysqlFamily | onMariaDB, none, none, "yes"},
	{OptionOnly("early_plugin_load"), mysqlFamily, V(5, 7, 11), none, "yes"},
	{OptionOnly("log_basename"), onMariaDB, none, none, "yes"},

	// MySQL moves gtid_mode only one step at a time at run time
	// (OFF, OFF_PERMISSIVE, ON_PERMISSIVE, ON); the option file sets it
	// in one go at startup.
	{RestartOnly("gtid_mode"), mysqlFamily, none, none, "gtid_mode changes only one step at a time at run time"},

	// MDEV-28766 (10.8.4): the redo log bypasses the file-system cache
	// (innodb_log_file_buffering=OFF) unless the server starts with
	// innodb_flush_log_at_trx_commit=2, which turns it ON. A SET GLOBAL of
	// the flush setting keeps the log as the last start chose: on the lab,
	// =2 set at run time on a server started with =1 wrote each commit to
	// the disk directly and ran at 1,200 commits/s, against 2,300-3,000 when
	// started with =2.
	{StartupDerived("innodb_flush_log_at_trx_commit"), onMariaDB, V(10, 8, 4), none,
		"innodb_log_file_buffering: ON when the server starts with innodb_flush_log_at_trx_commit=2, OFF otherwise"},
}

// Lookup returns feature f's value on s, and false when s lacks it.
func (s Server) Lookup(f Feature) (string, bool) {
	for _, r := range rules {
		if r.feature == f && r.matches(s) {
			return r.value, true
		}
	}
	return "", false
}

// value is Lookup without the flag: "" when absent.
func (s Server) value(f Feature) string {
	v, _ := s.Lookup(f)
	return v
}

// supportedRange describes the supported versions of f, for errors.
func supportedRange(f Flavor) string {
	var out []string
	for _, r := range rules {
		if r.feature != Supported || !r.on.has(f) {
			continue
		}
		d := fmt.Sprintf("%s %s or later", f.Name(), r.min)
		if !r.max.IsZero() {
			d = fmt.Sprintf("%s %s up to (not including) %s", f.Name(), r.min, r.max)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return "a supported flavour"
	}
	return strings.Join(out, ", or ")
}
