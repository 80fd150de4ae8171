package monitor

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/sqlrows"
	"github.com/orch-bench/orch/topology"
)

// sqlSource reads one server per sample: SHOW GLOBAL STATUS of a fixed
// name list, the GTID position with flavor's MasterGTIDQuery or
// SlaveGTIDQuery, and on a slave SHOW SLAVE STATUS (MariaDB's has no
// applied-GTID column). SHOW GLOBAL VARIABLES costs as much as SHOW STATUS
// (the server builds every variable before filtering), so the master's
// semi-sync enabled setting is read only when its status changes. The
// SELECT counts in Com_select: the source counts its own, and the rows
// leave them out.
type sqlSource struct {
	db       *sql.DB
	statusQ  string
	gtidQ    string
	replicaQ string
	names    *serverNames
	enabledQ string // master only
	// binlogQ reads the binary log's bytes where SHOW STATUS lacks them
	// (MySQL, Percona: the Performance Schema); "" on MariaDB.
	binlogQ string

	selects     uint64 // SELECTs sent so far
	enabled     string
	haveEnabled bool
	lastStatus  string
}

func newSQLSource(db *sql.DB, srv flavor.Server, role topology.Role, n *serverNames) *sqlSource {
	s := &sqlSource{db: db, names: n, statusQ: "SHOW GLOBAL STATUS" + whereNameIn(n.statusNames()), gtidQ: srv.SlaveGTIDQuery(),
		binlogQ: srv.BinlogBytesQuery()}
	if role == topology.RoleMaster {
		s.gtidQ = srv.MasterGTIDQuery()
		if n.semiEnabled != "" {
			s.enabledQ = "SHOW GLOBAL VARIABLES" + whereNameIn([]string{n.semiEnabled})
		}
	} else {
		s.replicaQ = srv.ReplicaStatusQuery()
	}
	return s
}

func whereNameIn(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = flavor.QuoteString(n)
	}
	return " WHERE Variable_name IN (" + strings.Join(q, ", ") + ")"
}

func (s *sqlSource) fetch(ctx context.Context) (mysqlRaw, error) {
	raw := mysqlRaw{Vars: map[string]string{}, OwnSelects: s.selects}
	var err error
	if raw.Status, err = queryPairs(ctx, s.db, s.statusQ); err != nil {
		return raw, err
	}
	asRequested(raw.Status, s.names.statusNames())
	if s.binlogQ != "" {
		s.selects++ // counted before sending, as the GTID query below
		var bytes sql.NullString
		switch err := s.db.QueryRowContext(ctx, s.binlogQ).Scan(&bytes); {
		case err == nil && bytes.Valid:
			raw.Status[flavor.BinlogBytesStatus] = bytes.String
		case ctx.Err() != nil:
			return raw, ctx.Err()
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			// An account without SELECT on performance_schema: the
			// column stays empty rather than every sample failing.
			s.binlogQ = ""
		} // no row, or NULL: the Performance Schema is off; left empty
	}
	if s.enabledQ != "" {
		status := raw.Status[s.names.semiStatus]
		if !s.haveEnabled || status != s.lastStatus {
			vars, err := queryPairs(ctx, s.db, s.enabledQ)
			if err != nil {
				return raw, err
			}
			s.enabled, s.haveEnabled, s.lastStatus = vars[s.names.semiEnabled], true, status
		}
		raw.Vars[s.names.semiEnabled] = s.enabled
	}
	if s.replicaQ != "" {
		if raw.Replica, err = queryRow(ctx, s.db, s.replicaQ); err != nil {
			return raw, err
		}
	}
	// The position last: the row's time is when the answer arrived, and
	// a slave's lag is read at that instant against the master's position
	// interpolated there, so nothing may come between them.
	if s.names.gtidVar != "" {
		s.selects++ // counted before sending: it may run even if we time out
		var pos sql.NullString
		if err := s.db.QueryRowContext(ctx, s.gtidQ).Scan(&pos); err != nil {
			return raw, fmt.Errorf("%s: %w", s.gtidQ, err)
		}
		raw.Vars[s.names.gtidVar] = pos.String
	}
	return raw, nil
}

// queryPairs reads (Variable_name, Value) rows.
// asRequested files each value under the name orch asked for: servers
// spell some status variables in another case (Percona's TokuDB
// Tokudb_FILESYSTEM_FSYNC_NUM is MariaDB 10.5's Tokudb_filesystem_fsync_num),
// and Variable_name IN (...) matches either.
func asRequested(m map[string]string, names []string) {
	lower := make(map[string]string, len(m))
	for k, v := range m {
		lower[strings.ToLower(k)] = v
	}
	for _, n := range names {
		if _, ok := m[n]; !ok {
			if v, ok := lower[strings.ToLower(n)]; ok {
				m[n] = v
			}
		}
	}
}

func queryPairs(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	t, err := sqlrows.Query(ctx, db, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", firstWords(q), err)
	}
	out := make(map[string]string, len(t.Rows))
	for _, r := range t.Rows {
		if len(r) >= 2 {
			out[r[0].String] = r[1].String
		}
	}
	return out, nil
}

// queryRow reads the first row as column -> value (NULL columns left
// out); nil when there is no row.
func queryRow(ctx context.Context, db *sql.DB, q string) (map[string]string, error) {
	t, err := sqlrows.Query(ctx, db, q)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", q, err)
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(t.Cols))
	for i, c := range t.Cols {
		if t.Rows[0][i].Valid {
			out[c] = t.Rows[0][i].String
		}
	}
	return out, nil
}

// firstWords names a query in errors without its long name list.
func firstWords(q string) string {
	if i := strings.Index(q, " WHERE "); i > 0 {
		return q[:i]
	}
	return q
}
