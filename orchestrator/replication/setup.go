package replication

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// Setup makes the slaves semi-synchronous GTID replicas of master, changing
// only what is not already right: run again on a working cluster it sends
// no STOP, START, RESET or CHANGE at all.
//
// The master comes first (replication account, created with binary logging
// off so that it can neither block on semi-sync nor replicate; then the
// semi-sync settings), then every slave in parallel. p.MasterHost and
// p.MasterPort default to the master's inventory address and MySQL port,
// which is how the slaves reach it. p.Fresh wipes a slave's binary logs and
// GTID state only when it is not already a replica of this master: one that
// is holds the master's data, and would re-apply it from the start.
//
// Each host's work is a step sequence. When a host fails (or on Ctrl-C),
// what this Setup changed is taken back, slaves first, then the master, on
// a context of its own: an account it created is dropped, the master's
// semi-sync settings go back to their values, a slave it made a replica
// forgets its master. Nothing is half wired.
//
// The Result lists every step and undo, also when the error is not nil.
func Setup(ctx context.Context, master *server.Node, slaves []*server.Node, p flavor.Params, events *step.Stream) (*Result, error) {
	start := time.Now()
	if err := checkNodes(master, slaves); err != nil {
		return nil, fmt.Errorf("replication setup: %w", err)
	}
	p, err := masterParams(master, p)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	defer func() { res.Duration = time.Since(start) }()
	mq := sequence(master, events)
	if err := setupMaster(ctx, mq, master, p); err != nil {
		return res.rollBack(ctx, mq, nil, fmt.Errorf("%s: %w", master, err))
	}
	sqs := make([]*step.Sequence, len(slaves))
	errs := orchestrator.ForEach(ctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		sqs[i] = sequence(n, events)
		if err := setupSlave(ctx, sqs[i], n, p); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		return nil
	})
	if err := orchestrator.Aggregate(errs); err != nil || ctx.Err() != nil {
		if err == nil {
			err = fmt.Errorf("replication setup: %w", ctx.Err())
		}
		return res.rollBack(ctx, mq, sqs, err)
	}
	res.add(mq)
	for _, q := range sqs {
		res.add(q)
	}
	return res, nil
}

// rollBack takes back what the slaves' sequences and then the master's did,
// and words err with the outcome. The master's undo comes last: a slave
// must stop replicating before its account goes.
func (r *Result) rollBack(ctx context.Context, master *step.Sequence, slaves []*step.Sequence, err error) (*Result, error) {
	done := len(master.Records)
	r.Steps = append(r.Steps, master.Records...)
	// The Ctrl-C that stopped the setup must not stop its undoing (each
	// sequence bounds its own undo).
	uerrs := orchestrator.ForEach(context.WithoutCancel(ctx), 0, slaves, func(ctx context.Context, _ int, q *step.Sequence) error {
		if q == nil {
			return nil
		}
		if err := q.Undo(ctx); err != nil {
			return fmt.Errorf("%s: %w", q.Host, err)
		}
		return nil
	})
	for _, q := range slaves {
		r.add(q)
	}
	if merr := master.Undo(ctx); merr != nil {
		uerrs = append(uerrs, fmt.Errorf("%s: %w", master.Host, merr))
	}
	r.Steps = append(r.Steps, master.Records[done:]...)
	if uerr := orchestrator.Aggregate(uerrs); uerr != nil {
		return r, errors.Join(err, fmt.Errorf("undoing the replication setup also failed: %w", uerr))
	}
	if !r.undid() {
		return r, err
	}
	r.Undone = true
	return r, fmt.Errorf("%w (what replication setup had changed was undone)", err)
}

// undid reports whether any step was taken back.
func (r *Result) undid() bool {
	for _, s := range r.Steps {
		if s.Action == step.Undone {
			return true
		}
	}
	return false
}

// add files q's records, in the order they happened.
func (r *Result) add(q *step.Sequence) {
	if q != nil {
		r.Steps = append(r.Steps, q.Records...)
	}
}

// sequence is n's replication steps, said on events as they begin and end.
func sequence(n *server.Node, events *step.Stream) *step.Sequence {
	return &step.Sequence{Host: n.String(), Events: step.HostEvents{Stream: events, Host: n.Host.Name}, UndoTimeout: undoTimeout}
}

// undoTimeout bounds one host's replication undo: a few statements each
// under StatementTimeout.
const undoTimeout = 2 * time.Minute

