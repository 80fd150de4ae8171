package replication

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// Canary table: one row per Verify, written on the master.
const (
	CanarySchema = "orch"
	CanaryTable  = "canary"
)

// Verify timing.
const (
	// pollInterval is short: right after restarts the slaves reconnect within
	// tens of milliseconds, and every poll is only a few queries.
	pollInterval = 50 * time.Millisecond
	// minCanaryBudget is the least time the canary gets even when the
	// servers became healthy at the very end of the timeout, so that a
	// just-healed cluster is not failed for want of a few milliseconds.
	minCanaryBudget = 2 * time.Second
	// canaryGrace lets the round trips that report a failed wait finish
	// after the wait itself has used the budget.
	canaryGrace = 3 * time.Second
)

// Canary is the write Verify made on the master and what each slave did
// with it.
type Canary struct {
	Token      string          `json:"token"`
	MasterGTID string          `json:"master_gtid"`
	Slaves     []CanaryArrival `json:"slaves"`
}

// CanaryArrival is one slave's answer to the canary.
type CanaryArrival struct {
	Host string `json:"host"`
	// Seen is set when the slave applied the master's GTID position and
	// holds the canary row.
	Seen   bool          `json:"seen"`
	Waited time.Duration `json:"waited_ns"`
	Error  string        `json:"error,omitempty"`
}

// Verify proves that replication works rather than trusting status flags:
// it waits (up to timeout) until every slave runs both replication threads
// without errors, from this master, semi-synchronously, and the master
// counts every slave as a semi-sync client; then it writes a canary row
// with a fresh token on the master and waits until every slave has applied
// the master's GTID position and holds the row. Seconds_Behind_Master is
// never trusted: it reads 0 on a slave whose link is down.
//
// Verify returns within timeout plus a few seconds (minCanaryBudget,
// canaryGrace, and a last poll's ProbeTimeout when a server hangs). The error lists every problem, one line per problem, each
// naming its host ("slave2 10.0.0.3: Slave_IO_Running=Connecting: error
// 2003: ..."). The Status is returned whenever the servers were asked.
func Verify(ctx context.Context, master *server.Node, slaves []*server.Node, timeout time.Duration) (*Status, error) {
	if err := checkNodes(master, slaves); err != nil {
		return nil, fmt.Errorf("replication verify: %w", err)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("replication verify: timeout %v: want a positive duration", timeout)
	}
	deadline := time.Now().Add(timeout)
	st, err := waitHealthy(ctx, master, slaves, deadline)
	if err != nil {
		return st, err
	}
	if d := time.Now().Add(minCanaryBudget); d.After(deadline) {
		deadline = d
	}
	cctx, cancel := context.WithDeadline(ctx, deadline.Add(canaryGrace))
	defer cancel()
	token, err := newToken()
	if err != nil {
		return st, err
	}
	pos, err := writeCanary(cctx, master, token)
	if err != nil {
		return st, fmt.Errorf("%s: canary write: %w", master, err)
	}
	st.Canary = &Canary{Token: token, MasterGTID: pos, Slaves: make([]CanaryArrival, len(slaves))}
	errs := orchestrator.ForEach(cctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		start := time.Now()
		err := awaitCanary(ctx, n, token, pos, deadline)
		a := CanaryArrival{Host: n.String(), Seen: err == nil, Waited: time.Since(start)}
		if err != nil {
			a.Error = err.Error()
			err = fmt.Errorf("%s: %w", n, err)
		}
		st.Canary.Slaves[i] = a
		return err
	})
	return st, orchestrator.Aggregate(errs)
}

// waitHealthy polls the servers until none reports a problem or the
// deadline passes; it then returns the last problems. Each poll has the
// time a probe needs (ProbeTimeout), not what is left before the
// deadline: a poll cut by orch's own deadline would report "no answer"
// instead of what the servers say (a slave's Last_IO_Error).
func waitHealthy(ctx context.Context, master *server.Node, slaves []*server.Node, deadline time.Time) (*Status, error) {
	for {
		pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
		st, _ := GetStatus(pctx, master, slaves) // read errors are in st's problems
		cancel()
		err := st.Err()
		if err == nil {
			return st, nil
		}
		if ctx.Err() != nil {
			return st, errors.Join(ctx.Err(), err)
		}
		if time.Until(deadline) < pollInterval {
			return st, err
		}
		select {
		case <-ctx.Done():
			return st, errors.Join(ctx.Err(), err)
		case <-time.After(pollInterval):
		}
	}
}

