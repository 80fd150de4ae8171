package integration

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
)

// The ownership cases of the second security review (N1, N2): orch
// changes and drops only what its record on the server lists.

// sqlOn runs SQL as the server's root (unix socket) on the hosts of role,
// binary logging off unless binlog, and returns orch exec's output.
func (l *lab) sqlOn(t *testing.T, role, sql string, binlog bool) string {
	t.Helper()
	if !binlog {
		sql = "SET sql_log_bin = 0; " + sql
	}
	return l.mustOK(t, "exec", "-i", l.inventory, "--role", role, "--", "mariadb -N -e "+shellQuote(sql)).stdout
}

// forget removes rows from orch's record on the hosts of role (if it
// exists): the thing is then, for orch, someone else's.
func (l *lab) forget(t *testing.T, role string, rows ...string) {
	t.Helper()
	for _, r := range rows {
		kind, name, _ := strings.Cut(r, " ")
		l.sqlOn(t, role, "DELETE FROM "+account.RecordSchema+"."+account.RecordTable+" WHERE kind = '"+kind+"' AND name = '"+name+
			"'", false)
	}
}

// ensureRecord makes orch's record table exist (an up of this orch made it
// on a fresh lab; the shared lab may predate it).
func (l *lab) ensureRecord(t *testing.T) {
	t.Helper()
	l.sqlOn(t, "db", "CREATE DATABASE IF NOT EXISTS orch; CREATE TABLE IF NOT EXISTS orch.orch_owned (kind VARCHAR(16) NOT NULL, name VARCHAR(300) NOT NULL, PRIMARY KEY (kind, name)) ENGINE=InnoDB", false)
}

// TestUpRefusesAdminAccountOrchDidNotMake (N1): with no account in the
// inventory orch makes its own, orch@localhost and orch@127.0.0.1; on the
// lab a DBA's orch@localhost (made by the lab, own password) exists. up
// must stop before any change, naming it and the choices; before, it got
// orch's password and ALL PRIVILEGES, and orch@127.0.0.1 appeared. The
// same up run again stops again, and neither leaves a password file (the
// third review: the first left them, the second took the accounts over).
func TestUpRefusesAdminAccountOrchDidNotMake(t *testing.T) {
	l := needLab(t)
	doc := l.inventoryDoc(t, "lab.yaml")
	mysql := doc["defaults"].(map[string]any)["mysql"].(map[string]any)
	delete(mysql, "user")
	delete(mysql, "password")
	inv := filepath.Join(t.TempDir(), "managed.yaml")
	writeYAML(t, inv, doc)
	state := t.TempDir()
	t.Setenv(account.EnvStateDir, state)
	t.Cleanup(func() { // on a regression, leave the shared lab as it was
		l.sqlOn(t, "db", "DROP USER IF EXISTS 'orch'@'127.0.0.1'", false)
	})
	accounts := func() string {
		lines := strings.Split(l.sqlOn(t, "db", "SELECT CONCAT(user, '@', host) FROM mysql.user WHERE user LIKE 'orch%'", false), "\n")
		sort.Strings(lines)
		return strings.Join(lines, "\n")
	}
	before := accounts()

	for i := 1; i <= 2; i++ {
		r := l.orch(t, "up", inv)
		if r.code == 0 {
			t.Fatalf("up %d took over the lab's own orch accounts", i)
		}
		for _, want := range []string{"account 'orch'@'localhost' exists and orch did not make it", "up changed nothing", "mysql.user and mysql.password", "--adopt-accounts, which sets its password"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("up %d: stderr lacks %q", i, want)
			}
		}
		if strings.Contains(r.stderr, "restart") {
			t.Errorf("up %d went on to a restart:\n%s", i, r.stderr)
		}
		if after := accounts(); after != before {
			t.Errorf("up %d: accounts changed:\nbefore %s\nafter %s", i, before, after)
		}
		var files []string
		filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) > 0 {
			t.Errorf("up %d was refused yet wrote %v", i, files)
		}
	}
	l.stillLogsIn(t)
}

