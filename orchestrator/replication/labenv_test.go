package replication

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"
	"github.com/orch-bench/orch/orchestrator/server"

	"github.com/orch-bench/orch/lab"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// Lab tests run against a lab made by `orch lab up` and are skipped unless
//
//	ORCH_TEST_LAB_INVENTORY=/tmp/lab-repl/lab.yaml   (the root inventory)
//	ORCH_TEST_LAB_STATE_DIR=/var/lib/orch-lab-repl  (for link faults; optional)
//
// They are destructive: replication state, binary logs and the orch and
// orch_labtest schemas on the lab's servers are wiped.

// labCnfPath sorts after Debian's 50-server.cnf (bind-address=127.0.0.1)
// and the lab's own 60-orch-lab.cnf.
const labCnfPath = "/etc/mysql/mariadb.conf.d/99-orch-test.cnf"

// labCluster is the lab's master and slaves, connected.
type labCluster struct {
	inv      *topology.Inventory
	stateDir string
	exs      []executor.Executor // master, slaves
	master   *server.Node
	slaves   []*server.Node
}

func (l *labCluster) nodes() []*server.Node { return append([]*server.Node{l.master}, l.slaves...) }

// labCnf is the minimum replication needs, standing in for the server
// config orch up renders. Semi-sync is persisted on the master with a huge
// timeout, as orch's profiles do: the ordering trap is live.
func labCnf(i int, h *topology.Host) string {
	cnf := fmt.Sprintf(`# Written by orchestrator/replication lab tests.
[mysqld]
server_id = %d
log_bin = mysql-bin
binlog_format = ROW
gtid_strict_mode = ON
log_slave_updates = ON
relay_log = relay-bin
bind_address = 0.0.0.0
report_host = %s
`, i+1, h.Address)
	if h.Role == topology.RoleMaster {
		return cnf + "rpl_semi_sync_master_enabled = ON\nrpl_semi_sync_master_timeout = 1000000000000000000\n"
	}
	return cnf + "rpl_semi_sync_slave_enabled = ON\n"
}

// needLab connects to the lab's database hosts, makes sure each runs with
// labCnf (restarting a server only when its file changes) and returns the
// cluster with replication torn down and every server's data and binary
// log wiped: a freshly built cluster.
func needLab(t *testing.T) *labCluster {
	t.Helper()
	path := labenv.Inventory(t)
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	l := &labCluster{inv: inv}
	hosts := append([]*topology.Host{inv.Master()}, inv.Slaves()...)
	if hosts[0] == nil || len(hosts) != 3 {
		t.Fatalf("%s: want a master and two slaves", path)
	}
	for i, h := range hosts {
		ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		l.exs = append(l.exs, ex)
		if err := ensureLabCnf(ctx, ex, h, labCnf(i, h)); err != nil {
			t.Fatal(err)
		}
		n, err := server.Open(ctx, h, ex, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { n.Close() })
		if i == 0 {
			l.master = n
		} else {
			l.slaves = append(l.slaves, n)
		}
	}
	if _, err := Teardown(ctx, l.master, l.slaves, labParams(), nil); err != nil {
		t.Fatalf("clean slate: %v", err)
	}
	for _, n := range l.nodes() {
		// Unlogged, then RESET MASTER: no host keeps a GTID of its own.
		labExec(t, n.DB, "SET SESSION sql_log_bin = 0", "DROP DATABASE IF EXISTS orch",
			"DROP DATABASE IF EXISTS orch_labtest", "RESET MASTER", "SET GLOBAL gtid_slave_pos = ''")
	}
	// As the master's config has it: semi-sync on, before any slave.
	labExec(t, l.master.DB, "SET GLOBAL rpl_semi_sync_master_enabled = ON")
	return l
}

func ensureLabCnf(ctx context.Context, ex executor.Executor, h *topology.Host, cnf string) error {
	var cur bytes.Buffer
	if _, err := ex.Download(ctx, labCnfPath, &cur, false); err == nil && cur.String() == cnf {
		return nil
	}
	if err := ex.Upload(ctx, strings.NewReader(cnf), labCnfPath, 0o644, false); err != nil {
		return err
	}
	for _, script := range []string{h.MySQL.Service.Stop, h.MySQL.Service.Start} {
		if _, err := ex.Run(ctx, executor.Command{Script: script, Timeout: time.Minute}); err != nil {
			return fmt.Errorf("%s: restart with %s: %w", h, labCnfPath, err)
		}
	}
	return nil
}

// labExec runs statements on one pinned session, each under a timeout.
func labExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, q := range stmts {
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

func labValue(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tab, err := query(ctx, db, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return tab.value()
}

// fault injects a lab fault (link-down, link-up) on one host.
func (l *labCluster) fault(t *testing.T, host, kind string) {
	t.Helper()
	if err := lab.Fault(context.Background(), lab.Config{StateDir: l.stateDir, Out: io.Discard}, host, kind); err != nil {
		t.Fatalf("lab fault %s %s: %v", host, kind, err)
	}
}

// connectionFacts is what changes when a slave's replication is restarted:
// its relay log (rotated on every IO thread start) and the master's dump
// thread serving it (a new connection).
func (l *labCluster) connectionFacts(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, n := range l.slaves {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tab, err := query(ctx, n.DB, n.Server.ReplicaStatusQuery())
		cancel()
		if err != nil || len(tab.rows) != 1 {
			t.Fatalf("%s: replica status: %v", n, err)
		}
		for i, c := range tab.cols {
			if c == "Relay_Log_File" {
				fmt.Fprintf(&b, "%s relay log %s\n", n.Host.Name, tab.rows[0][i].String)
			}
		}
	}
	ids := labValue(t, l.master.DB, "SELECT GROUP_CONCAT(ID ORDER BY ID) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")
	fmt.Fprintf(&b, "master dump threads %s\n", ids)
	return b.String()
}

// TestMain leaves a lab as the lab made it once the lab tests are done: no
// replication, no test databases or account, and no test config fragment,
// so tests that run after these (CI runs them on one lab) start clean.
func TestMain(m *testing.M) {
	code := m.Run()
	if path := os.Getenv(labenv.EnvInventory); path != "" {
		if err := restoreLab(path); err != nil {
			fmt.Fprintln(os.Stderr, "restoring the lab:", err)
			code = 1
		}
	}
	os.Exit(code)
}

func restoreLab(path string) error {
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const sql = `SET SESSION sql_log_bin = 0; STOP SLAVE; RESET SLAVE ALL; DROP DATABASE IF EXISTS orch; DROP DATABASE IF EXISTS orch_labtest; DROP USER IF EXISTS 'repl'@'%'`
	for _, h := range inv.DBHosts() {
		ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
		if err != nil {
			return err
		}
		defer ex.Close()
		var cur bytes.Buffer
		if _, err := ex.Download(ctx, labCnfPath, &cur, false); err != nil {
			continue // never written: nothing to undo
		}
		script := "mariadb -e " + shell.Quote(sql) + " && rm -f " + shell.Quote(labCnfPath) + " && " + h.MySQL.Service.Stop + " && " + h.MySQL.Service.Start
		if _, err := ex.Run(ctx, executor.Command{Script: script, Timeout: time.Minute}); err != nil {
			return fmt.Errorf("%s: %w", h, err)
		}
	}
	return nil
}
