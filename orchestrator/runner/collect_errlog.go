package runner

import (
	"context"
	dbsql "database/sql"
	"fmt"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// A manifest is input: the error log a run recorded for a database host is
// read as root, so collect does not take the manifest's word for where it
// is. Unless the inventory names mysql.error_log, the server itself is
// asked (@@log_error, relative to @@datadir): a path it does not confirm
// is refused, never fetched, whatever directory it is in.

// confirmErrorLogs checks every error log slice m expects against the
// servers; hosts maps names to their connections.
func confirmErrorLogs(ctx context.Context, c *cluster.Cluster, m *rundir.Manifest, hosts map[string]executor.Executor) error {
	asked := map[string]string{}
	for _, f := range m.Expected {
		if f.Kind != rundir.KindLogSlice || f.Local != rundir.HostFile(f.Host, rundir.HostErrorLog) || f.Done {
			continue
		}
		h := dbHost(c.Inventory, f.Host)
		if h == nil || h.MySQL.ErrorLog != "" {
			continue // rundir.Sources checked it against the inventory
		}
		want, ok := asked[f.Host]
		if !ok {
			var err error
			if want, err = serverErrorLog(ctx, c, h, hosts[f.Host]); err != nil {
				return fmt.Errorf("%s: %w: the server's error log: %w; set mysql.error_log in the inventory to collect it", h, ErrForeignSource, err)
			}
			asked[f.Host] = want
		}
		if f.Remote != want {
			return fmt.Errorf("%s: %w: the manifest's error log %s is not the one the server writes (%q): orch fetches only the server's own", h, ErrForeignSource, f.Remote, want)
		}
	}
	return nil
}

// serverErrorLog asks the server where its error log is ("" when it is
// not a file).
func serverErrorLog(ctx context.Context, c *cluster.Cluster, h *topology.Host, ex executor.Executor) (string, error) {
	if ex == nil {
		return "", fmt.Errorf("no connection")
	}
	open := c.DBOpener()
	if open == nil {
		d, ok := ex.(mysqlconn.Dialer)
		if !ok {
			return "", fmt.Errorf("no way to reach the server")
		}
		open = func(ctx context.Context, h *topology.Host, _ executor.Executor) (*dbsql.DB, error) {
			return mysqlconn.Open(ctx, d, h)
		}
	}
	db, err := open(ctx, h, ex)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var version, comment, datadir, pluginDir, logError string
	// The server package's own facts query, which every flavour answers.
	if err := db.QueryRowContext(ctx, "SELECT VERSION(), @@version_comment, @@datadir, @@plugin_dir, @@log_error").Scan(&version, &comment, &datadir, &pluginDir, &logError); err != nil {
		return "", err
	}
	return server.ErrorLogPath("", logError, datadir), nil
}

// dbHost is the database host of that name, or nil.
func dbHost(inv *topology.Inventory, name string) *topology.Host {
	for _, h := range inv.DBHosts() {
		if h.Name == name {
			return h
		}
	}
	return nil
}
