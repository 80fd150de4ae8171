package flavor_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/orch-bench/orch/orchestrator/executor"
	. "github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/labenv"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/topology"
)

// TestLiveReplication runs the generated phases against two real servers:
// set up a master and a slave, replicate a write, wait for it by GTID and
// by position, tear down. It is DESTRUCTIVE (the slave's binlogs and
// replication state are wiped), so it runs only when both DSNs are given,
// or on the lab's master and slave2 (labenv), reached through SSH, after
// `orch up` has configured them (scripts/test.sh runs it so):
//
//	ORCH_FLAVOR_LIVE_MASTER='root:pw@tcp(10.0.0.1:3306)/'
//	ORCH_FLAVOR_LIVE_SLAVE='root:pw@tcp(10.0.0.2:3306)/'
//	ORCH_FLAVOR_LIVE_MASTER_ADDR=10.0.0.1:3306  # as the slave reaches it (default: from the DSN)
func TestLiveReplication(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var master, slave *sql.DB
	var ms, ss Server
	var addr string
	masterDSN, slaveDSN := os.Getenv("ORCH_FLAVOR_LIVE_MASTER"), os.Getenv("ORCH_FLAVOR_LIVE_SLAVE")
	if masterDSN != "" && slaveDSN != "" {
		master, ms = openLive(ctx, t, masterDSN)
		slave, ss = openLive(ctx, t, slaveDSN)
		if addr = os.Getenv("ORCH_FLAVOR_LIVE_MASTER_ADDR"); addr == "" {
			cfg, err := mysql.ParseDSN(masterDSN)
			if err != nil {
				t.Fatal(err)
			}
			addr = cfg.Addr
		}
	} else {
		master, ms, slave, ss, addr = openLabPair(ctx, t)
	}
	t.Logf("master %v, slave %v", ms, ss)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	// Quotes and backslashes in the account prove the quoting end to end.
	// Two DSNs name fresh servers; the lab's slave already replicates the
	// master's data, so it is re-pointed from where it is.
	p := Params{MasterHost: host, ReplUser: `orch_re'pl\`, ReplPassword: `live-Test'pw\`, Fresh: masterDSN != "", WaitForReplicaCount: 1}
	if p.MasterPort, err = strconv.Atoi(port); err != nil {
		t.Fatal(err)
	}

	for _, n := range []struct {
		db *sql.DB
		s  Server
	}{{master, ms}, {slave, ss}} {
		want := n.s.GTIDSettings()
		rows := queryRows(ctx, t, n.db, VariablesQuery(want))
		for _, want := range want {
			if got := findVar(rows, want.Name); got != want.Value {
				t.Fatalf("%v: %s = %q, want %q (fix the server config)", n.s, want.Name, got, want.Value)
			}
		}
	}
	// A server's syntax error quotes the statement; Run must scrub it.
	bad := SecretStatement("CHANGE MASTER TO MASTER_PASSWORD = ", "LiveSecret-42", " NOT_AN_OPTION")
	conn, err := slave.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = Run(ctx, ConnSession(conn), []Statement{bad})
	conn.Close()
	if err == nil || !strings.Contains(err.Error(), "1064") || strings.Contains(err.Error(), "LiveSecret") {
		t.Fatalf("syntax error not reported, or not scrubbed: %v", err)
	}
	t.Logf("scrubbed server error: %v", err)

	masterSetup, err := ms.MasterSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	// Twice: a re-run must succeed (IF NOT EXISTS, guarded INSTALL PLUGIN).
	runLive(ctx, t, master, masterSetup)
	runLive(ctx, t, master, masterSetup)
	slaveSetup, err := ss.SlaveSetup(p)
	if err != nil {
		t.Fatal(err)
	}
	runLive(ctx, t, slave, slaveSetup)

	var st ReplicaStatus
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		st = replicaStatus(ctx, t, slave, ss)
		if st.Running() || time.Now().After(deadline) {
			break
		}
	}
	if !st.Running() || st.Err() != nil || st.MasterHost != host || st.MasterUser != p.ReplUser {
		t.Fatalf("slave not replicating: %+v (%v)", st, st.Err())
	}
	names := ms.SemiSync()
	mstat := queryRows(ctx, t, master, ms.MasterSemiSyncStatusQuery())
	if findVar(mstat, names.MasterStatus) != "ON" || findVar(mstat, names.MasterClients) == "0" {
		t.Fatalf("master semi-sync not working: %v", mstat)
	}
	yesBefore, _ := strconv.Atoi(findVar(mstat, names.MasterYesTx))

	runLive(ctx, t, master, []Statement{
		Plain("CREATE DATABASE IF NOT EXISTS orch_flavor_live"),
		Plain("CREATE TABLE orch_flavor_live.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB"),
		Plain("INSERT INTO orch_flavor_live.t VALUES (1, 'it''s replicated')"),
	})
	pos := queryRows(ctx, t, master, ms.MasterGTIDQuery())[0][0]
	wait, err := ss.WaitForGTIDQuery(pos, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res := queryRows(ctx, t, slave, wait)[0][0]; !GTIDWaitReached(res) {
		t.Fatalf("%s = %q", wait, res)
	}
	if v := queryRows(ctx, t, slave, "SELECT v FROM orch_flavor_live.t WHERE id = 1")[0][0]; v != "it's replicated" {
		t.Fatalf("slave has %q", v)
	}
	if yes, _ := strconv.Atoi(findVar(queryRows(ctx, t, master, ms.MasterSemiSyncStatusQuery()), names.MasterYesTx)); yes <= yesBefore {
		t.Errorf("semi-sync yes_tx did not grow (%d -> %d)", yesBefore, yes)
	}

	runLive(ctx, t, master, []Statement{Plain("DROP DATABASE orch_flavor_live")})
	bs := queryRows(ctx, t, master, ms.BinlogStatusQuery())[0]
	binPos, _ := strconv.ParseUint(bs[1], 10, 64)
	gwait, err := ss.WaitForGTIDQuery(queryRows(ctx, t, master, ms.MasterGTIDQuery())[0][0], 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res := queryRows(ctx, t, slave, gwait)[0][0]; !GTIDWaitReached(res) {
		t.Fatalf("%s = %q", gwait, res)
	}
	if st := replicaStatus(ctx, t, slave, ss); st.ExecMasterLogPos != binPos || st.RelayMasterLogFile != bs[0] {
		t.Errorf("slave executed %s:%d, master at %s:%d", st.RelayMasterLogFile, st.ExecMasterLogPos, bs[0], binPos)
	}

	runLive(ctx, t, slave, ss.SlaveTeardown())
	runLive(ctx, t, master, ms.MasterTeardown())
	runLive(ctx, t, master, []Statement{
		Plain("SET SESSION sql_log_bin = 0"),
		Plain("DROP USER " + QuoteAccount(p.ReplUser, DefaultReplHost)),
	})
	if rows := queryRows(ctx, t, slave, ss.ReplicaStatusQuery()); len(rows) != 0 {
		t.Errorf("slave still has replica status after teardown: %v", rows)
	}
	off := queryRows(ctx, t, master, VariablesQuery([]Setting{{names.MasterEnabled, ""}}))
	if findVar(off, names.MasterEnabled) != "OFF" {
		t.Errorf("master semi-sync still on: %v", off)
	}
}

func openLive(ctx context.Context, t *testing.T, dsn string) (*sql.DB, Server) {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, detectLive(ctx, t, db)
}

func detectLive(ctx context.Context, t *testing.T, db *sql.DB) Server {
	t.Helper()
	var version, comment string
	if err := db.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment").Scan(&version, &comment); err != nil {
		t.Fatal(err)
	}
	s, err := Detect(version, comment)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runLive runs statements on one pinned connection through Run.
func runLive(ctx context.Context, t *testing.T, db *sql.DB, sts []Statement) {
	t.Helper()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := Run(ctx, ConnSession(conn), sts); err != nil {
		t.Fatal(err)
	}
}

// queryRows returns every row as strings; NULL becomes "NULL".
func queryRows(ctx context.Context, t *testing.T, db *sql.DB, q string) [][]string {
	t.Helper()
	_, rows := queryTable(ctx, t, db, q)
	return rows
}

func queryTable(ctx context.Context, t *testing.T, db *sql.DB, q string) ([]string, [][]string) {
	t.Helper()
	rs, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rs.Next() {
		raw := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range raw {
			ptrs[i] = &raw[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(cols))
		for i, v := range raw {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, out
}

// findVar returns the value of a (Variable_name, Value) row.
func findVar(rows [][]string, name string) string {
	for _, r := range rows {
		if len(r) == 2 && strings.EqualFold(r[0], name) {
			return r[1]
		}
	}
	return fmt.Sprintf("<no %s>", name)
}

func replicaStatus(ctx context.Context, t *testing.T, db *sql.DB, s Server) ReplicaStatus {
	t.Helper()
	cols, rows := queryTable(ctx, t, db, s.ReplicaStatusQuery())
	if len(rows) != 1 {
		t.Fatalf("%s returned %d rows", s.ReplicaStatusQuery(), len(rows))
	}
	st, err := ParseReplicaStatusColumns(cols, rows[0])
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// openLabPair opens the lab's master and slave2 through their SSH
// connections; the slave reaches the master at its lab address.
func openLabPair(ctx context.Context, t *testing.T) (master *sql.DB, ms Server, slave *sql.DB, ss Server, masterAddr string) {
	t.Helper()
	inv, err := topology.Load(labenv.Inventory(t), topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	open := func(h *topology.Host) (*sql.DB, Server) {
		ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		db, err := mysqlconn.Open(ctx, ex, h)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db, detectLive(ctx, t, db)
	}
	m := inv.Master()
	master, ms = open(m)
	slave, ss = open(inv.Slaves()[1])
	port := m.MySQL.Port
	if port == 0 {
		port = 3306
	}
	return master, ms, slave, ss, net.JoinHostPort(m.Address, strconv.Itoa(port))
}
