package server

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/step"
)

// mysqlVars are the variables a MySQL-family server shows that the base
// profile sets, before orch configured it.
func mysqlVars() map[string]string {
	return map[string]string{
		"server_id": "1", "report_host": "", "bind_address": "*", "log_bin": "OFF", "relay_log": "",
		"binlog_format": "ROW", "default_storage_engine": "InnoDB", "gtid_mode": "OFF",
		"enforce_gtid_consistency": "OFF", "sync_binlog": "1", "innodb_flush_log_at_trx_commit": "1",
		"innodb_buffer_pool_size": "134217728", "innodb_log_file_size": "50331648", "max_connections": "151",
	}
}

func staticMySQL(h *fakeHost) {
	for _, v := range []string{"log_bin", "bind_address", "report_host", "relay_log", "innodb_log_file_size"} {
		h.readOnly[v] = true
	}
}

func checked(t *testing.T, n *Node, d Desired) (*Config, *Plan, error) {
	t.Helper()
	tg, err := n.Target(context.Background(), testInventory(nil))
	if err != nil {
		t.Fatal(err)
	}
	tg.Host = tg.Inventory.Hosts[0] // the inventory is new: take its master
	n.Host = tg.Host
	cfg, err := Render(tg, d)
	if err != nil {
		t.Fatal(err)
	}
	p, err := n.Check(context.Background(), cfg)
	return cfg, p, err
}

func since(log []string, from int) []string { return slices.Clone(log[from:]) }

func TestTokuDBOnPercona57(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mysqlVars())
	staticMySQL(h)
	// PerconaFT's start check (portability/huge_page_detection.cc, the
	// same in Percona's and MariaDB's trees) refuses only "enabled" at
	// [always]; madvise passed on the TokuDB lab (shared/reference/tokudb.md).
	h.thp = "madvise"
	n := fakeNode(h, nil, mustServer(t, flavor.Percona, flavor.V(5, 7, 44)), "ha_tokudb.so")
	if _, p, err := checked(t, n, Desired{Engine: "tokudb"}); err != nil || p.FixTHP {
		t.Fatalf("THP madvise: %v (fix %v), want no refusal", err, p != nil && p.FixTHP)
	}
	h.thp = "always"
	n = fakeNode(h, nil, mustServer(t, flavor.Percona, flavor.V(5, 7, 44)), "ha_tokudb.so")
	_, _, err := checked(t, n, Desired{Engine: "tokudb"})
	want := "master 10.0.0.1: transparent huge pages are on (enabled [always], defrag [always]) and TokuDB refuses to start with them: " + thpFix
	if err == nil || err.Error() != want {
		t.Fatalf("THP on:\n got %v\nwant %s", err, want)
	}

	cfg, p, err := checked(t, n, Desired{Engine: "tokudb", FixTHP: true})
	if err != nil {
		t.Fatal(err)
	}
	if !p.FixTHP || !p.NeedsRestart || len(p.EnableEngine) != 8 {
		t.Fatalf("plan %+v", p)
	}
	for _, v := range []string{"tokudb_directio", "tokudb_fsync_log_period", "tokudb_cache_size", "rpl_semi_sync_master_enabled"} {
		if !slices.Contains(p.Pending, v) {
			t.Errorf("%s should wait for its plugin: pending %v", v, p.Pending)
		}
	}
	sqlFrom, cmdFrom := len(h.sql), len(h.cmds)
	res, err := n.Apply(ctx, cfg, p, step.HostEvents{})
	if err != nil {
		t.Fatal(err)
	}
	var installs []string
	for _, s := range since(h.sql, sqlFrom) {
		if strings.HasPrefix(s, "INSTALL") || strings.Contains(s, "NOT EXISTS") {
			installs = append(installs, s)
		}
	}
	var wantSQL []string
	for _, pl := range []string{"tokudb", "tokudb_file_map", "tokudb_fractal_tree_info", "tokudb_fractal_tree_block_map",
		"tokudb_trx", "tokudb_locks", "tokudb_lock_waits", "tokudb_background_job_status"} {
		wantSQL = append(wantSQL,
			"SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = '"+pl+"')",
			"INSTALL PLUGIN "+pl+" SONAME 'ha_tokudb.so'")
	}
	if !slices.Equal(installs, wantSQL) {
		t.Errorf("statements:\n%s\nwant:\n%s", strings.Join(installs, "\n"), strings.Join(wantSQL, "\n"))
	}
	wantCmds := []string{
		thpScript,
		"upload /etc/mysql/conf.d/99-orch.cnf",
		"my_print_defaults --mysqld",
		"stat -c %s /var/log/mysql/error.log 2>/dev/null || echo 0",
		fakeStop,
		fakeStart,
	}
	if got := since(h.cmds, cmdFrom); !slices.Equal(got, wantCmds) {
		t.Errorf("commands:\n%q\nwant:\n%q", got, wantCmds)
	}
	if !res.Restarted || h.vars["tokudb_cache_size"] != "4G" || h.vars["default_storage_engine"] != "TokuDB" || h.thp != "never" {
		t.Errorf("result %+v, vars %v", res, h.vars)
	}
	if !slices.Equal(res.Pending, []string{"rpl_semi_sync_master_enabled", "rpl_semi_sync_master_timeout",
		"rpl_semi_sync_master_wait_point", "rpl_semi_sync_master_wait_for_slave_count"}) {
		t.Errorf("after the restart only semi-sync waits for its plugin: %v", res.Pending)
	}
}

