package up

import (
	"context"
	"database/sql"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/replication"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// What orch leaves on the servers after a plain down, and down --purge,
// which removes it: the schemas it and the benchmarks created, the binary
// logs and GTID history up turned on, and the accounts orch made itself
// (never one the inventory names), with their passwords in orch's state.

// purgedSchemas are the schemas orch creates: the benchmarks' and the
// replication canary's.
func purgedSchemas() []string {
	return append(append([]string(nil), account.BenchSchemas...), replication.CanarySchema)
}

// Left words what a plain down left behind, for its closing line.
func Left(inv *topology.Inventory) string {
	var parts []string
	if m := inv.Master(); m != nil && m.MySQL.Managed {
		parts = append(parts, "orch's accounts ("+m.MySQL.User+"@localhost and @127.0.0.1 on every server")
		if inv.Benchmark.Managed {
			parts[0] += ", " + inv.Benchmark.User + " on the master"
		}
		parts[0] += ")"
	} else if inv.Benchmark.Managed {
		parts = append(parts, "orch's benchmark account "+inv.Benchmark.User+" on the master")
	}
	parts = append(parts, "the schemas "+strings.Join(purgedSchemas(), ", ")+" where they exist", "the binary logs and GTID history")
	return strings.Join(parts, ", ") + "; orch down --purge removes them (accounts the inventory names are kept)"
}

// binlogFiles is where a server writes its binary log, read while up's
// config still has it on.
type binlogFiles struct{ base, index string }

// Purge is Down, then the removal of what Left lists, on every database
// host: nothing orch made stays behind, and the password files go too.
func Purge(ctx context.Context, c *cluster.Cluster, events *step.Stream) (*DownReport, error) {
	if events == nil {
		events = &step.Stream{} // Down and the purge on one stream
	}
	rec := newRecorder(events)
	defer rec.stop()
	sessions, err := openNodes(ctx, c, rec)
	if err != nil {
		return nil, err
	}
	nodes := sessions.DB()
	logs := make([]binlogFiles, len(nodes))
	for i, n := range nodes {
		var on int
		var base, index sql.NullString
		err := n.DB.QueryRowContext(ctx, "SELECT @@log_bin, @@log_bin_basename, @@log_bin_index").Scan(&on, &base, &index)
		switch {
		case err == nil && on == 1:
			logs[i] = binlogFiles{base.String, index.String}
		case err == nil:
			// Down already ran: the files are where orch's profiles put
			// them (log_bin = mysql-bin, in the datadir).
			b := path.Join(n.Facts.Datadir, "mysql-bin")
			logs[i] = binlogFiles{b, b + ".index"}
		}
	}

	rep, err := Down(ctx, c, events)
	if err != nil {
		return rep, err
	}
	// Down restarted the servers: the sessions serve on (a broken one is
	// opened again).
	if sessions, err = openNodes(ctx, c, rec); err != nil {
		return rep, err
	}
	nodes = sessions.DB()
	lines := make([][]string, len(nodes))
	errs := orchestrator.ForEach(ctx, 0, nodes, func(ctx context.Context, i int, n *server.Node) error {
		t0 := time.Now()
		var err error
		lines[i], err = purgeHost(ctx, c.Inventory, n, logs[i])
		rec.done(n.Host.Name, "purge", t0)
		return err
	})
	for i, n := range nodes {
		for _, l := range lines[i] {
			rep.Purged = append(rep.Purged, n.Host.Name+": "+l)
		}
	}
	if err := orchestrator.Aggregate(errs); err != nil {
		return rep, err
	}
	// The whole purge: its connects, Down's steps and its own.
	rep.Timings = rec.close()
	return rep, account.Forget(c.Inventory)
}

// purgeHost drops, on one server, what orch's record there lists (its
// schemas, tables and accounts, its own admin account last, through its
// own session, which a DROP USER does not end), the GTID history and the
// binary log files. It keeps, and says why, every account the inventory
// names and everything with one of orch's names that the record does not
// list. It returns one line per thing dropped or kept.
func purgeHost(ctx context.Context, inv *topology.Inventory, n *server.Node, logs binlogFiles) ([]string, error) {
	conn, err := n.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: purge: %w", n.Host, err)
	}
	defer conn.Close()
	f, err := account.Look(ctx, account.DB{DB: n.DB}, account.SealFor(inv, n.Host), purgeCandidates(inv, n.Host), purgedSchemas())
	if err != nil {
		return nil, fmt.Errorf("%s: purge: %w", n.Host, err)
	}
	if len(f.Forged) > 0 {
		// Rows orch did not write (their digest does not check): whoever
		// can write the record could have named anything, so nothing it
		// lists is dropped here, and orch's state is kept for a later purge.
		var names []string
		for _, it := range f.Forged {
			names = append(names, it.String())
		}
		line := fmt.Sprintf("dropped nothing: orch's record holds %d row(s) orch did not write (%s); remove them from %s.%s, then purge again",
			len(f.Forged), topology.CapJoin(names, maxListed, ", "), account.RecordSchema, account.RecordTable)
		return []string{line}, fmt.Errorf("%s: purge: %s", n.Host, line)
	}
	pl := planPurge(inv, n.Host, f)
	stmts := append([]string{"SET SESSION sql_log_bin = 0"}, pl.drops...)
	stmts = append(stmts, n.Server.GTIDReset().SQL)
	stmts = append(stmts, pl.accounts...)
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return pl.lines, fmt.Errorf("%s: purge: %s: %w", n.Host, s, err)
		}
	}
	return pl.lines, removeBinlogs(ctx, n, logs)
}

// removeBinlogs deletes the binary log files, their index and MariaDB's
// saved binlog state, once the server runs without them.
func removeBinlogs(ctx context.Context, n *server.Node, logs binlogFiles) error {
	if logs.base == "" {
		return nil
	}
	if !path.IsAbs(logs.base) || path.Dir(logs.base) == "/" {
		return fmt.Errorf("%s: purge: binary log base %q is not a file in a directory: remove its files by hand", n.Host, logs.base)
	}
	script := "b=" + shell.Quote(logs.base) + "\nrm -f -- \"$b\".[0-9]* \"$b\".state"
	if logs.index != "" {
		script += " " + shell.Quote(logs.index)
	}
	if _, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: 30 * time.Second}); err != nil {
		return fmt.Errorf("%s: purge: remove binary logs %s.*: %w", n.Host, logs.base, err)
	}
	return nil
}
