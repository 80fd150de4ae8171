package integration

import (
	"strings"
	"testing"
)

// TestVerifyQuotesTheSlavesError (security review note): a replication
// check that fails quotes the slave's own error (Last_IO_Error), not
// "no answer within 0s". The replication account is locked on the master
// (ACCOUNT LOCK, MariaDB 10.4+), so the slaves' IO threads cannot log in;
// up then fails its proof within --verify-timeout, naming the slave and
// the server's error, and a second up after the unlock heals the cluster.
func TestVerifyQuotesTheSlavesError(t *testing.T) {
	l := needLab(t)
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	user := strings.TrimSpace(l.mustOK(t, "exec", "-i", l.inventory, "--role", "slave1", "--",
		`mariadb -e 'SHOW SLAVE STATUS\G' | sed -n 's/^ *Master_User: //p'`).stdout)
	if _, after, ok := strings.Cut(user, " | "); ok { // exec's "host | " prefix
		user = after
	}
	if user == "" || strings.ContainsAny(user, "'\\\n") {
		t.Fatalf("replication user %q", user)
	}
	unlock := func() { l.sqlOn(t, "master", "ALTER USER '"+user+"'@'%' ACCOUNT UNLOCK", false) }
	t.Cleanup(func() {
		unlock()
		l.cleanup(t, "up", "-i", l.inventory, "--engine", "innodb")
	})
	l.sqlOn(t, "master", "ALTER USER '"+user+"'@'%' ACCOUNT LOCK", false)
	l.sqlOn(t, "slave", "STOP SLAVE; START SLAVE", false)
	r := l.orch(t, "up", "-i", l.inventory, "--engine", "innodb", "--verify-timeout", "3s")
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, "Slave_IO_Running=Connecting") || !strings.Contains(out, "Access denied, this account is locked") {
		t.Errorf("exit %d; the slaves' IO error is not quoted:\n%s", r.code, out)
	}
	if strings.Contains(out, "no answer within 0s") {
		t.Errorf("the check blames its own deadline:\n%s", out)
	}
	unlock()
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
}
