package replication

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// Teardown returns the servers to standalone (for `orch down`): semi-sync
// off on the master first, so that no write waits for slaves about to go;
// then on every slave in parallel, replication stopped and forgotten and
// semi-sync off; last, the replication account dropped with binary logging
// off, unless p.ReplAccountKept says it is not orch's. Only p.ReplUser,
// p.ReplHost and p.ReplAccountKept are used (defaults: 'repl'@'%').
//
// Only what is still set up is undone, so a second run sends nothing.
// Teardown goes on past a failing host and reports every failure.
func Teardown(ctx context.Context, master *server.Node, slaves []*server.Node, p flavor.Params, events *step.Stream) (*Result, error) {
	start := time.Now()
	if err := checkNodes(master, slaves); err != nil {
		return nil, fmt.Errorf("replication teardown: %w", err)
	}
	if p.ReplUser == "" {
		p.ReplUser = flavor.DefaultReplUser
	}
	if p.ReplHost == "" {
		p.ReplHost = flavor.DefaultReplHost
	}
	res := &Result{}
	var errs []error
	add := func(steps []step.Record, err error, n *server.Node) {
		res.Steps = append(res.Steps, steps...)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", n, err))
		}
	}

	mq := sequence(master, events)
	err := withConn(ctx, master.DB, func(c *sql.Conn) error {
		return do(ctx, mq, StepDisableSemiSync, func(ctx context.Context) (step.Outcome, error) {
			return disableSemiSync(ctx, c, master.Server.SemiSync().MasterEnabled, master.Server.MasterTeardown())
		})
	})
	add(mq.Records, err, master)

	per := make([][]step.Record, len(slaves))
	serrs := orchestrator.ForEach(ctx, len(slaves), slaves, func(ctx context.Context, i int, n *server.Node) error {
		var err error
		per[i], err = teardownSlave(ctx, n, events)
		return err
	})
	for i, n := range slaves {
		add(per[i], serrs[i], n)
	}

	mq = sequence(master, events)
	err = withConn(ctx, master.DB, func(c *sql.Conn) error {
		return do(ctx, mq, StepDropAccount, func(ctx context.Context) (step.Outcome, error) {
			if p.ReplAccountKept != "" {
				return step.Outcome{Action: step.Skipped, Reason: "account kept: " + p.ReplAccountKept}, nil
			}
			return dropAccount(ctx, c, p.ReplUser, p.ReplHost)
		})
	})
	add(mq.Records, err, master)

	res.Duration = time.Since(start)
	return res, orchestrator.Aggregate(errs)
}

// teardownSlave's steps have no undo: down is itself the undo of up.
func teardownSlave(ctx context.Context, n *server.Node, events *step.Stream) ([]step.Record, error) {
	q := sequence(n, events)
	err := withConn(ctx, n.DB, func(c *sql.Conn) error {
		stop, semi := n.Server.StopReplication(), n.Server.SlaveSemiSyncOff()
		if err := do(ctx, q, StepStopReplica, func(ctx context.Context) (step.Outcome, error) {
			rs, isReplica, err := readReplica(ctx, c, n.Server)
			if err != nil {
				return step.Outcome{}, err
			}
			if !isReplica {
				return step.Outcome{Action: step.Skipped, Reason: "not a replica"}, nil
			}
			ran, err := run(ctx, c, stop)
			return step.Outcome{Action: step.Applied, Reason: fmt.Sprintf("replicated from %s:%d", rs.MasterHost, rs.MasterPort), Statements: ran}, err
		}); err != nil {
			return err
		}
		return do(ctx, q, StepDisableSemiSync, func(ctx context.Context) (step.Outcome, error) {
			return disableSemiSync(ctx, c, n.Server.SemiSync().SlaveEnabled, semi)
		})
	})
	return q.Records, err
}

// disableSemiSync runs plan unless the enabled variable is already OFF or
// does not exist (MySQL without the plugin).
func disableSemiSync(ctx context.Context, c *sql.Conn, enabledVar string, plan []flavor.Statement) (step.Outcome, error) {
	vars, err := queryTimeout(ctx, c, StatementTimeout, flavor.VariablesQuery([]flavor.Setting{{Name: enabledVar}}))
	if err != nil {
		return step.Outcome{}, fmt.Errorf("read settings: %w", err)
	}
	if !isOn(vars.nameValues(), enabledVar) {
		return step.Outcome{Action: step.Skipped, Reason: enabledVar + " is already OFF"}, nil
	}
	ran, err := run(ctx, c, plan)
	return step.Outcome{Action: step.Applied, Reason: enabledVar + " was ON", Statements: ran}, err
}

// dropAccount drops the replication account, unlogged like its creation.
func dropAccount(ctx context.Context, c *sql.Conn, user, host string) (step.Outcome, error) {
	exists, err := readAccount(ctx, c, user, host)
	if err != nil {
		return step.Outcome{}, err
	}
	acct := flavor.QuoteString(user) + "@" + flavor.QuoteString(host)
	if !exists {
		return step.Outcome{Action: step.Skipped, Reason: "no account " + acct}, nil
	}
	ran, err := run(ctx, c, dropAccountPlan(user, host))
	return step.Outcome{Action: step.Applied, Reason: "account " + acct + " existed", Statements: ran}, err
}

// dropAccountPlan drops an account with binary logging off, as it was made.
func dropAccountPlan(user, host string) []flavor.Statement {
	return []flavor.Statement{
		plain("SET SESSION sql_log_bin = 0"),
		plain("DROP USER IF EXISTS " + flavor.QuoteString(user) + "@" + flavor.QuoteString(host)),
		plain("SET SESSION sql_log_bin = 1"),
	}
}