// stillLogsIn checks that the lab's own account logs in to every server
// (status reads each one; whether the cluster is up does not matter here).
func (l *lab) stillLogsIn(t *testing.T) {
	t.Helper()
	r := l.orch(t, "status", l.inventory)
	if strings.Contains(r.stdout+r.stderr, "Access denied") || strings.Count(r.stdout, " MariaDB ") != 3 {
		t.Errorf("the lab's account no longer logs in everywhere:\n%s%s", r.stdout, r.stderr)
	}
}

// TestUpRefusesReplicationAccountOrchDidNotMake (N1): an inventory that
// does not name the replication account gets orch's repl@'%'; one that
// exists and that orch's record does not list is someone else's (it got a
// new password before, breaking whatever replicated with it).
func TestUpRefusesReplicationAccountOrchDidNotMake(t *testing.T) {
	l := needLab(t)
	l.ensureRecord(t)
	doc := l.inventoryDoc(t, "lab.yaml")
	// The account as the lab's up left it (made here if the lab never was
	// up), and, for orch, someone else's.
	pwFile := doc["defaults"].(map[string]any)["mysql"].(map[string]any)["password"].(map[string]any)["file"].(string)
	pw, err := os.ReadFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	// The hash, not the password, goes on the command line.
	h1 := sha1.Sum([]byte(strings.TrimSpace(string(pw))))
	h2 := sha1.Sum(h1[:])
	l.sqlOn(t, "master", "CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY PASSWORD '*"+strings.ToUpper(hex.EncodeToString(h2[:]))+"'; GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%'", false)
	l.forget(t, "master", "account repl@%")
	delete(doc["replication"].(map[string]any), "user")
	inv := filepath.Join(t.TempDir(), "unnamed-repl.yaml")
	writeYAML(t, inv, doc)
	t.Setenv(account.EnvStateDir, t.TempDir())

	// Twice: the first up's replication password file is no proof for the
	// second (the review's second up took the account over on it).
	for i := 1; i <= 2; i++ {
		r := l.orch(t, "up", inv)
		if r.code == 0 {
			t.Fatalf("up %d took over a replication account orch did not make", i)
		}
		for _, want := range []string{"account 'repl'@'%' exists and orch did not make it", "replication.user and replication.password", "--adopt-accounts"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("up %d: stderr lacks %q", i, want)
			}
		}
	}
	l.stillLogsIn(t)
}

