package monitor

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// The header is a contract with whoever reads the series: a change must
// be deliberate (and documented in doc.go).
func TestHeadersAreStable(t *testing.T) {
	wantMySQL := []string{"t", "elapsed_s", "interval_s",
		"queries_ps", "com_select_ps", "com_insert_ps", "com_update_ps", "com_delete_ps", "com_replace_ps",
		"com_commit_ps", "com_rollback_ps", "handler_commit_ps",
		"innodb_rows_inserted_ps", "innodb_data_written_bps", "innodb_log_written_bps", "innodb_data_fsyncs_ps", "innodb_pages_flushed_ps",
		"rocksdb_rows_inserted_ps", "rocksdb_bytes_written_bps", "rocksdb_wal_bytes_bps", "rocksdb_wal_synced_ps",
		"binlog_commits_ps", "binlog_bytes_written_bps", "binlog_group_commits_ps", "tokudb_fsyncs_ps",
		"tokudb_fsync_us_ps", "tokudb_log_written_bps", "tokudb_checkpoints_ps", "tokudb_cache_misses_ps",
		"tokudb_leaf_flushed_bps", "tokudb_leaf_evicted_bps",
		"semisync_yes_tx_ps", "semisync_no_tx_ps", "semisync_avg_wait_us", "gtid_tx_ps",
		"threads_running", "threads_connected", "semisync_status", "semisync_clients",
		"io_running", "sql_running", "lag_s", "lag_tx", "gtid_pos"}
	if !slices.Equal(MySQLColumns, wantMySQL) {
		t.Errorf("MySQLColumns changed:\n got %v\nwant %v", MySQLColumns, wantMySQL)
	}
	wantOS := []string{"t", "elapsed_s", "interval_s", "cpu_user_pct", "cpu_sys_pct", "cpu_iowait_pct", "cpu_idle_pct", "cpu_steal_pct",
		"load1", "load5", "load15", "procs_running", "disk", "disk_read_mbps", "disk_write_mbps", "disk_reads_ps", "disk_writes_ps", "disk_util_pct",
		"ncpu", "server_pid", "server_cpu_us_ps", "server_cs_ps", "server_read_bps", "server_write_bps",
		"server_syscr_ps", "server_syscw_ps", "server_threads", "server_threads_runnable",
		"client_cpu_us_ps", "box_cpu_us_ps", "box_tasks_runnable", "sampler_cpu_us_ps",
		"disk_flushes_ps", "mem_available_mb"}
	if !slices.Equal(OSColumns, wantOS) {
		t.Errorf("OSColumns changed:\n got %v\nwant %v", OSColumns, wantOS)
	}
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range append(slices.Clone(wantMySQL), wantOS...) {
		documented := strings.Contains(string(doc), c)
		for _, group := range []string{"innodb_", "rocksdb_", "binlog_", "com_", "tokudb_"} {
			documented = documented || strings.HasPrefix(c, group) && strings.Contains(string(doc), group+"*")
		}
		if !documented {
			t.Errorf("column %s is not documented in doc.go", c)
		}
	}
}

func TestMySQLRowsArePerSecondDeltas(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleMaster)
	u := h.mysqlHost("master", f)
	u.feed(f, 0)
	f.second()
	f.commit(1000)
	u.feed(f, 1)
	// A skipped tick: two seconds, 2000 commits, still 1000 per second.
	f.second()
	f.second()
	f.commit(2000)
	u.feed(f, 3)

	rows := u.rows()
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3", len(rows))
	}
	first := rows[0]
	if first["t"] != "2026-11-29T12:00:00.000Z" || first["elapsed_s"] != "0.000" || first["interval_s"] != "" {
		t.Errorf("first row starts %q %q %q", first["t"], first["elapsed_s"], first["interval_s"])
	}
	// Rates need two samples; gauges do not.
	if first["com_insert_ps"] != "" || first["gtid_tx_ps"] != "" || first["semisync_status"] != "ON" ||
		first["semisync_clients"] != "2" || first["threads_running"] != "4" {
		t.Errorf("first row %v", first)
	}
	for i, want := range []map[string]string{
		{"interval_s": "1.000", "com_insert_ps": "1000.0", "queries_ps": "1003.0", "gtid_tx_ps": "1000.0",
			"semisync_yes_tx_ps": "1000.0", "semisync_no_tx_ps": "0.0", "semisync_avg_wait_us": "300",
			"innodb_data_written_bps": "16384000", "gtid_pos": "0-1-1000", "com_select_ps": "0.0"},
		{"t": "2026-11-29T12:00:03.000Z", "elapsed_s": "3.000", "interval_s": "2.000", "com_insert_ps": "1000.0",
			"queries_ps": "1003.0", "gtid_tx_ps": "1000.0", "gtid_pos": "0-1-3000"},
	} {
		for col, v := range want {
			if got := rows[i+1][col]; got != v {
				t.Errorf("row %d %s = %q, want %q", i+1, col, got, v)
			}
		}
	}
	// The master has no replica columns.
	for _, col := range []string{"io_running", "sql_running", "lag_s", "lag_tx"} {
		if rows[2][col] != "" {
			t.Errorf("master %s = %q", col, rows[2][col])
		}
	}
}

