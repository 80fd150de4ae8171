package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tokudbSubnet is this test's own TokuDB lab, apart from every other lab.
const tokudbSubnet = "10.93.0.0/24"

// tokudbArchive is the prebuilt MariaDB 10.5.23 + TokuDB tree beside the
// project (../shared/prebuilt), or the one ORCH_TOKUDB_ARCHIVE names.
func tokudbArchive(t *testing.T) string {
	t.Helper()
	a := os.Getenv("ORCH_TOKUDB_ARCHIVE")
	if a == "" {
		a, _ = filepath.Abs(filepath.Join("..", "..", "shared", "prebuilt", "mariadb-10.5.23-tokudb-linux-x86_64.tar.zst"))
	}
	if _, err := os.Stat(a); err != nil {
		if os.Getenv("ORCH_REQUIRE_LAB") != "" {
			t.Fatalf("no TokuDB server archive: %v (set ORCH_TOKUDB_ARCHIVE)", err)
		}
		t.Skipf("no TokuDB server archive: %v", err)
	}
	return a
}

// TestTokuDBLab runs the seed's engine for real: a lab whose database
// hosts run MariaDB 10.5.23 with TokuDB (`orch lab up --flavor tokudb`,
// from the prebuilt archive, its checksum checked), built on its own
// subnet. check sees the server and TokuDB's plugin; a server that starts
// without jemalloc preloaded is refused with the cause, nothing changed;
// up makes a TokuDB semi-sync AFTER_SYNC cluster its canary proves; a
// small innodb vs tokudb matrix (every table of every tokudb cell TokuDB)
// and a mysqlslap cell end with verdicts whose report names the server
// and TokuDB's version and the durability asymmetry of the seed's
// profiles; down --purge leaves the servers as the lab made them.
func TestTokuDBLab(t *testing.T) {
	archive := tokudbArchive(t)
	bin := needBin(t)
	dir := t.TempDir()
	l := &lab{bin: bin, inventory: filepath.Join(dir, "inv", "lab.yaml")}
	state := filepath.Join(dir, "state")
	start := time.Now()
	up := l.mustOK(t, "lab", "up", "--flavor", "tokudb", "--server-archive", archive, "--subnet", tokudbSubnet,
		"--state-dir", state, "-i", l.inventory)
	t.Logf("TokuDB lab up in %.1fs", time.Since(start).Seconds())
	t.Cleanup(func() { l.cleanup(t, "lab", "down", "--state-dir", state, "-i", l.inventory) })
	if !strings.Contains(up.stderr, "archive "+fileSum(t, archive)) {
		t.Errorf("lab up does not say the tree is the archive's (checksum checked):\n%s", up.stderr)
	}
	inv := l.inventory
	doc := l.inventoryDoc(t, "lab.yaml")
	if f := doc["defaults"].(map[string]any)["mysql"].(map[string]any)["flavor"]; f != "mariadb:10.5.23" {
		t.Fatalf("the TokuDB lab's inventory names flavour %v, want mariadb:10.5.23", f)
	}
	hosts := dbHostsSSH(t, state, doc)
	sql := func(host, q string) string {
		return strings.TrimSpace(sshRun(t, hosts[host], "mariadb -N -e "+shellQuote(q), ""))
	}
	if st := l.mustOK(t, "lab", "status", "--state-dir", state); strings.Contains(st.stdout, "DOWN") {
		t.Errorf("lab status:\n%s", st.stdout)
	}
	c := l.mustOK(t, "check", "-i", inv, "--json")
	var facts struct {
		Hosts []struct {
			Host    string   `json:"host"`
			Engines []string `json:"engines"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(c.stdout), &facts); err != nil {
		t.Fatalf("check --json: %v", err)
	}
	for _, h := range facts.Hosts {
		if h.Host == "loadbox" {
			continue
		}
		if !strings.Contains(strings.Join(h.Engines, ","), "tokudb (plugin file, not loaded)") ||
			strings.Contains(strings.Join(h.Engines, ","), "rocksdb") {
			t.Errorf("check %s: engines %v, want TokuDB's plugin and no other server's", h.Host, h.Engines)
		}
	}

	// A server that starts without jemalloc preloaded has no TokuDB: up
	// stops with the cause, exit 1, and nothing is benchmarked.
	labCnf := "/etc/mysql/mariadb.conf.d/60-orch-lab.cnf"
	sshRun(t, hosts["master"], "sed -i 's/^malloc-lib/#malloc-lib/' "+labCnf+" && /etc/mysql/lab/stop && /etc/mysql/lab/start", "")
	bad := l.orch(t, "up", "-i", inv, "--engine", "tokudb")
	if bad.code != 1 || !strings.Contains(bad.stderr, "TokuDB: jemalloc not preloaded: cannot allocate memory in static TLS block") {
		t.Errorf("up on a server without jemalloc: exit %d, want 1 naming the cause:\n%s", bad.code, lastLines(bad.stderr, 8))
	}
	runs := filepath.Join(dir, "runs")
	badRun := l.orch(t, "run", "-i", inv, "--engine", "tokudb", "--runs", runs, "--workload", "pure-random-writes",
		"--tables", "1", "--threads", "2", "--time", "2", "--table-size", "100")
	if badRun.code != 1 || !strings.Contains(badRun.stderr, "jemalloc not preloaded") {
		t.Errorf("run on a server without jemalloc: exit %d, want 1 naming the cause:\n%s", badRun.code, lastLines(badRun.stderr, 8))
	}
	if n := sql("master", "select count(*) from information_schema.tables where table_schema = 'sbtest'"); n != "0" {
		t.Errorf("a run without TokuDB made %s sbtest tables on the master", n)
	}
	sshRun(t, hosts["master"], "sed -i 's/^#malloc-lib/malloc-lib/' "+labCnf+" && /etc/mysql/lab/stop && /etc/mysql/lab/start", "")

	upOK := l.mustOK(t, "up", "-i", inv, "--engine", "tokudb")
	if !strings.Contains(upOK.stdout+upOK.stderr, "canary") {
		t.Errorf("up did not prove replication with its canary:\n%s", upOK.stdout)
	}
	st := clusterStatus(t, l, inv)
	if ss := st.Master.SemiSync; !strings.HasPrefix(st.Master.Server, "MariaDB 10.5.23") || ss == nil || !ss.Active || ss.Clients == nil || *ss.Clients != 2 {
		t.Errorf("master %q semi-sync %+v, want MariaDB 10.5.23 active with 2 replicas", st.Master.Server, ss)
	}
	st.checkReplicas(t)
	if got := sql("master", "select concat_ws(',', @@rpl_semi_sync_master_wait_point, @@tokudb_version, @@default_storage_engine)"); got != "AFTER_SYNC,5.6.49-89.0,TokuDB" {
		t.Errorf("master: wait point, TokuDB version, default engine = %s, want AFTER_SYNC,5.6.49-89.0,TokuDB", got)
	}

	// The seed's question at lab scale: its own profiles, which are not
	// equally durable (the fairness check refuses without
	// --allow-asymmetry, and the report says so on its first screen).
	args := []string{"matrix", "-i", inv, "--engines=innodb,tokudb", "--repeat", "2", "--warmup", "1", "--runs", runs,
		"--workload", "pure-random-writes", "--tables", "2", "--threads", "8", "--time", "5", "--table-size", "1000"}
	if r := l.orch(t, args...); r.code != 2 || !strings.Contains(r.stdout, "tokudb_commit_sync=ON tokudb_fsync_log_period=1000 (written and fsynced about once a second)") ||
		!strings.Contains(r.stderr, "--allow-asymmetry") {
		t.Errorf("the seed's profiles: exit %d, want 2 naming the durability asymmetry:\n%s", r.code, lastLines(r.stdout+r.stderr, 6))
	}
	m := l.mustOK(t, append(args, "--allow-asymmetry")...)
	mdir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	ms := loadMatrix(t, mdir)
	if len(ms.Cells) != 4 {
		t.Errorf("matrix: %d cells, want innodb and tokudb twice", len(ms.Cells))
	}
	for _, cell := range ms.Cells {
		if cell.State != "ok" {
			t.Errorf("matrix cell %s (%s): %s", cell.ID, cell.Label, cell.State)
		}
		if strings.Contains(cell.ID, "tokudb") {
			checkCellEngine(t, filepath.Join(mdir, "cells", cell.ID), "TokuDB")
		}
	}
	report := string(mustRead(t, filepath.Join(mdir, "report.md")))
	head := report
	if i := strings.Index(report, "\n## "); i > 0 {
		head = report[:i]
	}
	for _, want := range []string{"tokudb vs innodb", "Servers: MariaDB 10.5.23", "TokuDB 5.6.49-89.0", "tokudb_commit_sync"} {
		if !strings.Contains(head, want) {
			t.Errorf("report's first screen lacks %q:\n%s", want, head)
		}
	}
	t.Logf("matrix:\n%s", m.stdout)
	checkCompareAcrossVersions(t, l, mdir, "MariaDB 10.5.23")

	// The seed's mysqlslap experiment, scaled down: seconds, lower is
	// better, with the seed's fields.
	slap := l.mustOK(t, "matrix", "-i", inv, "--engines=innodb,tokudb", "--repeat", "1", "--runs", filepath.Join(dir, "slap"),
		"--workload", "mysqlslap-write", "--concurrency", "8", "--iterations", "2", "--set", "number_of_queries=2000", "--allow-asymmetry")
	sdir, _ := filepath.EvalSymlinks(filepath.Join(dir, "slap", "latest"))
	sreport := string(mustRead(t, filepath.Join(sdir, "report.md")))
	for _, want := range []string{"tokudb vs innodb", "seconds"} {
		if !strings.Contains(sreport, want) {
			t.Errorf("mysqlslap report lacks %q", want)
		}
	}
	t.Logf("mysqlslap matrix:\n%s", slap.stdout)

	// The lab's inventory names the replication and admin accounts:
	// purge keeps them (they are the user's) and drops what orch made.
	purge := l.mustOK(t, "down", "-i", inv, "--purge")
	if !strings.Contains(purge.stderr, "master: kept account 'repl'@'%': the inventory names it") {
		t.Errorf("down --purge does not say why it kept the named replication account:\n%s", lastLines(purge.stderr, 12))
	}
	for name := range hosts {
		if got := sql(name, "select concat_ws(',', if(@@read_only, 1, 0), if(@@rpl_semi_sync_master_enabled, 1, 0), if(@@rpl_semi_sync_slave_enabled, 1, 0), (select count(*) from information_schema.schemata where schema_name in ('sbtest', 'mysqlslap', 'orch')))"); got != "0,0,0,0" {
			t.Errorf("%s: read_only, semi-sync master, slave, orch schemas = %s after down --purge, want 0,0,0,0", name, got)
		}
	}
}

// checkCellEngine fails unless every benchmark table of a cell's run was
// of engine (results.json's sizes, read from each server's catalogue).
func checkCellEngine(t *testing.T, cellDir, engine string) {
	t.Helper()
	var res struct {
		Sizes map[string]struct {
			Tables []struct {
				Table, Engine string
			} `json:"tables"`
		} `json:"sizes"`
	}
	raw := mustRead(t, filepath.Join(cellDir, "results.json"))
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("%s: %v", cellDir, err)
	}
	n := 0
	for host, s := range res.Sizes {
		for _, tb := range s.Tables {
			n++
			if !strings.EqualFold(tb.Engine, engine) {
				t.Errorf("%s: %s table %s is %s, want %s", filepath.Base(cellDir), host, tb.Table, tb.Engine, engine)
			}
		}
	}
	if n == 0 {
		t.Errorf("%s: results.json lists no tables", filepath.Base(cellDir))
	}
}

// needBin is ORCH_BIN, for tests that make their own lab as root.
func needBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("ORCH_BIN")
	if bin == "" || os.Geteuid() != 0 {
		if os.Getenv("ORCH_REQUIRE_LAB") != "" {
			t.Fatal("ORCH_REQUIRE_LAB is set but ORCH_BIN is not, or not running as root")
		}
		t.Skip("needs root and ORCH_BIN (make test sets it)")
	}
	return bin
}

// fileSum is a file's SHA-256, as lab up prints it.
func fileSum(t *testing.T, path string) string {
	t.Helper()
	sum := sha256.Sum256(mustRead(t, path))
	return hex.EncodeToString(sum[:])
}