// TestDownKeepsTheInventorysReplicationAccount (N2): a DBA's dbarepl@'%'
// named in the inventory is used as it is by up, and a plain down keeps
// it (it dropped it before).
func TestDownKeepsTheInventorysReplicationAccount(t *testing.T) {
	l := needLab(t)
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "dbarepl-password")
	if err := os.WriteFile(pwFile, []byte("dba-Repl-0xs3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l.sqlOn(t, "master", "CREATE USER 'dbarepl'@'%' IDENTIFIED BY 'dba-Repl-0xs3cret'; GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'dbarepl'@'%'", false)
	t.Cleanup(func() {
		l.cleanup(t, "up", l.inventory) // the shared lab as it was
		l.sqlOn(t, "master", "DROP USER IF EXISTS 'dbarepl'@'%'", false)
	})
	doc := l.inventoryDoc(t, "lab.yaml")
	doc["replication"] = map[string]any{"user": "dbarepl", "password": map[string]any{"file": pwFile}}
	inv := filepath.Join(dir, "dbarepl.yaml")
	writeYAML(t, inv, doc)

	l.mustOK(t, "up", inv) // replicates with dbarepl, its password unchanged
	l.mustOK(t, "down", inv)
	if got := l.sqlOn(t, "master", "SELECT COUNT(*) FROM mysql.user WHERE user = 'dbarepl' AND host = '%'", false); !strings.HasSuffix(strings.TrimSpace(got), "1") {
		t.Fatalf("plain down dropped the inventory's replication account: %q", got)
	}
}

// TestPurgeKeepsWhatOrchDidNotMake (N2): down --purge drops only what
// orch's record lists. The mysqlslap and orch schemas and a DBA's table in
// each, which the record does not list, stay, each with a line saying why;
// before, both schemas went whole. A DBA's table inside sbtest, which orch
// made, keeps sbtest too (the third review's mysqlslap.precious went with
// DROP DATABASE).
func TestPurgeKeepsWhatOrchDidNotMake(t *testing.T) {
	l := needLab(t)
	l.ensureRecord(t)
	l.mustOK(t, "up", l.inventory) // sbtest made by orch (and recorded) if the lab never was up
	l.sqlOn(t, "master", "CREATE DATABASE IF NOT EXISTS mysqlslap; CREATE TABLE IF NOT EXISTS mysqlslap.dba_keep (id INT PRIMARY KEY); CREATE TABLE IF NOT EXISTS orch.dba_keep (id INT PRIMARY KEY); CREATE TABLE IF NOT EXISTS sbtest.dba_keep (id INT PRIMARY KEY)", false)
	l.forget(t, "master", "schema mysqlslap", "schema orch")
	t.Cleanup(func() {
		l.cleanup(t, "up", l.inventory) // the shared lab as it was
		l.sqlOn(t, "master", "DROP TABLE IF EXISTS mysqlslap.dba_keep, orch.dba_keep, sbtest.dba_keep", false)
	})

	r := l.mustOK(t, "down", "--purge", l.inventory)
	got := l.sqlOn(t, "master", "SELECT CONCAT(table_schema, '.', table_name) FROM information_schema.tables WHERE table_name = 'dba_keep' ORDER BY 1", false)
	for _, want := range []string{"mysqlslap.dba_keep", "orch.dba_keep", "sbtest.dba_keep"} {
		if !strings.Contains(got, want) {
			t.Errorf("purge dropped %s (left: %q)", want, got)
		}
	}
	for _, want := range []string{"master: kept schema `orch`: it existed before orch, with its tables ", "dba_keep", "master: kept schema `mysqlslap`: it existed before orch, with its tables dba_keep (not in orch's record",
		"master: kept account 'orch'@'localhost': the inventory names it (mysql.user)",
		"master: kept schema `sbtest`: orch made it, but it holds tables orch did not make: dba_keep"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("purge output lacks %q", want)
		}
	}
}

// TestPurgeTrustsNoForgedRecord (third review): an application account
// with INSERT on orch's record only adds a row naming a DBA's dba@'%' on
// the master, which replicates it to both slaves. orch's rows carry a keyed
// digest the forged row lacks, so down --purge drops nothing on any of the
// three servers, says why and fails; before, it dropped dba@'%' everywhere.
func TestPurgeTrustsNoForgedRecord(t *testing.T) {
	l := needLab(t)
	l.mustOK(t, "up", l.inventory) // orch's record, signed
	l.sqlOn(t, "master", "CREATE USER IF NOT EXISTS 'dba'@'%' IDENTIFIED BY 'dba-0xs3cret'; CREATE USER IF NOT EXISTS 'app'@'localhost' IDENTIFIED BY 'app-0xs3cret'; GRANT INSERT ON orch.* TO 'app'@'localhost'", true)
	t.Cleanup(func() { // the shared lab as it was
		l.sqlOn(t, "master", "DELETE FROM orch.orch_owned WHERE name = 'dba@%'; DROP USER IF EXISTS 'dba'@'%', 'app'@'localhost'", true)
		l.cleanup(t, "up", l.inventory)
	})
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "master", "--", "MYSQL_PWD=app-0xs3cret mariadb -uapp -e "+shellQuote("INSERT INTO orch.orch_owned (kind, name) VALUES ('account', 'dba@%')"))

	r := l.orch(t, "down", "--purge", l.inventory)
	if r.code == 0 {
		t.Error("purge succeeded on a forged record")
	}
	for _, h := range []string{"master", "slave1", "slave2"} {
		if want := h + ": dropped nothing: orch's record holds "; !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "account 'dba'@'%'") {
			t.Errorf("purge output lacks %q ... account 'dba'@'%%'", want)
		}
	}
	if got := l.sqlOn(t, "db", "SELECT CONCAT('dba-accounts=', COUNT(*)) FROM mysql.user WHERE user = 'dba' AND host = '%'", false); strings.Count(got, "dba-accounts=1") != 3 {
		t.Errorf("dba@'%%' is no longer on all three servers: %q", got)
	}
}