func TestCounterResetsLeaveGaps(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleMaster)
	u := h.mysqlHost("master", f)
	f.commit(500)
	u.feed(f, 0)

	// FLUSH STATUS: Com_insert restarts from 0; the server does not.
	f.second()
	f.commit(100)
	f.counters["Com_insert"] = 40
	u.feed(f, 1)
	// RESET MASTER: the GTID position starts over.
	f.second()
	f.commit(100)
	f.gtidSeq = 7
	u.feed(f, 2)
	// A restart: Uptime starts over, every counter is smaller.
	for k := range f.counters {
		f.counters[k] /= 100
	}
	f.counters["Uptime"] = 3
	u.feed(f, 3)
	f.second()
	f.commit(250)
	u.feed(f, 4)

	rows := u.rows()
	if rows[1]["com_insert_ps"] != "" || rows[1]["handler_commit_ps"] != "100.0" || rows[1]["gtid_tx_ps"] != "100.0" {
		t.Errorf("after FLUSH STATUS: insert %q handler_commit %q gtid %q", rows[1]["com_insert_ps"], rows[1]["handler_commit_ps"], rows[1]["gtid_tx_ps"])
	}
	if rows[2]["gtid_tx_ps"] != "" || rows[2]["com_insert_ps"] != "100.0" {
		t.Errorf("after RESET MASTER: gtid %q insert %q", rows[2]["gtid_tx_ps"], rows[2]["com_insert_ps"])
	}
	for _, col := range MySQLColumns[3:27] {
		if rows[3][col] != "" {
			t.Errorf("after a restart %s = %q, want empty", col, rows[3][col])
		}
	}
	if rows[3]["threads_running"] != "4" || rows[4]["com_insert_ps"] != "250.0" {
		t.Errorf("after restart: gauges %q, next rate %q", rows[3]["threads_running"], rows[4]["com_insert_ps"])
	}
	resets := eventsOf(h.events(), "master", KindCounterReset)
	if len(resets) != 3 || !strings.Contains(resets[0].Detail, "Com_insert") ||
		!strings.Contains(resets[1].Detail, "gtid_binlog_pos") || !strings.Contains(resets[2].Detail, "restarted") {
		t.Errorf("reset events %v", resets)
	}
	if u.proc.resets != 3 {
		t.Errorf("resets counted %d", u.proc.resets)
	}
}

// A cut-off slave reports Seconds_Behind_Master 0 with its IO thread
// "running": only the GTID gap shows it is behind.
func TestSlaveLagByGTID(t *testing.T) {
	h := newHarness(t, Config{})
	mf, sf := newFakeServer(t, topology.RoleMaster), newFakeServer(t, topology.RoleSlave)
	mu, su := h.mysqlHost("master", mf), h.mysqlHost("slave1", sf)
	su.feed(sf, 0) // before the master is known: no lag_tx
	mf.commit(5000)
	sf.commit(4000)
	mu.feed(mf, 1)
	su.feed(sf, 1)
	sf.replica["Slave_IO_Running"] = "Connecting"
	sf.replica["Last_IO_Errno"] = "2003"
	sf.replica["Last_IO_Error"] = "error reconnecting to master"
	sf.replica["Seconds_Behind_Master"] = "NULL"
	su.feed(sf, 2)
	sf.replica["Slave_IO_Running"] = "Yes"
	sf.replica["Seconds_Behind_Master"] = "42"
	sf.commit(1000)
	su.feed(sf, 3)

	rows := su.rows()
	if rows[0]["lag_tx"] != "" || rows[0]["lag_s"] != "0" || rows[0]["io_running"] != "Yes" {
		t.Errorf("row 0: lag_tx %q lag_s %q io %q", rows[0]["lag_tx"], rows[0]["lag_s"], rows[0]["io_running"])
	}
	if rows[1]["lag_tx"] != "1000" || rows[1]["lag_s"] != "0" || rows[1]["gtid_tx_ps"] != "4000.0" || rows[1]["gtid_pos"] != "0-1-4000" {
		t.Errorf("row 1: lag_tx %q lag_s %q apply %q pos %q", rows[1]["lag_tx"], rows[1]["lag_s"], rows[1]["gtid_tx_ps"], rows[1]["gtid_pos"])
	}
	if rows[2]["io_running"] != "Connecting" || rows[2]["lag_s"] != "" || rows[3]["lag_tx"] != "0" || rows[3]["lag_s"] != "42" {
		t.Errorf("rows 2-3: %v / %v", rows[2], rows[3])
	}
	// Slaves have no semi-sync master columns.
	if rows[1]["semisync_yes_tx_ps"] != "" || rows[1]["semisync_clients"] != "" || rows[1]["semisync_status"] != "ON" {
		t.Errorf("slave semi-sync columns: %v", rows[1])
	}
	lag := su.proc.lag("slave1")
	if lag.MaxTransactions == nil || *lag.MaxTransactions != 1000 || lag.MaxSeconds == nil || *lag.MaxSeconds != 42 {
		t.Errorf("lag summary %+v", lag)
	}
	evs := h.events()
	stopped, running := eventsOf(evs, "slave1", KindReplicaStopped), eventsOf(evs, "slave1", KindReplicaRunning)
	if len(stopped) != 1 || !strings.Contains(stopped[0].Detail, "io=Connecting") || !strings.Contains(stopped[0].Detail, "2003") ||
		len(running) != 1 || running[0].T != "2026-11-29T12:00:03.000Z" {
		t.Errorf("replica events: stopped %v running %v", stopped, running)
	}
}

