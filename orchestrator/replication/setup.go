package replication

import (
	"context"
	"database/sql"
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
// The Result lists every step, also when the error is not nil.
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
	steps, err := setupMaster(ctx, master, p, events)
	res.Steps = append(res.Steps, steps...)
	if err != nil {
		res.Duration = time.Since(start)
		return res, fmt.Errorf("%s: %w", master, err)
	}
	per := make([][]step.Record, len(slaves))
	errs := orchestrator.ForEach(ctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		var err error
		if per[i], err = setupSlave(ctx, n, p, events); err != nil {
			return fmt.Errorf("%s: %w", n, err)
		}
		return nil
	})
	for _, s := range per {
		res.Steps = append(res.Steps, s...)
	}
	res.Duration = time.Since(start)
	return res, orchestrator.Aggregate(errs)
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

func setupMaster(ctx context.Context, n *server.Node, p flavor.Params, events *step.Stream) ([]step.Record, error) {
	sp := newStepper(n, events)
	err := withConn(ctx, n.DB, func(c *sql.Conn) error {
		if err := sp.do(StepAccount, func() (step.Action, string, []string, error) {
			return ensureAccount(ctx, c, n.Server, p)
		}); err != nil {
			return err
		}
		return sp.do(StepMasterSemiSync, func() (step.Action, string, []string, error) {
			return masterSemiSync(ctx, c, n.Server, p)
		})
	})
	return sp.steps, err
}

// ensureAccount creates or re-asserts the replication account. Its
// password cannot be read back to compare, so an existing account gets it
// set again; with binary logging off that changes nothing elsewhere.
func ensureAccount(ctx context.Context, c *sql.Conn, srv flavor.Server, p flavor.Params) (step.Action, string, []string, error) {
	exists, err := readAccount(ctx, c, p.ReplUser, p.ReplHost)
	if err != nil {
		return step.Failed, "", nil, err
	}
	if exists && p.ReplAccountKept != "" {
		return step.Skipped, "account exists, used as it is: " + p.ReplAccountKept, nil, nil
	}
	plan, err := srv.ReplUser(p)
	if err != nil {
		return step.Failed, "", nil, err
	}
	ran, err := run(ctx, c, plan)
	if !exists {
		return step.Applied, "account did not exist (created with binary logging off)", ran, err
	}
	return step.Ensured, "account exists; password and grants re-asserted with binary logging off", ran, err
}

// masterSemiSync applies the master's semi-sync settings unless they all
// hold already.
func masterSemiSync(ctx context.Context, c *sql.Conn, srv flavor.Server, p flavor.Params) (step.Action, string, []string, error) {
	want, err := srv.MasterSemiSyncSettings(p)
	if err != nil {
		return step.Failed, "", nil, err
	}
	cur, err := queryTimeout(ctx, c, StatementTimeout, flavor.VariablesQuery(want))
	if err != nil {
		return step.Failed, "", nil, fmt.Errorf("read settings: %w", err)
	}
	diff := settingsDiff(want, cur.nameValues())
	if len(diff) == 0 {
		return step.Skipped, "already set: " + settingsText(want), nil, nil
	}
	plan, err := srv.MasterSemiSync(p)
	if err != nil {
		return step.Failed, "", nil, err
	}
	ran, err := run(ctx, c, plan)
	return step.Applied, strings.Join(diff, "; "), ran, err
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

func setupSlave(ctx context.Context, n *server.Node, p flavor.Params, events *step.Stream) ([]step.Record, error) {
	sp := newStepper(n, events)
	err := withConn(ctx, n.DB, func(c *sql.Conn) error {
		srv := n.Server
		names := srv.SemiSync()
		rs, isReplica, err := readReplica(ctx, c, srv)
		var status map[string]string
		var enabled bool
		if err == nil {
			status, enabled, err = readSemiSync(ctx, c, srv.SlaveSemiSyncStatusQuery(), names.SlaveEnabled)
		}
		if err != nil {
			return sp.do(StepReplica, func() (step.Action, string, []string, error) {
				return step.Failed, "could not read the replica's state", nil, err
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
			return sp.do(StepReplica, func() (step.Action, string, []string, error) {
				return step.Skipped, fmt.Sprintf("replicating from %s:%d as %s by GTID, both threads running, semi-sync active",
					p.MasterHost, p.MasterPort, p.ReplUser), nil, nil
			})
		case len(wrong) == 0:
			// Replication is right; only the semi-sync registration is
			// missing, which needs no reset, only an IO thread reconnect.
			return sp.do(StepReplicaSemiSync, func() (step.Action, string, []string, error) {
				ran, err := run(ctx, c, srv.EnableSlaveSemiSync())
				return step.Applied, fmt.Sprintf("semi-sync not active (enabled=%s): enable it and reconnect the IO thread", onOff(enabled)), ran, err
			})
		}
		return sp.do(StepReplica, func() (step.Action, string, []string, error) {
			pp := p
			if isReplica && rs.MasterHost == p.MasterHost && rs.MasterPort == p.MasterPort {
				pp.Fresh = false // it holds this master's data: keep its position
			}
			plan, err := srv.SlaveSetup(pp)
			if err != nil {
				return step.Failed, "", nil, err
			}
			ran, err := run(ctx, c, plan)
			return step.Applied, strings.Join(wrong, "; "), ran, err
		})
	})
	return sp.steps, err
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
