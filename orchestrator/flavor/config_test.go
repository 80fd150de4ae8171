package flavor

import (
	"reflect"
	"slices"
	"testing"
)

// Option names as the MySQL and MariaDB manuals define them: '-' and '_'
// are interchangeable in option names, names are case-insensitive, and
// loose- turns an unknown option into a warning.
func TestOptionName(t *testing.T) {
	for raw, want := range map[string]struct {
		name  string
		loose bool
	}{
		"innodb_buffer_pool_size":            {"innodb_buffer_pool_size", false},
		"innodb-buffer-pool-size":            {"innodb_buffer_pool_size", false},
		" Sync_Binlog ":                      {"sync_binlog", false},
		"loose-rocksdb_block_cache_size":     {"rocksdb_block_cache_size", true},
		"loose_tokudb-cache-size":            {"tokudb_cache_size", true},
		"LOOSE-rpl_semi_sync_master_enabled": {"rpl_semi_sync_master_enabled", true},
		"skip-log-bin":                       {"skip_log_bin", false},
	} {
		name, loose := OptionName(raw)
		if name != want.name || loose != want.loose {
			t.Errorf("OptionName(%q) = %q, %t; want %q, %t", raw, name, loose, want.name, want.loose)
		}
		if got := VariableName(raw); got != want.name {
			t.Errorf("VariableName(%q) = %q", raw, got)
		}
	}
	if LoosePrefix != "loose-" {
		t.Errorf("loose prefix %q", LoosePrefix)
	}
}

func TestOptionFilesAndIncludeOrder(t *testing.T) {
	if got := MainOptionFiles(); !reflect.DeepEqual(got, []string{"/etc/my.cnf", "/etc/mysql/my.cnf"}) {
		t.Errorf("main option files %q", got)
	}
	// Debian's MariaDB: /etc/mysql/my.cnf includes conf.d, then mariadb.conf.d.
	if got := ReadLast([]string{"/etc/mysql/conf.d", "/etc/mysql/mariadb.conf.d"}); got != "/etc/mysql/mariadb.conf.d" {
		t.Errorf("read last = %q", got)
	}
	if got := ReadLast(nil); got != "" {
		t.Errorf("read last of nothing = %q", got)
	}
}

func TestParseHint(t *testing.T) {
	for hint, want := range map[string]struct {
		s       Server
		assumed bool
	}{
		"mariadb":        {Server{MariaDB, V(10, 11, 0)}, true},
		"MySQL":          {Server{MySQL, V(8, 0, 36)}, true},
		"percona:5.7.44": {Server{Percona, V(5, 7, 44)}, false},
		"mysql-8.4.3":    {Server{MySQL, V(8, 4, 3)}, false},
		"mariadb 10.6.1": {Server{MariaDB, V(10, 6, 1)}, false},
	} {
		s, assumed, err := ParseHint(hint)
		if err != nil || s != want.s || assumed != want.assumed {
			t.Errorf("ParseHint(%q) = %v, %t, %v; want %v, %t", hint, s, assumed, err, want.s, want.assumed)
		}
	}
	for _, bad := range []string{"oracle", "mysql:8", "mysql:5.6.51"} {
		if _, _, err := ParseHint(bad); err == nil {
			t.Errorf("ParseHint(%q) accepted", bad)
		}
	}
}

func TestServerBinariesAndPluginDirs(t *testing.T) {
	// Debian 12's mariadb-server: /usr/sbin/mariadbd, /usr/lib/mysql/plugin.
	bins, dirs := ServerBinaries(), PluginDirs()
	if bins[0] != "mariadbd" || !slices.Contains(bins, "/usr/sbin/mysqld") || dirs[0] != "/usr/lib/mysql/plugin" {
		t.Errorf("binaries %q, plugin dirs %q", bins, dirs)
	}
}
