package integration

import (
	"strings"
	"testing"
)

// TestFaultHungServer: a hostile host whose server accepts connections and
// never answers (its mariadbd stopped with SIGSTOP). `up` must not wait for
// it forever, nor start a second server beside it: it fails in one line
// naming the host and saying the server does not answer, restarts nothing,
// and converges once the server runs again.
func TestFaultHungServer(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)
	signal := func(sig string) {
		l.mustOK(t, "exec", "-i", l.inventory, "--role", "slave2", "--", "kill -"+sig+" $(cat /run/mysqld/mysqld.pid)")
	}
	signal("STOP")
	resumed := false
	defer func() {
		if !resumed {
			signal("CONT")
		}
	}()

	r := l.orch(t, "up", "-i", l.inventory, "--engine", "rocksdb")
	assertOneLineError(t, r, "slave2", "no answer within", "hung")
	if strings.Contains(r.stderr, " restart") {
		t.Errorf("up restarted a server with slave2 hung:\n%s", r.stderr)
	}
	if strings.Contains(r.stderr, "start server") {
		t.Errorf("up tried to start a second server on slave2:\n%s", r.stderr)
	}

	signal("CONT")
	resumed = true
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "rocksdb")
	assertReplicating(t, l.status(t), "rocksdb")
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
}