func TestEngineUnavailable(t *testing.T) {
	h := newFakeHost(mysqlVars())
	h.engines = [][]string{{"ROCKSDB", "YES"}, {"MRG_MyISAM", "YES"}, {"Aria", "YES"}, {"InnoDB", "DEFAULT"}, {"CSV", "YES"}, {"FEDERATED", "NO"}}
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	tg, err := n.Target(context.Background(), testInventory(nil))
	if err != nil {
		t.Fatal(err)
	}
	tg.Host = tg.Inventory.Hosts[0]
	_, err = Render(tg, Desired{Engine: "tokudb"})
	want := "master 10.0.0.1: tokudb is not available on MariaDB 10.11.19 (removed in 10.6); engines: innodb, rocksdb, aria, csv, mrg_myisam"
	if err == nil || err.Error() != want {
		t.Errorf("\n got %v\nwant %s", err, want)
	}

	inv := testInventory(nil)
	off, err := OfflineTarget(inv.Hosts[0], inv, "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(off, Desired{Engine: "tokudb"})
	want = "master 10.0.0.1: tokudb is not available on MariaDB 10.11.0 (removed in 10.6); engines: innodb, rocksdb"
	if err == nil || err.Error() != want {
		t.Errorf("offline:\n got %v\nwant %s", err, want)
	}

	p57 := fakeNode(newFakeHost(mysqlVars()), nil, mustServer(t, flavor.Percona, flavor.V(5, 7, 44))) // no ha_tokudb.so
	_, _, err = checked(t, p57, Desired{Engine: "tokudb"})
	if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: tokudb is not installed on Percona Server 5.7.44: ha_tokudb.so is not in /usr/lib/mysql/plugin/ (to enable it: ps-admin --enable-tokudb") ||
		!strings.HasSuffix(err.Error(), "; engines: innodb, csv, myisam") {
		t.Errorf("no plugin file: %v", err)
	}
}

func TestMySQL8DynamicProbe(t *testing.T) {
	h := newFakeHost(mysqlVars())
	staticMySQL(h)
	n := fakeNode(h, nil, mustServer(t, flavor.MySQL, flavor.V(8, 0, 36)))
	_, p, err := checked(t, n, Desired{Knobs: []KV{{"innodb_log_file_size", "1G"}, {"max_connections", "151"}}})
	if err != nil {
		t.Fatal(err)
	}
	names := func(cs []Change) (out []string) {
		for _, c := range cs {
			out = append(out, c.Name+": "+c.Reason)
		}
		return out
	}
	wantStatic := []string{"report_host: not dynamic", "bind_address: not dynamic", "log_bin: not dynamic", "relay_log: not dynamic",
		"gtid_mode: gtid_mode changes only one step at a time at run time", "innodb_log_file_size: not dynamic"}
	if got := names(p.Static); !slices.Equal(got, wantStatic) {
		t.Errorf("static %q\nwant %q", got, wantStatic)
	}
	wantDynamic := []string{"enforce_gtid_consistency: ", "innodb_flush_log_at_trx_commit: ", "innodb_buffer_pool_size: ", "sync_binlog: "}
	if got := names(p.Dynamic); !slices.Equal(got, wantDynamic) {
		t.Errorf("dynamic %q\nwant %q", got, wantDynamic)
	}
	if slices.Contains(h.sql, "SET GLOBAL gtid_mode = @@GLOBAL.gtid_mode") || !slices.Contains(h.sql, "SET GLOBAL sync_binlog = @@GLOBAL.sync_binlog") {
		t.Errorf("probes: %q", h.sql)
	}
	if slices.ContainsFunc(h.sql, func(s string) bool { return strings.Contains(s, "max_connections") }) {
		t.Error("an unchanged variable was probed")
	}
	if len(p.Pending) != 4 || p.Pending[0] != "rpl_semi_sync_source_enabled" {
		t.Errorf("semi-sync waits for the replication step's plugin: %v", p.Pending)
	}
}

func TestUnknownVariables(t *testing.T) {
	vars := mysqlVars()
	for _, v := range []string{"rpl_semi_sync_source_enabled", "rpl_semi_sync_source_timeout", "rpl_semi_sync_source_wait_point", "rpl_semi_sync_source_wait_for_replica_count"} {
		vars[v] = "0"
	}
	h := newFakeHost(vars)
	h.plugins["rpl_semi_sync_source"] = true
	n := fakeNode(h, nil, mustServer(t, flavor.MySQL, flavor.V(8, 0, 36)))
	_, p, err := checked(t, n, Desired{Knobs: []KV{{"binlog_sync", "0"}, {"rpl_semi_sync_source_timout", "5"}, {"rocksdb_block_cache_size", "1G"}, {"zzz_qqq", "1"}}})
	want := strings.Join([]string{
		"master 10.0.0.1: binlog_sync: no such server variable on MySQL 8.0.36; did you mean sync_binlog?",
		"master 10.0.0.1: rpl_semi_sync_source_timout: no such server variable on MySQL 8.0.36; did you mean rpl_semi_sync_source_timeout?",
		"master 10.0.0.1: rocksdb_block_cache_size: no such server variable on MySQL 8.0.36 (it belongs to plugin ROCKSDB, which is not installed)",
		"master 10.0.0.1: zzz_qqq: no such server variable on MySQL 8.0.36",
	}, "\n")
	if err == nil || err.Error() != want || len(p.Unknown) != 4 {
		t.Errorf("\n got %v\nwant %s", err, want)
	}
	if len(h.files) != 0 || slices.ContainsFunc(h.cmds, func(s string) bool { return strings.HasPrefix(s, "upload") }) {
		t.Error("something was written")
	}
}

// mariadbVars is a MariaDB server already running orch's innodb profile
// for the test inventory's master.
func mariadbVars() map[string]string {
	return map[string]string{
		"server_id": "1", "report_host": "10.0.0.1", "bind_address": "0.0.0.0", "log_bin": "ON", "relay_log": "relay-bin",
		"binlog_format": "ROW", "default_storage_engine": "InnoDB", "gtid_strict_mode": "ON", "sync_binlog": "0",
		"rpl_semi_sync_master_enabled": "ON", "rpl_semi_sync_master_timeout": "1000000000000000000",
		"rpl_semi_sync_master_wait_point": "AFTER_SYNC", "innodb_flush_log_at_trx_commit": "2",
		"innodb_buffer_pool_size": "4294967296",
	}
}

func TestDynamicApplyAndRevert(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mariadbVars())
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	cfg, p, err := checked(t, n, Desired{Knobs: []KV{{"sync_binlog", "1"}, {"innodb_buffer_pool_size", "256M"}, {"binlog_format", "MIXED"}}})
	if err != nil {
		t.Fatal(err)
	}
	h.readOnly["binlog_format"] = false
	from := len(h.sql)
	res, err := n.Apply(ctx, cfg, p, step.HostEvents{})
	if err != nil || res.Restarted {
		t.Fatalf("%+v %v", res, err)
	}
	var sets []string
	for _, s := range since(h.sql, from) {
		if strings.HasPrefix(s, "SET GLOBAL") {
			sets = append(sets, s)
		}
	}
	want := []string{"SET GLOBAL binlog_format = 'MIXED'", "SET GLOBAL innodb_buffer_pool_size = 268435456", "SET GLOBAL sync_binlog = 1"}
	if !slices.Equal(sets, want) {
		t.Errorf("sets %q\nwant %q", sets, want)
	}
	if h.files[fakeDir+"/99-orch.cnf"] != cfg.Text {
		t.Error("the config is not persisted")
	}

	// A failure midway puts back what was set and the file that was there.
	before := h.files[fakeDir+"/99-orch.cnf"]
	cfg, p, err = checked(t, n, Desired{Knobs: []KV{{"sync_binlog", "0"}, {"innodb_buffer_pool_size", "512M"}}})
	if err != nil {
		t.Fatal(err)
	}
	h.readOnly["sync_binlog"] = true // as if SET GLOBAL failed now, after the buffer pool was resized
	from = len(h.sql)
	_, err = n.Apply(ctx, cfg, p, step.HostEvents{})
	if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: SET GLOBAL sync_binlog = 0: Error 1238") ||
		!strings.HasSuffix(err.Error(), "(restored the previous config)") {
		t.Errorf("error %v", err)
	}
	sets = nil
	for _, s := range since(h.sql, from) {
		if strings.HasPrefix(s, "SET GLOBAL") {
			sets = append(sets, s)
		}
	}
	want = []string{"SET GLOBAL binlog_format = 'ROW'", "SET GLOBAL innodb_buffer_pool_size = 536870912", "SET GLOBAL sync_binlog = 0",
		"SET GLOBAL innodb_buffer_pool_size = 268435456", "SET GLOBAL binlog_format = 'MIXED'"}
	if !slices.Equal(sets, want) {
		t.Errorf("sets %q\nwant %q", sets, want)
	}
	if h.vars["innodb_buffer_pool_size"] != "268435456" || h.files[fakeDir+"/99-orch.cnf"] != before {
		t.Errorf("not put back: innodb_buffer_pool_size %s", h.vars["innodb_buffer_pool_size"])
	}
}

func TestFailedStartRollsBack(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mariadbVars())
	h.startError = func(cnf string) string {
		if strings.Contains(cnf, "innodb_log_file_size = 7") {
			return "mariadbd: innodb_log_file_size=7 is too small"
		}
		return ""
	}
	h.errLog = "2025-12-31 09:00:00 0 [ERROR] an old error that must not be reported\n"
	h.vars["innodb_log_file_size"] = "100663296"
	h.readOnly["innodb_log_file_size"] = true
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	prev := "# Managed by orch: an earlier version\n[mysqld]\nsync_binlog = 0\n"
	h.files[fakeDir+"/99-orch.cnf"] = prev
	cfg, p, err := checked(t, n, Desired{Knobs: []KV{{"innodb_log_file_size", "7"}}})
	if err != nil {
		t.Fatal(err)
	}
	from := len(h.cmds)
	_, err = n.Apply(ctx, cfg, p, step.HostEvents{})
	want := "master 10.0.0.1: server did not start with the new config: [ERROR] mariadbd: innodb_log_file_size=7 is too small (restored the previous config)"
	if err == nil || err.Error() != want {
		t.Fatalf("\n got %v\nwant %s", err, want)
	}
	if h.files[fakeDir+"/99-orch.cnf"] != prev || h.files[fakeDir+"/99-orch.cnf.bak"] != prev || !h.running {
		t.Errorf("previous file back and server up: running %v", h.running)
	}
	got := since(h.cmds, from)
	wantCmds := []string{"cp -p /etc/mysql/conf.d/99-orch.cnf /etc/mysql/conf.d/99-orch.cnf.bak", "upload /etc/mysql/conf.d/99-orch.cnf",
		"my_print_defaults --mysqld", "stat -c %s /var/log/mysql/error.log 2>/dev/null || echo 0", fakeStop, fakeStart}
	if len(got) < len(wantCmds) || !slices.Equal(got[:len(wantCmds)], wantCmds) {
		t.Fatalf("commands %q", got)
	}
	rest := got[len(wantCmds):]
	if len(rest) != 4 || !strings.Contains(rest[0], "tail -c +") || rest[1] != fakeStop || rest[2] != "upload /etc/mysql/conf.d/99-orch.cnf" || rest[3] != fakeStart {
		t.Errorf("after the failed start: %q", rest)
	}
}

