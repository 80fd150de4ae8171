package fairness

import (
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// Server defaults of the variables Lint reads, from the servers' manuals
// (MariaDB 10.11 Knowledge Base "Server System Variables", "InnoDB System
// Variables", "MyRocks System Variables"; MySQL 8.0 and Percona Server 5.7
// reference manuals). They stand in for SHOW VARIABLES when a plan is
// linted before any server is touched: a profile that does not set a
// variable runs with its default, which is exactly what an asymmetric
// profile leaves behind.
var defaults = map[string]map[string]string{
	"mariadb": {
		"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "innodb_flush_method": "O_DIRECT",
		"innodb_buffer_pool_size": "134217728", "sync_binlog": "0", "sync_relay_log": "10000",
		"sync_relay_log_info": "10000", "sync_master_info": "10000", "binlog_format": "MIXED",
		"gtid_pos_auto_engines": "", "rpl_semi_sync_master_enabled": "OFF",
		"rpl_semi_sync_master_wait_point": "AFTER_COMMIT", "rpl_semi_sync_slave_enabled": "OFF",
		"rocksdb_flush_log_at_trx_commit": "1", "rocksdb_block_cache_size": "536870912",
		"rocksdb_use_direct_reads": "OFF", "rocksdb_use_direct_io_for_flush_and_compaction": "OFF",
	},
	"mysql-8": {
		"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "innodb_flush_method": "fsync",
		"innodb_buffer_pool_size": "134217728", "sync_binlog": "1", "sync_relay_log": "10000",
		"sync_relay_log_info": "10000", "sync_master_info": "10000", "binlog_format": "ROW",
		"relay_log_info_repository":       "TABLE",
		"rocksdb_flush_log_at_trx_commit": "1", "rocksdb_block_cache_size": "536870912",
		"rocksdb_use_direct_reads": "OFF", "rocksdb_use_direct_io_for_flush_and_compaction": "OFF",
	},
	"mysql-5.7": {
		"innodb_flush_log_at_trx_commit": "1", "innodb_doublewrite": "ON", "innodb_flush_method": "fsync",
		"innodb_buffer_pool_size": "134217728", "sync_binlog": "1", "sync_relay_log": "10000",
		"sync_relay_log_info": "10000", "sync_master_info": "10000", "binlog_format": "ROW",
		"relay_log_info_repository": "FILE",
		"tokudb_commit_sync":        "ON", "tokudb_fsync_log_period": "0", "tokudb_cache_size": "0", "tokudb_directio": "OFF",
	},
}

// enginePrefixes mark the variables only a loaded engine has.
// enginePrefixes maps each plugin engine to its variables' prefix.
var enginePrefixes = func() map[string]string {
	out := map[string]string{}
	for _, e := range flavor.EngineSpecs() {
		if e.VarPrefix != "" {
			out[e.Name] = e.VarPrefix
		}
	}
	return out
}()

// Effective overlays a rendered configuration (name -> value, as the
// profile and knobs set them) on the server's defaults. Engine variables
// are kept only for the engine under test and for engines the rendered
// file configures: an engine that is not loaded has no cache to warn
// about. server is "mariadb", "mysql-8" or "mysql-5.7" (Percona's 5.7
// included); an unknown one has no defaults.
func Effective(server, engine string, rendered map[string]string) map[string]string {
	configured := map[string]bool{engine: true, "innodb": true}
	for name := range rendered {
		for e, p := range enginePrefixes {
			if strings.HasPrefix(normName(name), p) {
				configured[e] = true
			}
		}
	}
	out := map[string]string{}
	for name, v := range defaults[server] {
		keep := true
		for e, p := range enginePrefixes {
			if strings.HasPrefix(name, p) && !configured[e] {
				keep = false
			}
		}
		if keep {
			out[name] = v
		}
	}
	for name, v := range rendered {
		out[normName(name)] = v
	}
	return out
}

// ServerKey names the defaults table for a flavour and major version.
func ServerKey(flavor string, major int) string {
	switch {
	case strings.EqualFold(flavor, "mariadb"):
		return "mariadb"
	case major >= 8:
		return "mysql-8"
	}
	return "mysql-5.7"
}