func TestGTIDPositionIsQuoted(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleMaster)
	u := h.mysqlHost("master", f)
	f.commit(3)
	raw := f.raw()
	raw.Vars["gtid_binlog_pos"] = "0-1-3,1-1-7"
	if err := u.proc.handle(raw, h.at(0), u.csv); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(h.dir + "/timeseries/master-mysql.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), `,"0-1-3,1-1-7"`+"\n") {
		t.Errorf("row does not end with the quoted position:\n%s", b)
	}
	if rows := u.rows(); rows[0]["gtid_pos"] != "0-1-3,1-1-7" {
		t.Errorf("read back %q", rows[0]["gtid_pos"])
	}
}

func TestBadAnswersFailTheSample(t *testing.T) {
	h := newHarness(t, Config{})
	f := newFakeServer(t, topology.RoleSlave)
	u := h.mysqlHost("slave1", f)
	for name, mutate := range map[string]func(r *mysqlRaw){
		"counter":  func(r *mysqlRaw) { r.Status["Com_insert"] = "lots" },
		"gtid":     func(r *mysqlRaw) { r.Vars["gtid_slave_pos"] = "0-1" },
		"replica":  func(r *mysqlRaw) { delete(r.Replica, "Slave_SQL_Running") },
		"lag text": func(r *mysqlRaw) { r.Replica["Seconds_Behind_Master"] = "soon" },
	} {
		raw := f.raw()
		mutate(&raw)
		if err := u.proc.handle(raw, h.at(0), u.csv); err == nil {
			t.Errorf("%s: bad answer accepted", name)
		}
	}
	if rows := u.rows(); len(rows) != 0 {
		t.Errorf("%d rows written for bad answers", len(rows))
	}
}

// A slave read between two master samples is compared with the master's
// position at its own instant: the master committed 5000 by second 1 and
// 6000 by second 2 (1000 tx/s); a slave at 4500 read at second 1.5, before
// the master's sample of second 2, is 5500 - 4500 = 1000 behind (the stale
// sample said 500), and read at second 2.25 after it, 6250 - 4500 = 1750.
func TestSlaveLagAtItsOwnInstant(t *testing.T) {
	h := newHarness(t, Config{})
	mf, sf := newFakeServer(t, topology.RoleMaster), newFakeServer(t, topology.RoleSlave)
	mu, su := h.mysqlHost("master", mf), h.mysqlHost("slave1", sf)
	mf.commit(5000)
	mu.feed(mf, 1)
	sf.commit(4500)
	su.feed(sf, 1.25) // the master's rate not known yet: its position as it is
	mf.commit(1000)
	mf.second()
	mu.feed(mf, 2)
	su.feed(sf, 1.5) // the previous tick's slave sample, read late: before the master's
	su.feed(sf, 2.25)
	rows := su.rows()
	for i, want := range []string{"500", "1000", "1750"} {
		if rows[i]["lag_tx"] != want {
			t.Errorf("row %d: lag_tx %q, want %s", i, rows[i]["lag_tx"], want)
		}
	}
}