func newToken() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("canary token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// canaryDDL creates the canary table; it runs only when the table is
// missing, so that a Verify on a working cluster binlogs one row, no DDL.
var canaryDDL = []string{
	"CREATE DATABASE IF NOT EXISTS " + CanarySchema,
	"CREATE TABLE IF NOT EXISTS " + CanarySchema + "." + CanaryTable + " (" +
		"id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, " +
		"token VARCHAR(64) NOT NULL, " +
		"at DATETIME(6) NOT NULL, " +
		"KEY token (token)) ENGINE=InnoDB",
}

// writeCanary inserts the token on the master and returns the master's
// GTID position right after it: what each slave must reach.
func writeCanary(ctx context.Context, master *server.Node, token string) (string, error) {
	var pos string
	err := withConn(ctx, master.DB, func(c *sql.Conn) error {
		exists, err := queryTimeout(ctx, c, StatementTimeout, "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = "+
			flavor.QuoteString(CanarySchema)+" AND TABLE_NAME = "+flavor.QuoteString(CanaryTable))
		if err != nil {
			return fmt.Errorf("look up canary table: %w", err)
		}
		// The write must reach the binary log whatever this pooled session
		// did before.
		plan := []flavor.Statement{plain("SET SESSION sql_log_bin = 1")}
		if len(exists.rows) == 0 {
			for _, q := range canaryDDL {
				plan = append(plan, plain(q))
			}
		}
		plan = append(plan, plain("INSERT INTO "+CanarySchema+"."+CanaryTable+" (token, at) VALUES ("+
			flavor.QuoteString(token)+", NOW(6))"))
		if _, err := run(ctx, c, plan); err != nil {
			return err
		}
		t, err := queryTimeout(ctx, c, StatementTimeout, master.Server.MasterGTIDQuery())
		if err != nil {
			return fmt.Errorf("GTID position: %w", err)
		}
		pos = normGTID(t.value())
		return nil
	})
	return pos, err
}

// awaitCanary waits until the slave has applied pos, then checks that the
// canary row is there.
func awaitCanary(ctx context.Context, n *server.Node, token, pos string, deadline time.Time) error {
	// Whole seconds, rounded down: the server rounds a wait up.
	wait := max(time.Until(deadline).Truncate(time.Second), time.Second)
	q, err := n.Server.WaitForGTIDQuery(pos, wait)
	if err != nil {
		return err
	}
	// The server-side wait ends by itself; the extra second covers the
	// round trip, and the context still bounds a server that never answers.
	t, err := queryTimeout(ctx, n.DB, wait+time.Second, q)
	if err != nil {
		return fmt.Errorf("wait for GTID %s: %w", pos, err)
	}
	if !flavor.GTIDWaitReached(t.value()) {
		return fmt.Errorf("canary not applied within %s: %s", wait, behindText(ctx, n, pos))
	}
	t, err = queryTimeout(ctx, n.DB, ProbeTimeout, "SELECT COUNT(*) FROM "+CanarySchema+"."+CanaryTable+
		" WHERE token = "+flavor.QuoteString(token))
	if err != nil {
		return fmt.Errorf("read canary: %w", err)
	}
	if t.value() == "0" {
		return fmt.Errorf("GTID %s applied but the canary row is missing: the slave's data differs from the master's", pos)
	}
	return nil
}

// behindText describes how far a slave is from pos, for a failed wait.
func behindText(ctx context.Context, n *server.Node, pos string) string {
	t, err := queryTimeout(ctx, n.DB, 2*time.Second, n.Server.SlaveGTIDQuery())
	if err != nil {
		return "master at " + pos + "; slave position unreadable: " + err.Error()
	}
	have := normGTID(t.value())
	msg := fmt.Sprintf("applied %q, master at %q", have, pos)
	if gap, err := n.Server.GTIDGap(pos, have); err == nil {
		msg += fmt.Sprintf(" (%d transactions behind)", gap)
	}
	return msg
}
