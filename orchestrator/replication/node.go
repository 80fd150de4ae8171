// Package replication wires a 1-master/N-slave cluster for semi-synchronous
// GTID replication, proves it works, reports its state and takes it apart
// again. The SQL of each step comes from orchestrator/flavor; this package
// decides what to run where, in which order, and only when it is needed:
// `orch up` run twice must not reset a healthy replica.
//
// Every statement runs under a timeout. The lab showed why: with semi-sync
// enabled and a huge rpl_semi_sync_master_timeout, one binlogged write on a
// master no slave is connected to blocks for as long as the timeout says.
package replication

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// StatementTimeout bounds every statement Setup and Teardown send, so that
// no step can hang (STOP SLAVE waits for the applier's current transaction,
// which stays well under this on a healthy server).
const StatementTimeout = 30 * time.Second

// mysqlPort is the port the server listens on, as other hosts reach it.
func mysqlPort(h *topology.Host) int {
	if h.MySQL.Port != 0 {
		return h.MySQL.Port
	}
	return topology.DefaultMySQLPort
}

// checkNodes rejects a cluster description this package cannot work on.
func checkNodes(master *server.Node, slaves []*server.Node) error {
	var errs []error
	for i, n := range append([]*server.Node{master}, slaves...) {
		role := "master"
		if i > 0 {
			role = fmt.Sprintf("slave %d", i)
		}
		switch {
		case n == nil || n.Host == nil:
			errs = append(errs, fmt.Errorf("%s: no host", role))
		case n.DB == nil:
			errs = append(errs, fmt.Errorf("%s: not connected to its database", n))
		case n.Server.Flavor == "":
			errs = append(errs, fmt.Errorf("%s: server flavour not detected (open it with server.Open)", n))
		}
	}
	if len(slaves) == 0 {
		errs = append(errs, errors.New("no slaves"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// MySQL and MariaDB GTIDs are incompatible: such a pair cannot replicate.
	for _, s := range slaves {
		if s.Server.UsesMariaDBGTID() != master.Server.UsesMariaDBGTID() {
			errs = append(errs, fmt.Errorf("%s: %s cannot replicate from %s %s (incompatible GTIDs)", s, s.Server, master, master.Server))
		}
	}
	return errors.Join(errs...)
}

// resultTable is a query result as text; NULL reads as "" with Null set.
type resultTable struct {
	cols []string
	rows [][]sql.NullString
}

func query(ctx context.Context, q sqlrows.Querier, sqlText string) (resultTable, error) {
	t, err := sqlrows.Query(ctx, q, sqlText)
	return resultTable{cols: t.Cols, rows: t.Rows}, err
}

// value is the first column of the first row ("" without one).
func (t resultTable) value() string {
	if len(t.rows) == 0 || len(t.rows[0]) == 0 {
		return ""
	}
	return t.rows[0][0].String
}

// nameValues reads SHOW VARIABLES / SHOW STATUS rows into a map.
func (t resultTable) nameValues() map[string]string {
	return sqlrows.Table{Cols: t.cols, Rows: t.rows}.NameValues()
}

// lookup reads a variable from nameValues' map by its real spelling.
func lookup(vars map[string]string, name string) (string, bool) {
	if name == "" {
		return "", false
	}
	v, ok := vars[strings.ToLower(name)]
	return v, ok
}

// queryTimeout runs query under a timeout of its own.
func queryTimeout(ctx context.Context, q sqlrows.Querier, d time.Duration, sqlText string) (resultTable, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t, err := query(ctx, q, sqlText)
	return t, timeoutErr(ctx, start, err)
}

// timeoutErr says "no answer within 10s" rather than the driver's bare
// "context deadline exceeded" when a deadline (the statement's own or the
// caller's) cut the statement short.
func timeoutErr(ctx context.Context, start time.Time, err error) error {
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s: %w", time.Since(start).Round(100*time.Millisecond), err)
	}
	return err
}

// withConn runs fn on one pinned connection: statement plans depend on
// session state (SET SESSION sql_log_bin). A connection fn failed on is
// discarded rather than returned to the pool, so that a session left with
// binary logging off can never serve a later write.
func withConn(ctx context.Context, db *sql.DB, fn func(c *sql.Conn) error) error {
	start := time.Now()
	cctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	c, err := db.Conn(cctx)
	if err != nil {
		err = timeoutErr(cctx, start, err)
		cancel()
		return fmt.Errorf("connect: %w", err)
	}
	cancel()
	err = fn(c)
	if err != nil {
		// driver.ErrBadConn from Raw makes database/sql close the connection.
		_ = c.Raw(func(any) error { return driver.ErrBadConn })
	}
	c.Close()
	return err
}

// recorder is the session Setup and Teardown run plans through: it
// bounds each statement by StatementTimeout and keeps the redacted text of
// every statement that succeeded, for the Result.
type recorder struct {
	s        sqlrows.Session
	redacted map[string]string
	done     []string
}

func newRecorder(c *sql.Conn, plan []flavor.Statement) *recorder {
	r := &recorder{s: flavor.ConnSession(c), redacted: make(map[string]string, len(plan))}
	for _, st := range plan {
		r.redacted[st.SQL] = st.Redacted
	}
	return r
}

func (r *recorder) Exec(ctx context.Context, stmts ...string) error {
	for _, q := range stmts {
		if err := r.exec1(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

func (r *recorder) exec1(ctx context.Context, q string) error {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	defer cancel()
	if err := r.s.Exec(ctx, q); err != nil {
		return timeoutErr(ctx, start, err)
	}
	text, ok := r.redacted[q]
	if !ok {
		// Never record text the plan did not vouch for: it may hold a secret.
		text = "<statement outside the plan>"
	}
	r.done = append(r.done, text)
	return nil
}

func (r *recorder) Query(ctx context.Context, q string) ([][]string, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	defer cancel()
	rows, err := r.s.Query(ctx, q)
	return rows, timeoutErr(ctx, start, err)
}

// run executes plan on c and returns the statements that ran.
func run(ctx context.Context, c *sql.Conn, plan []flavor.Statement) ([]string, error) {
	r := newRecorder(c, plan)
	err := flavor.Run(ctx, r, plan)
	return r.done, err
}

// plain wraps SQL without secrets as a Statement.
func plain(q string) flavor.Statement { return flavor.Statement{SQL: q, Redacted: q} }