// do runs fn as step name of q, its error prefixed with the step.
func do(ctx context.Context, q *step.Sequence, name string, fn func(context.Context) (step.Outcome, error)) error {
	err := q.Do(ctx, step.Step{Name: name, Decide: fn})
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// undoSQL runs plan on a session of its own (the step's is gone by then),
// once ran says the step changed something: a step whose first statement
// failed has nothing to take back.
func undoSQL(ran []string, n *server.Node, plan []flavor.Statement) func(context.Context) error {
	if len(ran) == 0 {
		return nil
	}
	return func(ctx context.Context) error {
		return withConn(ctx, n.DB, func(c *sql.Conn) error {
			_, err := run(ctx, c, plan)
			return err
		})
	}
}

// masterParams fills the master's address in p and validates it.
func masterParams(master *server.Node, p flavor.Params) (flavor.Params, error) {
	host, port := master.Host.Address, mysqlPort(master.Host)
	if p.MasterHost != "" && p.MasterHost != host || p.MasterPort != 0 && p.MasterPort != port {
		return p, fmt.Errorf("replication setup: master address %s:%d differs from the inventory's %s:%d",
			p.MasterHost, p.MasterPort, host, port)
	}
	p.MasterHost, p.MasterPort = host, port
	p, err := p.Resolve()
	if err != nil {
		return p, fmt.Errorf("replication setup: %w", err)
	}
	return p, nil
}

func setupMaster(ctx context.Context, q *step.Sequence, n *server.Node, p flavor.Params) error {
	return withConn(ctx, n.DB, func(c *sql.Conn) error {
		if err := do(ctx, q, StepAccount, func(ctx context.Context) (step.Outcome, error) {
			return ensureAccount(ctx, c, n, p)
		}); err != nil {
			return err
		}
		return do(ctx, q, StepMasterSemiSync, func(ctx context.Context) (step.Outcome, error) {
			return masterSemiSync(ctx, c, n, p)
		})
	})
}

// ensureAccount creates or re-asserts the replication account. Its
// password cannot be read back to compare, so an existing account gets it
// set again; with binary logging off that changes nothing elsewhere. Only
// an account it created is dropped by its undo.
func ensureAccount(ctx context.Context, c *sql.Conn, n *server.Node, p flavor.Params) (step.Outcome, error) {
	exists, err := readAccount(ctx, c, p.ReplUser, p.ReplHost)
	if err != nil {
		return step.Outcome{}, err
	}
	if exists && p.ReplAccountKept != "" {
		return step.Outcome{Action: step.Skipped, Reason: "account exists, used as it is: " + p.ReplAccountKept}, nil
	}
	plan, err := n.Server.ReplUser(p)
	if err != nil {
		return step.Outcome{}, err
	}
	ran, err := run(ctx, c, plan)
	if !exists {
		return step.Outcome{Action: step.Applied, Reason: "account did not exist (created with binary logging off)", Statements: ran,
			Undo: undoSQL(ran, n, dropAccountPlan(p.ReplUser, p.ReplHost))}, err
	}
	return step.Outcome{Action: step.Ensured, Reason: "account exists; password and grants re-asserted with binary logging off", Statements: ran}, err
}

// masterSemiSync applies the master's semi-sync settings unless they all
// hold already; its undo sets each back to the value it had (a setting
// that did not exist, its plugin not loaded yet, is turned off).
func masterSemiSync(ctx context.Context, c *sql.Conn, n *server.Node, p flavor.Params) (step.Outcome, error) {
	srv := n.Server
	want, err := srv.MasterSemiSyncSettings(p)
	if err != nil {
		return step.Outcome{}, err
	}
	cur, err := queryTimeout(ctx, c, StatementTimeout, flavor.VariablesQuery(want))
	if err != nil {
		return step.Outcome{}, fmt.Errorf("read settings: %w", err)
	}
	before := cur.nameValues()
	diff := settingsDiff(want, before)
	if len(diff) == 0 {
		return step.Outcome{Action: step.Skipped, Reason: "already set: " + settingsText(want)}, nil
	}
	plan, err := srv.MasterSemiSync(p)
	if err != nil {
		return step.Outcome{}, err
	}
	ran, err := run(ctx, c, plan)
	return step.Outcome{Action: step.Applied, Reason: strings.Join(diff, "; "), Statements: ran,
		Undo: undoSQL(ran, n, revertPlan(srv, want, before))}, err
}

// revertPlan sets want's settings back to their values in before, newest
// first (enabling came last, so it is taken back first); one absent
// before (its plugin was loaded by the step) is turned off where it is
// the master's switch, and left at its default otherwise.
func revertPlan(srv flavor.Server, want []flavor.Setting, before map[string]string) []flavor.Statement {
	var out []flavor.Statement
	for i := len(want) - 1; i >= 0; i-- {
		s := want[i]
		if v, ok := lookup(before, s.Name); ok {
			out = append(out, flavor.SetGlobal(flavor.Setting{Name: s.Name, Value: v}))
		} else if s.Name == srv.SemiSync().MasterEnabled {
			out = append(out, srv.MasterTeardown()...)
		}
	}
	return out
}

// settingsDiff lists the settings whose current value differs.
func settingsDiff(want []flavor.Setting, cur map[string]string) []string {
	var out []string
	for _, s := range want {
		v, ok := lookup(cur, s.Name)
		switch {
		case !ok:
			out = append(out, s.Name+" does not exist yet, want "+s.Value)
		case !strings.EqualFold(v, s.Value):
			out = append(out, fmt.Sprintf("%s=%s, want %s", s.Name, v, s.Value))
		}
	}
	return out
}

func settingsText(ss []flavor.Setting) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = s.String()
	}
	return strings.Join(parts, ", ")
}

