package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestUpTakesBackAFailedReplicationSetup: when one slave cannot be made a
// replica (its admin account lacks the replication privileges, a DBA's
// doing), up takes back what its replication setup changed on the others:
// the replication account it created on the master is dropped, the slave
// it had wired forgets its master; and since the failure came after the
// restarts, every server is put back on the config it had before (issue
// 35: a failed up never leaves a host on a half-applied config), here the
// package's own, without orch's semi-sync switch. Once the privileges are
// back, up converges from there.
func TestUpTakesBackAFailedReplicationSetup(t *testing.T) {
	l := needLab(t)
	l.ensureRecord(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "down", "-i", l.inventory)
	// An inventory that does not name the replication account: up makes
	// orch's own repl@'%', which the failure must take back. The lab's
	// named account is removed first, as root, so up creates it.
	doc := l.inventoryDoc(t, "lab.yaml")
	delete(doc["replication"].(map[string]any), "user")
	inv := filepath.Join(t.TempDir(), "unnamed-repl.yaml")
	writeYAML(t, inv, doc)
	l.sqlOn(t, "db", "DROP USER IF EXISTS 'repl'@'%'", false)
	l.forget(t, "db", "account repl@%")

	const privs = "SUPER, REPLICATION SLAVE ADMIN"
	grant := "GRANT " + privs + " ON *.* TO 'orch'@'%'; GRANT " + privs + " ON *.* TO 'orch'@'localhost'"
	l.sqlOn(t, "slave2", "REVOKE "+privs+" ON *.* FROM 'orch'@'%'; REVOKE "+privs+" ON *.* FROM 'orch'@'localhost'", false)
	restored := false
	t.Cleanup(func() {
		if !restored {
			l.sqlOn(t, "slave2", grant, false)
		}
	})

	r := l.orch(t, "up", "-i", inv)
	assertOneLineError(t, r, "slave2", "replica: STOP SLAVE", "Access denied", "(what replication setup had changed was undone)")
	for _, want := range []string{"slave1   undo replica", "master   undo replication account"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the console does not show %q:\n%s", want, r.stderr)
		}
	}
	if got := strings.TrimSpace(l.sqlOn(t, "master", "SELECT COUNT(*) FROM mysql.user WHERE user = 'repl'", false)); got != "master | 0" {
		t.Errorf("the replication account up created is still there: %q", got)
	}
	for _, s := range []string{"slave1", "slave2"} {
		if got := strings.TrimSpace(l.sqlOn(t, s, "SHOW SLAVE STATUS", false)); got != "" {
			t.Errorf("%s still has a master after the undo: %q", s, got)
		}
		if got := strings.TrimSpace(l.sqlOn(t, s, "SELECT @@rpl_semi_sync_slave_enabled", false)); got != s+" | 0" {
			t.Errorf("%s semi-sync switch after the undo: %q, want its previous config's 0 (orch's option file taken back)", s, got)
		}
	}

	l.sqlOn(t, "slave2", grant, false)
	restored = true
	l.mustOK(t, "up", "-i", inv)
	assertReplicating(t, l.status(t), "innodb")
	l.mustOK(t, "down", "-i", inv) // drops orch's repl@'%', for the lab's own up
}
