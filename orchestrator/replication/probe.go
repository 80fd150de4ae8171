package replication

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
)

// ProbeTimeout bounds each status query: a server that does not answer in
// time (a cut link, a stalled server) is reported, never waited for.
const ProbeTimeout = 10 * time.Second

// probe reads one server's facts. It never fails: what it cannot read
// lands in HostStatus.Error.
func probe(ctx context.Context, n *server.Node, role string) HostStatus {
	h := HostStatus{Role: role}
	if n == nil || n.Host == nil {
		h.Error = "no host"
		return h
	}
	h.Name, h.Address = n.Host.Name, n.Host.Address
	if n.DB == nil {
		h.Error = "not connected to its database"
		return h
	}
	var err error
	if role == roleMaster {
		err = readMaster(ctx, n, &h)
	} else {
		err = readSlave(ctx, n, &h)
	}
	if err != nil {
		h.Error = err.Error()
	}
	return h
}

// readCommon fills what every server reports and returns its flavour
// (detected here when the Node does not carry one).
func readCommon(ctx context.Context, n *server.Node, h *HostStatus) (flavor.Server, error) {
	t, err := queryTimeout(ctx, n.DB, ProbeTimeout,
		"SELECT VERSION(), @@version_comment, @@GLOBAL.read_only, @@GLOBAL.default_storage_engine")
	if err != nil {
		return flavor.Server{}, fmt.Errorf("server facts: %w", err)
	}
	if len(t.rows) != 1 || len(t.rows[0]) != 4 {
		return flavor.Server{}, fmt.Errorf("server facts: unexpected result shape")
	}
	r := t.rows[0]
	h.Version, h.DefaultEngine = r[0].String, r[3].String
	ro := r[2].String == "1" || strings.EqualFold(r[2].String, "ON")
	h.ReadOnly = &ro
	srv := n.Server
	if srv.Flavor == "" {
		if srv, err = flavor.Detect(r[0].String, r[1].String); err != nil {
			return srv, err
		}
	}
	h.Server, h.srv = srv.String(), srv
	return srv, nil
}

func readMaster(ctx context.Context, n *server.Node, h *HostStatus) error {
	srv, err := readCommon(ctx, n, h)
	if err != nil {
		return err
	}
	names := srv.SemiSync()
	status, enabled, err := readSemiSync(ctx, n.DB, srv.MasterSemiSyncStatusQuery(), names.MasterEnabled)
	if err != nil {
		return err
	}
	ss := &SemiSyncStatus{Enabled: enabled, Active: isOn(status, names.MasterStatus)}
	ss.Clients = statusInt(status, names.MasterClients)
	ss.YesTx = statusInt(status, names.MasterYesTx)
	ss.NoTx = statusInt(status, names.MasterNoTx)
	h.SemiSync = ss
	pos, err := queryTimeout(ctx, n.DB, ProbeTimeout, srv.MasterGTIDQuery())
	if err != nil {
		return fmt.Errorf("GTID position: %w", err)
	}
	h.GTIDPosition = normGTID(pos.value())
	return nil
}

func readSlave(ctx context.Context, n *server.Node, h *HostStatus) error {
	srv, err := readCommon(ctx, n, h)
	if err != nil {
		return err
	}
	rs, ok, err := readReplica(ctx, n.DB, srv)
	if err != nil {
		return err
	}
	if ok {
		h.Replica = replicaState(rs)
		h.Lag = &Lag{Seconds: rs.SecondsBehind}
	}
	names := srv.SemiSync()
	status, enabled, err := readSemiSync(ctx, n.DB, srv.SlaveSemiSyncStatusQuery(), names.SlaveEnabled)
	if err != nil {
		return err
	}
	h.SemiSync = &SemiSyncStatus{Enabled: enabled, Active: isOn(status, names.SlaveStatus)}
	pos, err := queryTimeout(ctx, n.DB, ProbeTimeout, srv.SlaveGTIDQuery())
	if err != nil {
		return fmt.Errorf("GTID position: %w", err)
	}
	h.GTIDPosition = normGTID(pos.value())
	return nil
}

// readReplica reads SHOW SLAVE/REPLICA STATUS; ok is false when the server
// replicates from nowhere (no row).
func readReplica(ctx context.Context, q sqlrows.Querier, srv flavor.Server) (flavor.ReplicaStatus, bool, error) {
	t, err := queryTimeout(ctx, q, ProbeTimeout, srv.ReplicaStatusQuery())
	if err != nil {
		return flavor.ReplicaStatus{}, false, fmt.Errorf("replica status: %w", err)
	}
	if len(t.rows) == 0 {
		return flavor.ReplicaStatus{}, false, nil
	}
	vals := make([]string, len(t.cols))
	for i, v := range t.rows[0] {
		vals[i] = v.String // NULL reads as "", which the parser takes as NULL
	}
	rs, err := flavor.ParseReplicaStatusColumns(t.cols, vals)
	if err != nil {
		return rs, false, err
	}
	return rs, true, nil
}

// readSemiSync returns one side's status variables and whether its
// _enabled setting is ON (false where the variable does not exist, as on
// MySQL before the plugin is installed).
func readSemiSync(ctx context.Context, q sqlrows.Querier, statusQuery, enabledVar string) (map[string]string, bool, error) {
	st, err := queryTimeout(ctx, q, ProbeTimeout, statusQuery)
	if err != nil {
		return nil, false, fmt.Errorf("semi-sync status: %w", err)
	}
	vars, err := queryTimeout(ctx, q, ProbeTimeout, flavor.VariablesQuery([]flavor.Setting{{Name: enabledVar}}))
	if err != nil {
		return nil, false, fmt.Errorf("semi-sync settings: %w", err)
	}
	return st.nameValues(), isOn(vars.nameValues(), enabledVar), nil
}

func replicaState(rs flavor.ReplicaStatus) *ReplicaState {
	mode := rs.UsingGTID
	if rs.AutoPosition {
		mode = "AUTO_POSITION"
	} else if mode == "" {
		mode = "No"
	}
	return &ReplicaState{
		MasterHost: rs.MasterHost, MasterPort: rs.MasterPort, User: rs.MasterUser,
		IORunning: rs.IORunning, SQLRunning: rs.SQLRunning, IOState: rs.IOState,
		LastIOErrno: rs.LastIOErrno, LastIOError: rs.LastIOError,
		LastSQLErrno: rs.LastSQLErrno, LastSQLError: rs.LastSQLError,
		GTIDMode: mode,
	}
}

func isOn(vars map[string]string, name string) bool {
	v, _ := lookup(vars, name)
	return strings.EqualFold(v, "ON") || v == "1"
}

func statusInt(vars map[string]string, name string) *int64 {
	v, ok := lookup(vars, name)
	if !ok {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

// normGTID drops the newlines MySQL prints after commas in GTID sets.
func normGTID(s string) string { return strings.Join(strings.Fields(s), "") }

// readAccount reports whether the account exists (mysql.user is a view on
// MariaDB 10.4+ and a table elsewhere; both answer this).
func readAccount(ctx context.Context, c *sql.Conn, user, host string) (bool, error) {
	t, err := queryTimeout(ctx, c, StatementTimeout, "SELECT 1 FROM mysql.user WHERE User = "+
		flavor.QuoteString(user)+" AND Host = "+flavor.QuoteString(host))
	if err != nil {
		return false, fmt.Errorf("look up account: %w", err)
	}
	return len(t.rows) > 0, nil
}