func TestOverriddenOptionIsCaughtBeforeRestart(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mariadbVars())
	h.vars["log_bin"] = "OFF"
	h.readOnly["log_bin"] = true
	h.files[fakeDir+"/zz-local.cnf"] = "[mysqld]\nbind_address = 127.0.0.1\n"
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	cfg, p, err := checked(t, n, Desired{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = n.Apply(ctx, cfg, p, step.HostEvents{})
	want := "master 10.0.0.1: the server would not use orch's settings: bind_address = 127.0.0.1 wins over orch's 0.0.0.0 " +
		"(an option file read after /etc/mysql/conf.d/99-orch.cnf sets it); check with `my_print_defaults --mysqld` (restored the previous config)"
	if err == nil || err.Error() != want {
		t.Errorf("\n got %v\nwant %s", err, want)
	}
	if _, ok := h.files[fakeDir+"/99-orch.cnf"]; ok || slices.Contains(h.cmds, fakeStop) {
		t.Error("orch's file left behind, or the server was restarted")
	}
}

func TestRestorePutsOriginalBack(t *testing.T) {
	ctx := context.Background()
	h := newFakeHost(mariadbVars())
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	admin := "[mysqld]\nbind_address = 127.0.0.1\n"
	h.files[fakeDir+"/99-orch.cnf"] = admin
	cfg, p, err := checked(t, n, Desired{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Apply(ctx, cfg, p, step.HostEvents{}); err != nil {
		t.Fatal(err)
	}
	if h.files[fakeDir+"/99-orch.cnf.orig"] != admin || h.vars["bind_address"] != "0.0.0.0" {
		t.Fatalf("apply: files %v", slices.Sorted(maps.Keys(h.files)))
	}
	res, err := n.Restore(ctx, step.HostEvents{})
	if err != nil || !res.Restarted {
		t.Fatalf("%+v %v", res, err)
	}
	if h.files[fakeDir+"/99-orch.cnf"] != admin || h.has(fakeDir+"/99-orch.cnf.orig") == 1 || h.has(fakeDir+"/99-orch.cnf.bak") == 1 {
		t.Errorf("files after restore: %v", slices.Sorted(maps.Keys(h.files)))
	}
	if h.vars["bind_address"] != "127.0.0.1" {
		t.Errorf("bind_address %s", h.vars["bind_address"])
	}
	if res, err := n.Restore(ctx, step.HostEvents{}); err != nil || !res.Unchanged || len(res.Warnings) != 1 {
		t.Errorf("second restore: %+v %v", res, err)
	}
}

// A file at orch's path that orch could not have written (other sections)
// is replaced with a restart: whatever it set must go.
func TestForeignFileForcesRestart(t *testing.T) {
	h := newFakeHost(mariadbVars())
	h.files[fakeDir+"/99-orch.cnf"] = "[client]\nport = 3307\n[mysqld]\nsync_binlog = 0\n"
	n := fakeNode(h, nil, mustServer(t, flavor.MariaDB, flavor.V(10, 11, 19)))
	_, p, err := checked(t, n, Desired{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.NeedsRestart || !slices.Equal(p.Removed, []string{"everything the previous 99-orch.cnf set"}) || len(p.Static) != 0 {
		t.Errorf("plan %+v", p)
	}
}

// An engine install that fails midway is undone as far as it got, and
// nothing is written.
func TestFailedEngineInstallIsUndone(t *testing.T) {
	h := newFakeHost(mysqlVars())
	h.failInstall = "tokudb_trx"
	n := fakeNode(h, nil, mustServer(t, flavor.Percona, flavor.V(5, 7, 44)), "ha_tokudb.so")
	cfg, p, err := checked(t, n, Desired{Engine: "tokudb"})
	if err != nil {
		t.Fatal(err)
	}
	from := len(h.sql)
	_, err = n.Apply(context.Background(), cfg, p, step.HostEvents{})
	if err == nil || !strings.HasPrefix(err.Error(), "master 10.0.0.1: enable tokudb: ") ||
		!strings.HasSuffix(err.Error(), "(TokuDB needs jemalloc preloaded into the server: malloc-lib in [mysqld_safe] (as ps-admin --enable-tokudb sets up), or LD_PRELOAD in the service's environment (orch's drop-in on a systemd unit)) (restored the previous config)") {
		t.Errorf("error: %v", err)
	}
	var uninstalls []string
	for _, s := range since(h.sql, from) {
		if strings.HasPrefix(s, "UNINSTALL") {
			uninstalls = append(uninstalls, s)
		}
	}
	want := []string{"UNINSTALL PLUGIN tokudb_fractal_tree_block_map", "UNINSTALL PLUGIN tokudb_fractal_tree_info",
		"UNINSTALL PLUGIN tokudb_file_map", "UNINSTALL PLUGIN tokudb"}
	if !slices.Equal(uninstalls, want) || len(h.plugins) != 0 || len(h.files) != 0 {
		t.Errorf("uninstalled %q, plugins left %v, files %v", uninstalls, h.plugins, h.files)
	}
}
