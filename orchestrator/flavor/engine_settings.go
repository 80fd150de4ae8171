package flavor

import (
	"maps"
	"strings"
)

// EngineSettings are an engine's variables that decide what a benchmark
// of it measures: how a commit is made durable, how much it caches and
// whether it bypasses the page cache. orchestrator/fairness compares them
// between the configurations of a matrix.
type EngineSettings struct {
	// FlushVar chooses how a commit is made durable. Alone it is a level,
	// as innodb_flush_log_at_trx_commit: 1 and 3 fsync at each commit, 2
	// writes at each commit and fsyncs about once a second, 0 does both
	// about once a second. With FlushPeriodVar it is an ON/OFF switch
	// (tokudb_commit_sync) that only counts while the period is 0: ON
	// fsyncs at each commit, OFF leaves the log to checkpoints; a period
	// above 0 fsyncs every period milliseconds and never at commit.
	FlushVar, FlushPeriodVar string
	// Durability are the engine's other durability settings, compared
	// as they are between configurations that test this engine.
	Durability []EngineVar
	// CacheVar is the engine's cache size in bytes (or K/M/G);
	// CacheZeroIsHalfRAM: 0 means half the host's RAM.
	CacheVar           string
	CacheZeroIsHalfRAM bool
	// DirectIO say whether the engine reads and writes its data with
	// O_DIRECT: direct when all of them are, partly direct when some are.
	DirectIO []IOSwitch
}

// EngineVar is one variable and the words a warning names it with.
type EngineVar struct{ Name, What string }

// IOSwitch is a variable that turns O_DIRECT on: an ON/OFF switch, or,
// with DirectIf, a method whose value contains DirectIf (any case).
type IOSwitch struct{ Name, DirectIf string }

// Vars lists every variable of the settings, for tests and defaults.
func (e EngineSettings) Vars() []string {
	var out []string
	for _, n := range []string{e.FlushVar, e.FlushPeriodVar, e.CacheVar} {
		if n != "" {
			out = append(out, n)
		}
	}
	for _, v := range e.Durability {
		out = append(out, v.Name)
	}
	for _, s := range e.DirectIO {
		out = append(out, s.Name)
	}
	return out
}

// positionEnginesVar is MariaDB's list of engines that get their own
// mysql.gtid_slave_pos table: a replica applying a transaction of a listed
// engine records its position in that engine's table, in the same
// commit, instead of committing InnoDB's as well.
const positionEnginesVar = "gtid_pos_auto_engines"

// relayInfoRepoVar is MySQL's choice of where a replica keeps its
// relay-log position: TABLE (an InnoDB table; 8.0's only choice) or FILE.
const relayInfoRepoVar = "relay_log_info_repository"

// PositionTables are the settings that keep a replica's applied position
// in a table of engine, committed with the transaction it records, so
// that a benchmark of engine does not also pay an InnoDB commit per
// applied transaction; none where the server has no such choice.
func (s Server) PositionTables(engine string) []Setting {
	if v := s.value(PositionEnginesVar); v != "" {
		return []Setting{{Name: v, Value: engine}}
	}
	return nil
}

// PositionStore is where a replica keeps its applied position, as its
// variables tell: in a table of Engine, or in a file (Engine "file").
type PositionStore struct {
	Engine string
	Shown  string   // the words and variables a warning shows
	Vars   []string // the variables that decide it
}

