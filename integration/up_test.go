package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/replication"
)

// uptimes reads each database server's Uptime (seconds) through orch exec.
func (l *lab) uptimes(t *testing.T) map[string]int {
	t.Helper()
	r := l.mustOK(t, "exec", "-i", l.inventory, "--role", "db", "--", `mariadb -N -e "SHOW GLOBAL STATUS LIKE 'Uptime'" | cut -f2`)
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		host, v, ok := strings.Cut(line, " | ")
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if !ok || err != nil {
			t.Fatalf("uptime line %q", line)
		}
		out[strings.TrimSpace(host)] = n
	}
	if len(out) != 3 {
		t.Fatalf("uptimes of %d servers, want 3", len(out))
	}
	return out
}

func (l *lab) status(t *testing.T) *replication.Status {
	t.Helper()
	r := l.mustOK(t, "status", "-i", l.inventory, "--json")
	var st replication.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("status --json: %v", err)
	}
	return &st
}

func assertReplicating(t *testing.T, st *replication.Status, engine string) {
	t.Helper()
	if len(st.Slaves) != 2 || len(st.Problems()) > 0 {
		t.Fatalf("cluster not healthy: %d slaves, problems %v", len(st.Slaves), st.Problems())
	}
	b, _ := json.Marshal(st)
	s := string(b)
	for _, want := range []string{`"default_engine":"` + engine + `"`} {
		if !strings.Contains(strings.ToLower(s), want) {
			t.Errorf("status lacks %s: %s", want, s)
		}
	}
}

// TestUpLifecycle walks the scenario on the lab: up with innodb,
// up again without restarts, a refused knob, an ignored knob, a profile
// that makes the server fail (rolled back), a switch to rocksdb, and down.
func TestUpLifecycle(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)

	r := l.mustOK(t, "up", "-i", l.inventory)
	if !strings.Contains(r.stdout, "canary") {
		t.Errorf("up printed no proof of replication:\n%s", r.stdout)
	}
	assertReplicating(t, l.status(t), "innodb")
	before := l.uptimes(t)

	t.Run("again changes nothing", func(t *testing.T) {
		r := l.mustOK(t, "up", "-i", l.inventory)
		if strings.Contains(r.stderr, " restart") {
			t.Errorf("second up restarted a server:\n%s", r.stderr)
		}
		for h, up := range l.uptimes(t) {
			if up < before[h] {
				t.Errorf("%s: uptime went from %d to %d: restarted", h, before[h], up)
			}
		}
	})

	t.Run("unknown knob refused before any restart", func(t *testing.T) {
		// The inventory names the flavour: refused before any host, from
		// the server's variable list (exit 2).
		r := l.orch(t, "up", "-i", l.inventory, "--knob", "binlog_sync=0")
		if r.code != 2 {
			t.Fatalf("up of binlog_sync: exit %d, want 2", r.code)
		}
		want := "--knob binlog_sync: no such variable on MariaDB 10.11"
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "did you mean sync_binlog?") {
			t.Errorf("stderr lacks %q + suggestion:\n%s", want, r.stderr)
		}
		for h, up := range l.uptimes(t) {
			if up < before[h] {
				t.Errorf("%s restarted for a refused knob", h)
			}
		}
	})

	t.Run("another flavour's knob refused", func(t *testing.T) {
		r := l.orch(t, "up", "-i", l.inventory, "--knob", "binlog_order_commits=OFF")
		if r.code != 2 || !strings.Contains(r.stderr, "binlog_order_commits: no such variable on MariaDB") {
			t.Errorf("exit %d, want 2 naming MariaDB's missing binlog_order_commits:\n%s", r.code, r.stderr)
		}
	})

	t.Run("failing profile rolls back", func(t *testing.T) {
		dir := t.TempDir()
		// A value the server's option parser rejects at start-up.
		broken := "{{template \"base.cnf\" .}}\ninnodb_flush_log_at_trx_commit = 2\nsync_binlog = 0\ninnodb_buffer_pool_size = 128M\nlog_slow_verbosity = banana\n"
		if err := os.WriteFile(filepath.Join(dir, "innodb.cnf"), []byte(broken), 0o644); err != nil {
			t.Fatal(err)
		}
		r := l.orch(t, "up", "-i", l.inventory, "--profile-dir", dir)
		if r.code == 0 {
			t.Fatal("up succeeded with a profile the server cannot start with")
		}
		if !strings.Contains(r.stderr, "banana") {
			t.Errorf("the error does not quote the error log:\n%s", r.stderr)
		}
		assertReplicating(t, l.status(t), "innodb")
	})

	t.Run("switch to rocksdb", func(t *testing.T) {
		l.mustOK(t, "up", "-i", l.inventory, "--engine", "rocksdb")
		assertReplicating(t, l.status(t), "rocksdb")
	})

	t.Run("down restores", func(t *testing.T) {
		l.mustOK(t, "down", "-i", l.inventory)
		r := l.mustOK(t, "exec", "-i", l.inventory, "--role", "db", "--",
			`ls /etc/mysql/mariadb.conf.d/ | grep -c orch-lab; ls /etc/mysql/mariadb.conf.d/99-orch.cnf 2>/dev/null | wc -l; mariadb -N -e 'SHOW SLAVE STATUS' | wc -l; mariadb -N -e 'SELECT @@rpl_semi_sync_master_enabled, @@rpl_semi_sync_slave_enabled, @@log_bin'`)
		for _, h := range []string{"master", "slave1", "slave2"} {
			var lines []string
			for _, line := range strings.Split(r.stdout, "\n") {
				if name, rest, ok := strings.Cut(line, " | "); ok && strings.TrimSpace(name) == h {
					lines = append(lines, strings.TrimSpace(rest))
				}
			}
			if strings.Join(lines, ";") != "1;0;0;0\t0\t0" {
				t.Errorf("%s after down: %q, want lab fragment only, no orch file, no replica, semi-sync and binlog off", h, lines)
			}
		}
	})
}

// TestUpStartsAStoppedServer: a server left down (here killed, as an orch
// killed mid-restart would leave it) is started by the next up instead of
// failing it.
func TestUpStartsAStoppedServer(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory)
	l.fault(t, "slave1", "kill-mysqld")
	r := l.mustOK(t, "up", "-i", l.inventory)
	if !strings.Contains(r.stderr, "slave1") || !strings.Contains(r.stderr, "started the server, which was down") {
		t.Errorf("up did not say it started slave1's server:\n%s", r.stderr)
	}
	assertReplicating(t, l.status(t), "innodb")
}
