package integration

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/account"
	"golang.org/x/crypto/ssh"
)

// mysqlSubnet is this test's own MySQL lab, apart from every other lab.
const mysqlSubnet = "10.92.0.0/24"

// TestMySQLLab runs orch on Oracle MySQL 9.7 (the MySQL lab, `orch lab up
// --flavor mysql`, built by this test on its own subnet: Debian sid's
// mysql-server under mysql.service, root by unix socket, no account), with
// the inventory the lab wrote: up (innodb) makes a GTID semi-sync AFTER_SYNC
// cluster with read-only replicas that its canary proves, status shows it,
// the seed's knob binlog_order_commits is swept ON and OFF by a short
// matrix on the real server, and down --purge leaves the servers as the
// package made them. Every statement orch sends to 9.7 passes here (9.7
// refuses the master/slave spellings with ERROR 1064).
func TestMySQLLab(t *testing.T) {
	l, state := newSystemdLab(t, mysqlSubnet, "--flavor", "mysql")
	dir := t.TempDir()
	t.Setenv(account.EnvStateDir, filepath.Join(dir, "orch-state"))
	doc := l.inventoryDoc(t, "lab.yaml")
	if f := doc["defaults"].(map[string]any)["mysql"].(map[string]any)["flavor"]; f != "mysql" {
		t.Fatalf("the MySQL lab's inventory names flavour %v", f)
	}
	inv := l.inventory
	hosts := dbHostsSSH(t, state, doc)
	// One row per query with -N -e (the 9.x client refuses \G outside
	// interactive use; -E is its vertical output).
	sql := func(host, q string) string {
		return strings.TrimSpace(sshRun(t, hosts[host], "mysql -N -e "+shellQuote(q), ""))
	}
	if v := sql("master", "select version()"); !strings.HasPrefix(v, "9.7.") {
		t.Fatalf("master runs %q, want MySQL 9.7", v)
	}

	if st := l.mustOK(t, "lab", "status", "--state-dir", state); strings.Contains(st.stdout, "DOWN") {
		t.Errorf("lab status:\n%s", st.stdout)
	}
	if c := l.mustOK(t, "check", "-i", inv); !strings.Contains(c.stdout, "root socket ok; up makes orch@localhost") {
		t.Errorf("check on stock MySQL:\n%s", c.stdout)
	}
	checkNoPasswordInMySQLLogs(t, l, inv, filepath.Join(dir, "orch-state"), hosts, sql)
	up := l.mustOK(t, "up", "-i", inv, "--engine", "innodb")
	if !strings.Contains(up.stdout+up.stderr, "canary") {
		t.Errorf("up did not prove replication with its canary:\n%s\n%s", up.stdout, up.stderr)
	}
	st := clusterStatus(t, l, inv)
	if ss := st.Master.SemiSync; !strings.HasPrefix(st.Master.Server, "MySQL 9.7") || ss == nil || !ss.Active || ss.Clients == nil || *ss.Clients != 2 {
		t.Errorf("master %q semi-sync %+v, want MySQL 9.7 active with 2 replicas", st.Master.Server, ss)
	}
	st.checkReplicas(t)
	for _, s := range st.Slaves {
		// What the server says, and what survives its restart: the option file.
		if got := sql(s.Name, "select concat_ws(',', @@super_read_only, @@gtid_mode, @@rpl_semi_sync_replica_enabled)"); got != "1,ON,1" {
			t.Errorf("%s: super_read_only, gtid_mode, semi-sync replica = %s, want 1,ON,1", s.Name, got)
		}
	}
	if got := sql("master", "select concat_ws(',', @@rpl_semi_sync_source_wait_point, @@rpl_semi_sync_source_enabled, @@gtid_mode)"); got != "AFTER_SYNC,1,ON" {
		t.Errorf("master: wait point, semi-sync source, gtid_mode = %s, want AFTER_SYNC,1,ON", got)
	}

	// The seed's second question on a real server: binlog_order_commits ON
	// and OFF, interleaved, under the stopping rule (issue 20: MySQL as
	// well as MariaDB), held to exactly 3 rounds.
	runs := filepath.Join(dir, "matrix")
	m := l.mustOK(t, "matrix", "-i", inv, "--engines=innodb", "--knobs=binlog_order_commits", "--precision", "25%", "--min-repeat", "3", "--max-repeat", "3", "--warmup", "1",
		"--runs", runs, "--workload", "pure-random-writes", "--tables", "1", "--threads", "4", "--time", "5", "--table-size", "500")
	// Nothing orch does during a run is refused by a read-only replica.
	if strings.Contains(m.stdout+m.stderr, "Error 1290") {
		t.Errorf("a statement refused by super_read_only during the matrix:\n%s", m.stderr)
	}
	mdir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	ms := loadMatrix(t, mdir)
	if len(ms.Cells) != 6 {
		t.Errorf("matrix: %d cells, want ON and OFF 3 times", len(ms.Cells))
	}
	checkRuleEnds(t, mdir, m, 3, "25%", "innodb binlog_order_commits=OFF/innodb binlog_order_commits=ON")
	for _, c := range ms.Cells {
		if c.State != "ok" {
			t.Errorf("matrix cell %s (%s): %s", c.ID, c.Label, c.State)
		}
	}
	report, err := os.ReadFile(filepath.Join(mdir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The head names the servers (issue 19's Done-when: "Servers: MySQL 9.7.4").
	for _, want := range []string{"\nServers: MySQL 9.7.", " (master, 2 replicas)", "binlog_order_commits=OFF"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("matrix report lacks %q", want)
		}
	}
	t.Logf("matrix:\n%s", m.stdout)

	// Where the time went, from MySQL's own counters: a master row per
	// setting with its fsyncs per transaction (Innodb_data_fsyncs; the
	// innodb profile flushes the redo log at each commit), and a sentence
	// for OFF against ON.
	why := whySection(t, string(report))
	t.Logf("Where the time went on MySQL:\n%s", why)
	masters := 0
	for _, row := range mdTableAfter(t, why, "#### Per transaction") {
		if len(row) >= 9 && row[2] == "master" {
			masters++
			if v := leadNumber(t, row[8]); !(v > 0) {
				t.Errorf("%s: master fsync_per_tx %v, want > 0 from Innodb_data_fsyncs", row[0], v)
			}
			// MySQL has no Binlog_bytes_written: the Performance Schema's
			// bytes written to the binary log files, at least one row
			// event's worth per transaction.
			if v := leadNumber(t, row[9]); !(v > 100) {
				t.Errorf("%s: master binlog_bytes_per_tx %v, want > 100 from performance_schema", row[0], v)
			}
			// MySQL exports no binary log group-commit counter: shown
			// as unknown, never as 0.
			if row[10] != "—" {
				t.Errorf("%s: master binlog_groups_per_tx %q on MySQL, want —", row[0], row[10])
			}
		}
	}
	if masters != 2 {
		t.Errorf("per-transaction table has %d master rows, want one per setting", masters)
	}
	if !strings.Contains(why, "binlog_order_commits=OFF:") {
		t.Errorf("no sentence for binlog_order_commits=OFF in Where the time went")
	}
	// The containers have a boot id each but one kernel: the report
	// speaks of the machine they share, never of the master's CPU.
	if !strings.Contains(string(report), "All 4 hosts share one kernel") || strings.Contains(why, "Master CPU") ||
		!strings.Contains(why, "(shared by 4 hosts)") {
		t.Errorf("the MySQL lab's containers not seen as one machine (want \"All 4 hosts share one kernel\" and the machine shared by 4 hosts, never \"Master CPU\")")
	}

	// orch run and orch collect on MySQL: a complete run directory whose
	// monitor read MySQL's counters under their 9.x names (semi-sync
	// acknowledgements are Rpl_semi_sync_source_yes_tx there).
	rr := l.mustOK(t, "run", "-i", inv, "--no-up", "--runs", filepath.Join(dir, "runs"), "--workload", "pure-random-writes",
		"--tables", "1", "--threads", "4", "--time", "5", "--table-size", "500")
	rd := runDir(t, rr)
	res := assertCompleteRun(t, rd, "ok", 4)
	if b, _ := res["benchmark"].(map[string]any); b["complete"] != true || b["tps"] == nil {
		t.Errorf("MySQL run's benchmark result incomplete: %v", b)
	}
	for _, col := range []string{"innodb_data_fsyncs_ps", "semisync_yes_tx_ps", "gtid_tx_ps", "binlog_bytes_written_bps"} {
		if !csvColumnPositive(t, filepath.Join(rd, "timeseries", "master-mysql.csv"), col) {
			t.Errorf("master-mysql.csv: %s is never above 0 during a write load on MySQL", col)
		}
	}
	l.mustOK(t, "collect", "-i", inv, rd)

	l.mustOK(t, "down", "-i", inv, "--purge")
	for name := range hosts {
		if got := sql(name, "select concat_ws(',', @@read_only, @@super_read_only, (select count(*) from mysql.user where user like 'orch%' or user = 'repl'), (select count(*) from information_schema.schemata where schema_name in ('sbtest', 'orch', 'mysqlslap')), @@gtid_executed = '')"); got != "0,0,0,0,1" {
			t.Errorf("%s: read_only, super_read_only, orch accounts, orch schemas, GTIDs empty = %s after down --purge, want 0,0,0,0,1", name, got)
		}
		if left := sshRun(t, hosts[name], "ls /etc/mysql/mysql.conf.d", ""); strings.Contains(left, "orch") {
			t.Errorf("%s: orch's option file left: %s", name, left)
		}
	}

	// The lab's fault kills MySQL's server process; mysql.service
	// (Restart=on-failure) brings it back, as on a real host.
	before := sshRun(t, hosts["master"], "systemctl show -p MainPID --value mysql.service", "")
	l.mustOK(t, "lab", "fault", "master", "kill-mysqld", "--state-dir", state)
	for i := 0; ; i++ {
		out := sshRun(t, hosts["master"], "systemctl is-active mysql.service || true; systemctl show -p MainPID --value mysql.service", "")
		if f := strings.Fields(out); len(f) == 2 && f[0] == "active" && f[1] != strings.TrimSpace(before) {
			break
		}
		if i == 120 {
			t.Fatalf("mysql.service not back after the kill: %q (main PID before %s)", out, before)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkNoPasswordInMySQLLogs: with the general log on from before the
// first up (set at runtime through root's socket, and as up's knobs so
// that it stays on across up's restarts), none of the passwords up
// generates reaches the servers' general logs, which do see orch's
// sessions.
func checkNoPasswordInMySQLLogs(t *testing.T, l *lab, inv, orchState string, hosts map[string]*ssh.Client, sql func(host, q string) string) {
	t.Helper()
	const gl = "/var/lib/mysql/orch-test-general.log"
	for name := range hosts {
		sql(name, "SET GLOBAL general_log_file = '"+gl+"'; SET GLOBAL general_log = ON")
	}
	t.Cleanup(func() {
		for _, c := range hosts {
			sshRun(t, c, "rm -f "+gl, "")
		}
	})
	l.mustOK(t, "up", "-i", inv, "--engine", "innodb", "--knob", "general_log=ON", "--knob", "general_log_file="+gl)
	files, _ := filepath.Glob(filepath.Join(orchState, "*", "*-password"))
	if len(files) != 3 {
		t.Fatalf("password files %v, want admin, replication and benchmark", files)
	}
	for name, c := range hosts {
		log := sshRun(t, c, "cat "+gl, "")
		if !strings.Contains(log, "Connect") {
			t.Errorf("%s: the general log saw no session (%d bytes): not a test of it", name, len(log))
		}
		for _, f := range files {
			if pw := strings.TrimSpace(string(mustRead(t, f))); pw != "" && strings.Contains(log, pw) {
				t.Errorf("%s: the general log holds the password of %s", name, filepath.Base(f))
			}
		}
	}
}

// csvColumnPositive reports whether any row of a monitor CSV has a value
// above 0 in column col.
func csvColumnPositive(t *testing.T, path, col string) bool {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(mustRead(t, path))).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: %d rows, %v", path, len(rows), err)
	}
	i := slices.Index(rows[0], col)
	if i < 0 {
		t.Fatalf("%s has no column %s: %v", path, col, rows[0])
	}
	for _, r := range rows[1:] {
		if v, err := strconv.ParseFloat(r[i], 64); err == nil && v > 0 {
			return true
		}
	}
	return false
}
