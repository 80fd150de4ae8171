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

// waitSlice is how often, while a slave catches up, its replication threads
// are looked at: a slave whose SQL thread stopped fails in seconds instead
// of after the whole timeout.
const waitSlice = 2 * time.Second

// pollEvery is how often a slave's executed position is read while it
// catches up: the resolution of catch_up_ns (plus one round trip).
const pollEvery = 25 * time.Millisecond

// WaitCaughtUp is WaitCaughtUpSince timed from now: for waits that do not
// follow a load.
func WaitCaughtUp(ctx context.Context, master *server.Node, slaves []*server.Node, timeout time.Duration) (*CatchUp, error) {
	return WaitCaughtUpSince(ctx, master, slaves, time.Now(), timeout)
}

// WaitCaughtUpSince reads the master's GTID position (the load has ended:
// it is final) and polls each slave's executed position, up to timeout,
// until it covers the master's: semi-sync acknowledges on receipt, not on
// apply, so after a write-heavy run the slaves can be minutes behind. Each
// slave's catch-up is timed from loadEnd, when the benchmark ended, so a
// wait that begins late (after the monitors stop) does not shorten it. A
// slave whose SQL thread is not running fails at once. The error names
// each slave that did not catch up and how far behind it is; the CatchUp is
// returned whenever the master's position was read.
func WaitCaughtUpSince(ctx context.Context, master *server.Node, slaves []*server.Node, loadEnd time.Time, timeout time.Duration) (*CatchUp, error) {
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
	if v != nil {
		pos = normGTID(*v)
	}
	end := loadEnd.UTC()
	cu := &CatchUp{MasterGTID: pos, LoadEnd: &end, Slaves: make([]SlaveCatchUp, len(slaves))}
	deadline := time.Now().Add(timeout)
	errs := orchestrator.ForEach(ctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		start := time.Now()
		at, behind, err := awaitApplied(ctx, n, pos, deadline, timeout)
		s := SlaveCatchUp{Host: n.String(), Waited: time.Since(start), CaughtUp: err == nil, BehindAtWaitTx: behind}
		if err == nil {
			d := max(at.Sub(loadEnd), 0)
			s.CatchUpNs = &d
		} else {
			s.BehindAtWaitTx = nil
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

// normGTID joins the lines MySQL prints multi-UUID sets over.
func normGTID(s string) string { return strings.Join(strings.Fields(s), "") }

// awaitApplied polls n's executed position until it covers pos or the
// deadline passes, checking every waitSlice that n can still get there.
// It returns when the covering position was read and how many
// transactions n lacked at the first read.
func awaitApplied(ctx context.Context, n *server.Node, pos string, deadline time.Time, timeout time.Duration) (time.Time, *int64, error) {
	var first *int64
	checked := time.Now()
	for {
		v, err := queryValue(ctx, n.DB, StatementTimeout, n.Server.SlaveGTIDQuery())
		at := time.Now()
		if err != nil {
			return at, first, fmt.Errorf("read executed GTID position: %w", err)
		}
		applied := ""
		if v != nil {
			applied = normGTID(*v)
		}
		gap := int64(0)
		if pos != "" { // "": the master has written nothing to wait for
			if gap, err = n.Server.GTIDGap(pos, applied); err != nil {
				return at, first, err
			}
		}
		if first == nil {
			first = &gap
		}
		if gap == 0 {
			return at, first, nil
		}
		if !at.Before(deadline) {
			return at, first, fmt.Errorf("has not applied the master's GTID %s within %s", pos, timeout)
		}
		if at.Sub(checked) >= waitSlice {
			checked = at
			if err := stillReplicating(ctx, n); err != nil {
				return at, first, fmt.Errorf("cannot catch up with the master's GTID %s: %w", pos, err)
			}
		}
		select {
		case <-ctx.Done():
			return at, first, ctx.Err()
		case <-time.After(min(pollEvery, time.Until(deadline))):
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