// setupSlave makes n a semi-sync replica of p's master unless it is one.
// Its undo: a server that was no replica forgets its master again, and
// semi-sync enabled by the step (not by its option file) is turned off.
// A server that already replicated (from this master with a thread down,
// or from another source) is left replicating from this master: its
// earlier source's password cannot be read back to restore it.
func setupSlave(ctx context.Context, q *step.Sequence, n *server.Node, p flavor.Params) error {
	return withConn(ctx, n.DB, func(c *sql.Conn) error {
		srv := n.Server
		names := srv.SemiSync()
		rs, isReplica, err := readReplica(ctx, c, srv)
		var status map[string]string
		var enabled bool
		if err == nil {
			status, enabled, err = readSemiSync(ctx, c, srv.SlaveSemiSyncStatusQuery(), names.SlaveEnabled)
		}
		if err != nil {
			return do(ctx, q, StepReplica, func(context.Context) (step.Outcome, error) {
				return step.Outcome{Reason: "could not read the replica's state"}, err
			})
		}
		active := isOn(status, names.SlaveStatus)
		wrong := replicaMismatch(srv, rs, isReplica, p)
		if len(wrong) == 0 {
			wrong = append(wrong, threadProblem(srv.ReplicaStatusColumn("Slave_IO_Running"), rs.IORunning, rs.LastIOErrno, rs.LastIOError)...)
			wrong = append(wrong, threadProblem(srv.ReplicaStatusColumn("Slave_SQL_Running"), rs.SQLRunning, rs.LastSQLErrno, rs.LastSQLError)...)
		}
		switch {
		case len(wrong) == 0 && enabled && active:
			return do(ctx, q, StepReplica, func(context.Context) (step.Outcome, error) {
				return step.Outcome{Action: step.Skipped, Reason: fmt.Sprintf("replicating from %s:%d as %s by GTID, both threads running, semi-sync active",
					p.MasterHost, p.MasterPort, p.ReplUser)}, nil
			})
		case len(wrong) == 0:
			// Replication is right; only the semi-sync registration is
			// missing, which needs no reset, only an IO thread reconnect.
			return do(ctx, q, StepReplicaSemiSync, func(ctx context.Context) (step.Outcome, error) {
				ran, err := run(ctx, c, srv.EnableSlaveSemiSync())
				out := step.Outcome{Action: step.Applied, Statements: ran,
					Reason: fmt.Sprintf("semi-sync not active (enabled=%s): enable it and reconnect the IO thread", onOff(enabled))}
				if !enabled {
					out.Undo = undoSQL(ran, n, append(srv.SlaveSemiSyncOff(), srv.IOThreadRestart()...))
				}
				return out, err
			})
		}
		return do(ctx, q, StepReplica, func(ctx context.Context) (step.Outcome, error) {
			pp := p
			if isReplica && rs.MasterHost == p.MasterHost && rs.MasterPort == p.MasterPort {
				pp.Fresh = false // it holds this master's data: keep its position
			}
			plan, err := srv.SlaveSetup(pp)
			if err != nil {
				return step.Outcome{}, err
			}
			ran, err := run(ctx, c, plan)
			out := step.Outcome{Action: step.Applied, Reason: strings.Join(wrong, "; "), Statements: ran}
			if !isReplica {
				undo := srv.StopReplication()
				if !enabled {
					undo = append(undo, srv.SlaveSemiSyncOff()...)
				}
				out.Undo = undoSQL(ran, n, undo)
			}
			return out, err
		})
	})
}

// replicaMismatch lists how the slave's replication configuration differs
// from what p asks for (nothing: it replicates from the right master, as
// the right user, by GTID).
func replicaMismatch(srv flavor.Server, rs flavor.ReplicaStatus, isReplica bool, p flavor.Params) []string {
	if !isReplica {
		return []string{"not a replica"}
	}
	var out []string
	if rs.MasterHost != p.MasterHost || rs.MasterPort != p.MasterPort {
		out = append(out, fmt.Sprintf("replicates from %s:%d, want %s:%d", rs.MasterHost, rs.MasterPort, p.MasterHost, p.MasterPort))
	}
	if rs.MasterUser != p.ReplUser {
		out = append(out, fmt.Sprintf("replication user %q, want %q", rs.MasterUser, p.ReplUser))
	}
	if srv.UsesMariaDBGTID() {
		if !strings.EqualFold(rs.UsingGTID, "Slave_Pos") {
			out = append(out, fmt.Sprintf("Using_Gtid=%s, want Slave_Pos", rs.UsingGTID))
		}
	} else if !rs.AutoPosition {
		out = append(out, "Auto_Position=0, want 1")
	}
	return out
}
