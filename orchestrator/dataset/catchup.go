package dataset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/server"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/replication"
)

// waitSlice is how long one server-side GTID wait lasts before the slave's
// replication threads are looked at again: a slave whose SQL thread stopped
// fails in seconds instead of after the whole timeout.
const waitSlice = 2 * time.Second

// CatchUp is what WaitCaughtUp saw.
type CatchUp struct {
	// MasterGTID is the master's position the slaves were waited for.
	MasterGTID string         `json:"master_gtid"`
	Slaves     []SlaveCatchUp `json:"slaves"`
}

// SlaveCatchUp is one slave's wait.
type SlaveCatchUp struct {
	Host   string        `json:"host"`
	Waited time.Duration `json:"waited_ns"`
	// CaughtUp is set when the slave applied MasterGTID.
	CaughtUp bool `json:"caught_up"`
	// Applied is the slave's own position when it did not catch up, and
	// Behind how many transactions the master has that it lacks.
	Applied string `json:"applied,omitempty"`
	Behind  *int64 `json:"behind_transactions,omitempty"`
	Error   string `json:"error,omitempty"`
}

// WaitCaughtUp reads the master's GTID position and waits, up to timeout,
// until every slave has applied it (MASTER_GTID_WAIT or
// WAIT_FOR_EXECUTED_GTID_SET): semi-sync acknowledges on receipt, not on
// apply, so after a write-heavy run the slaves can be minutes behind. A
// slave whose SQL thread is not running fails at once. The error names each
// slave that did not catch up and how far behind it is; the CatchUp is
// returned whenever the master's position was read.
func WaitCaughtUp(ctx context.Context, master *server.Node, slaves []*server.Node, timeout time.Duration) (*CatchUp, error) {
	if err := checkNodes(master, slaves); err != nil {
		return nil, fmt.Errorf("wait for slaves: %w", err)
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("wait for slaves: timeout %v: want a positive duration", timeout)
	}
	v, err := queryValue(ctx, master.DB, StatementTimeout, master.Server.MasterGTIDQuery())
	if err != nil {
		return nil, fmt.Errorf("%s: read GTID position: %w", master, err)
	}
	pos := ""
	if v != nil { // MySQL prints multi-UUID sets over several lines
		pos = strings.Join(strings.Fields(*v), "")
	}
	cu := &CatchUp{MasterGTID: pos, Slaves: make([]SlaveCatchUp, len(slaves))}
	deadline := time.Now().Add(timeout)
	errs := orchestrator.ForEach(ctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		start := time.Now()
		err := awaitGTID(ctx, n, pos, deadline, timeout)
		s := SlaveCatchUp{Host: n.String(), Waited: time.Since(start), CaughtUp: err == nil}
		if err != nil {
			s.Applied, s.Behind = lag(ctx, master, n)
			err = fmt.Errorf("%s: %w%s", n, err, behindText(s.Applied, s.Behind))
			s.Error = err.Error()
		}
		cu.Slaves[i] = s
		return err
	})
	for i, err := range errs {
		if err != nil && cu.Slaves[i].Host == "" { // never started: ctx done
			cu.Slaves[i] = SlaveCatchUp{Host: slaves[i].String(), Error: err.Error()}
		}
	}
	return cu, orchestrator.Aggregate(errs)
}

// awaitGTID waits in slices until n has applied pos or the deadline
// passes, checking between slices that n can still get there.
func awaitGTID(ctx context.Context, n *server.Node, pos string, deadline time.Time, timeout time.Duration) error {
	if pos == "" {
		return nil // the master has written nothing to wait for
	}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return fmt.Errorf("has not applied the master's GTID %s within %s", pos, timeout)
		}
		slice := min(left, waitSlice)
		q, err := n.Server.WaitForGTIDQuery(pos, slice)
		if err != nil {
			return err
		}
		// The server ends its own wait (whole seconds, rounded up); the
		// extra time covers the round trip.
		v, err := queryValue(ctx, n.DB, slice+StatementTimeout, q)
		if err != nil {
			return fmt.Errorf("wait for GTID %s: %w", pos, err)
		}
		if flavor.GTIDWaitReached(str(v)) {
			return nil
		}
		if err := stillReplicating(ctx, n); err != nil {
			return fmt.Errorf("cannot catch up with the master's GTID %s: %w", pos, err)
		}
	}
}

// stillReplicating returns an error when n's SQL thread is not applying:
// waiting longer would not help. An IO thread that is reconnecting is left
// to the timeout, since the slave may still get there.
func stillReplicating(ctx context.Context, n *server.Node) error {
	cols, rows, err := queryRows(ctx, n.DB, StatementTimeout, n.Server.ReplicaStatusQuery())
	if err != nil {
		return fmt.Errorf("replica status: %w", err)
	}
	if len(rows) == 0 {
		return flavor.ErrNotReplica
	}
	vals := make([]string, len(cols))
	for i, v := range rows[0] {
		if v != nil {
			vals[i] = *v
		}
	}
	st, err := flavor.ParseReplicaStatusColumns(cols, vals)
	if err != nil {
		return err
	}
	if strings.EqualFold(st.SQLRunning, "Yes") {
		return nil
	}
	msg := n.Server.ReplicaStatusColumn("Slave_SQL_Running") + "=" + st.SQLRunning
	if rerr := st.Err(); rerr != nil {
		msg += ": " + rerr.Error()
	}
	return errors.New(msg)
}

// lag reads how far n is behind the master, for the error of a slave that
// did not catch up. It never fails: what cannot be read is left empty.
func lag(ctx context.Context, master, n *server.Node) (string, *int64) {
	ctx, cancel := context.WithTimeout(ctx, StatementTimeout)
	defer cancel()
	st, _ := replication.GetStatus(ctx, master, []*server.Node{n})
	if st == nil || len(st.Slaves) != 1 {
		return "", nil
	}
	s := st.Slaves[0]
	if s.Lag == nil {
		return s.GTIDPosition, nil
	}
	return s.GTIDPosition, s.Lag.Transactions
}

func behindText(applied string, behind *int64) string {
	var parts []string
	if applied != "" {
		parts = append(parts, fmt.Sprintf("applied %s", applied))
	}
	if behind != nil {
		unit := "transactions"
		if *behind == 1 {
			unit = "transaction"
		}
		parts = append(parts, fmt.Sprintf("%d %s behind the master", *behind, unit))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