// ReplicaPositionStore says from a replica's variables where it keeps its
// applied position when the engine under test is engine: MariaDB's
// mysql.gtid_slave_pos is InnoDB unless gtid_pos_auto_engines lists the
// engine; MySQL's relay-log info is an InnoDB table with
// relay_log_info_repository=TABLE. ok is false when neither variable is
// there.
func ReplicaPositionStore(engine string, vars map[string]string) (PositionStore, bool) {
	if list, ok := vars[positionEnginesVar]; ok {
		in := "innodb"
		for _, e := range strings.Split(strings.ToLower(list), ",") {
			if strings.TrimSpace(e) == engine {
				in = engine
				break
			}
		}
		return PositionStore{Engine: in, Shown: "mysql.gtid_slave_pos in " + in + " (" + positionEnginesVar + "=" + quotedList(list) + ")",
			Vars: []string{positionEnginesVar}}, true
	}
	if repo, ok := vars[relayInfoRepoVar]; ok {
		if strings.EqualFold(repo, "TABLE") {
			return PositionStore{Engine: "innodb", Shown: "relay-log info in an InnoDB table (" + relayInfoRepoVar + "=TABLE)",
				Vars: []string{relayInfoRepoVar}}, true
		}
		return PositionStore{Engine: "file", Shown: "relay-log info in a file (" + relayInfoRepoVar + "=" + repo + ")",
			Vars: []string{relayInfoRepoVar}}, true
	}
	return PositionStore{}, false
}

func quotedList(s string) string {
	if s == "" {
		return "''"
	}
	return s
}

// Server defaults of the variables the fairness check reads, from the
// servers' manuals (MariaDB 10.11 Knowledge Base "Server System
// Variables", "InnoDB System Variables", "MyRocks System Variables"; MySQL
// 8.0 and Percona Server 5.7 reference manuals). They stand in for SHOW
// VARIABLES when a plan is checked before any server is touched: a profile
// that does not set a variable runs with its default, which is exactly
// what an asymmetric profile leaves behind. The rule VarDefaults names
// the set a server has.
var varDefaults = map[string]map[string]string{
	"mariadb": merged(rocksdbDefaults, mariadbDefaults),
	// MariaDB 10.5 (mariadbd --verbose --help of the lab's 10.5.23 build,
	// and its running server for TokuDB's): fsync was innodb_flush_method's
	// default until 10.6 made it O_DIRECT; TokuDB's as on Percona 5.7.
	"mariadb-10.5": merged(rocksdbDefaults, mariadbDefaults, tokudbDefaults, map[string]string{"innodb_flush_method": "fsync"}),
	"mysql-8":      merged(mysqlDefaults, rocksdbDefaults, map[string]string{"relay_log_info_repository": "TABLE"}),
	"mysql-5.7":    merged(mysqlDefaults, tokudbDefaults, map[string]string{"relay_log_info_repository": "FILE"}),
}

// mysqlDefaults are the same in MySQL (and Percona Server) 5.7 and 8.0;
// rocksdbDefaults the same in MariaDB's MyRocks and Percona's.
var (
	mysqlDefaults = map[string]string{
		"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "innodb_flush_method": "fsync",
		"innodb_buffer_pool_size": "134217728", "sync_binlog": "1", "sync_relay_log": "10000",
		"sync_relay_log_info": "10000", "sync_master_info": "10000", "binlog_format": "ROW",
	}
	mariadbDefaults = map[string]string{
		"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "innodb_flush_method": "O_DIRECT",
		"innodb_buffer_pool_size": "134217728", "sync_binlog": "0", "sync_relay_log": "10000",
		"sync_relay_log_info": "10000", "sync_master_info": "10000", "binlog_format": "MIXED",
		"gtid_pos_auto_engines": "", "rpl_semi_sync_master_enabled": "OFF",
		"rpl_semi_sync_master_wait_point": "AFTER_COMMIT", "rpl_semi_sync_slave_enabled": "OFF",
	}
	tokudbDefaults = map[string]string{
		"tokudb_commit_sync": "ON", "tokudb_fsync_log_period": "0", "tokudb_cache_size": "0", "tokudb_directio": "OFF",
	}
	rocksdbDefaults = map[string]string{
		"rocksdb_flush_log_at_trx_commit": "1", "rocksdb_block_cache_size": "536870912",
		"rocksdb_use_direct_reads": "OFF", "rocksdb_use_direct_io_for_flush_and_compaction": "OFF",
	}
)

// merged is the union of sets, which name different variables.
func merged(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		maps.Copy(out, s)
	}
	return out
}

// VarDefaults are s's defaults of the variables the fairness check
// reads; nil for a server orch has none for.
func (s Server) VarDefaults() map[string]string {
	return maps.Clone(varDefaults[s.value(VarDefaults)])
}
