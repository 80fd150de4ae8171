// Package history is the results store: every run orch finishes (and every
// old run directory imported) is kept with the identity of what produced
// it, so that a series of runs on the same footing can be followed over
// time (series.go), checked for change points (orchestrator/changepoint)
// and compared across campaigns (compare.go). It reads run directories
// through the report (report.RunRecords), so a figure in the history is
// the figure in the run's report.
//
// The default store is an SQLite file beside the runs (runs/history.sqlite)
// through modernc.org/sqlite: SQLite because a history needs no server and
// survives being copied as one file, takes concurrent writers safely (its
// file locks; WAL lets readers go on while one process writes), and is
// what Bencher and Go's perfdata chose locally; modernc's build because it
// is pure Go, so orch stays one static binary built without cgo or a C
// toolchain on the machine. A team shares one history in MariaDB/MySQL
// (config.go): the same tables and statements, the few differences of
// dialect in one table (dialects).
//
// The store's schema is versioned (orch_history_meta.schema_version) and
// migrated by orch, one step at a time; a store of a newer schema, or a
// file that is not an intact store, is an error that changes nothing.
package history

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// SchemaVersion is the store's schema this orch writes.
const SchemaVersion = 2

// dialect holds what differs between SQLite and MariaDB/MySQL.
type dialect struct {
	name   string
	autoID string // the id column
	// tableTail ends a CREATE TABLE.
	tableTail string
	// keepExisting ends an INSERT so that a row whose unique key exists
	// is left as it is (and not counted as affected).
	keepExisting string
}

var (
	sqliteDialect = dialect{name: "sqlite", autoID: "id INTEGER PRIMARY KEY AUTOINCREMENT",
		keepExisting: " ON CONFLICT(run_key) DO NOTHING"}
	mysqlDialect = dialect{name: "mysql", autoID: "id BIGINT AUTO_INCREMENT PRIMARY KEY",
		tableTail: " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4", keepExisting: " ON DUPLICATE KEY UPDATE id = id"}
)

// migrations[v] takes a store from schema version v to v+1.
func migrations(d dialect) [][]string {
	return [][]string{
		{`CREATE TABLE IF NOT EXISTS orch_history_runs (
			` + d.autoID + `,
			run_key VARCHAR(255) NOT NULL UNIQUE,
			started VARCHAR(40) NOT NULL,
			campaign VARCHAR(255) NOT NULL,
			label VARCHAR(255) NOT NULL,
			workload VARCHAR(255) NOT NULL,
			engine VARCHAR(64) NOT NULL,
			version VARCHAR(255) NOT NULL,
			cluster VARCHAR(255) NOT NULL,
			metric VARCHAR(64) NOT NULL,
			lower_is_better INTEGER NOT NULL,
			value DOUBLE,
			state VARCHAR(32) NOT NULL,
			dir TEXT NOT NULL,
			identity TEXT NOT NULL,
			context TEXT NOT NULL,
			figures TEXT NOT NULL,
			recorded VARCHAR(40) NOT NULL
		)` + d.tableTail},
		// Version 2: the history's usual question is one workload over time.
		{`CREATE INDEX orch_history_runs_workload ON orch_history_runs (workload, started)`},
	}
}

// Store is an open results store.
type Store struct {
	db      *sql.DB
	d       dialect
	where   string // the file or address, for messages
	Version int    // the schema version found when opened
}

// Close closes the store.
func (s *Store) Close() error { return s.db.Close() }

// Where names the store in messages.
func (s *Store) Where() string { return s.where }

// ErrNewerSchema is a store written by a newer orch.
var ErrNewerSchema = errors.New("written by a newer orch")

// prepare creates the schema in an empty store, migrates an older one,
// and refuses a newer one, under the store's lock (open.go) so that two
// orch processes opening one store at once migrate it once.
func (s *Store) prepare(ctx context.Context) (err error) {
	ex, done, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done(err == nil)) }()
	if _, err := ex.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS orch_history_meta (name VARCHAR(64) NOT NULL PRIMARY KEY, value VARCHAR(255) NOT NULL)`+s.d.tableTail); err != nil {
		return s.damaged(err)
	}
	var v string
	err = ex.QueryRowContext(ctx, `SELECT value FROM orch_history_meta WHERE name = 'schema_version'`).Scan(&v)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		v = "0"
	case err != nil:
		return s.damaged(err)
	}
	ver, err := strconv.Atoi(v)
	if err != nil || ver < 0 {
		return fmt.Errorf("history store %s: schema_version %q is not a version: damaged; nothing was changed", s.where, v)
	}
	if ver > SchemaVersion {
		return fmt.Errorf("history store %s: schema version %d, %w (this one knows up to %d): upgrade orch; nothing was changed", s.where, ver, ErrNewerSchema, SchemaVersion)
	}
	s.Version = ver
	return s.migrate(ctx, ex, SchemaVersion)
}

// execer is a transaction or a connection.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// migrate takes the store from s.Version to version to, one step at a
// time, each recorded as it completes.
func (s *Store) migrate(ctx context.Context, ex execer, to int) error {
	steps := migrations(s.d)
	for ver := s.Version; ver < to; ver++ {
		for _, stmt := range steps[ver] {
			if _, err := ex.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("history store %s: migrating to schema version %d: %w", s.where, ver+1, err)
			}
		}
		if _, err := ex.ExecContext(ctx, `DELETE FROM orch_history_meta WHERE name = 'schema_version'`); err != nil {
			return fmt.Errorf("history store %s: %w", s.where, err)
		}
		if _, err := ex.ExecContext(ctx, `INSERT INTO orch_history_meta (name, value) VALUES ('schema_version', ?)`, strconv.Itoa(ver+1)); err != nil {
			return fmt.Errorf("history store %s: %w", s.where, err)
		}
		s.Version = ver + 1
	}
	return nil
}

// Record adds the entries not in the store yet, in one transaction, and
// returns how many it added: recording a run twice adds it once.
func (s *Store) Record(ctx context.Context, entries []Entry) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("history store %s: %w", s.where, err)
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO orch_history_runs (run_key, started, campaign, label, workload, engine, version, cluster,
		metric, lower_is_better, value, state, dir, identity, context, figures, recorded)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`+s.d.keepExisting)
	if err != nil {
		return 0, fmt.Errorf("history store %s: %w", s.where, err)
	}
	defer stmt.Close()
	now := time.Now().UTC().Format(time.RFC3339Nano)
	added := 0
	for _, e := range entries {
		id, _ := json.Marshal(e.Identity)
		c, _ := json.Marshal(e.Context)
		f, _ := json.Marshal(e.Figures)
		var v any
		if e.Usable() {
			v = e.Value
		}
		res, err := stmt.ExecContext(ctx, e.Key, e.Start.UTC().Format(time.RFC3339Nano), e.Campaign, e.Label, e.Identity.Workload,
			e.Identity.Engine, e.Identity.Version, e.Identity.Cluster, e.Identity.Metric, boolInt(e.LowerIsBetter), v, e.State, e.Dir,
			string(id), string(c), string(f), now)
		if err != nil {
			return 0, fmt.Errorf("history store %s: recording %s: %w", s.where, e.Key, err)
		}
		if n, err := res.RowsAffected(); err == nil && n > 0 {
			added++
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("history store %s: %w", s.where, err)
	}
	return added, nil
}

// Filter selects entries; empty fields select all.
type Filter struct {
	Workload, Engine, Version, Cluster, Campaign string
	Since, Until                                 time.Time
}

// Entries returns the entries the filter selects, oldest first.
func (s *Store) Entries(ctx context.Context, f Filter) ([]Entry, error) {
	q := `SELECT run_key, started, campaign, label, lower_is_better, value, state, dir, identity, context, figures FROM orch_history_runs WHERE 1=1`
	var args []any
	add := func(cond string, v any) {
		q += " AND " + cond
		args = append(args, v)
	}
	if f.Workload != "" {
		add("workload = ?", f.Workload)
	}
	if f.Engine != "" {
		add("engine = ?", f.Engine)
	}
	if f.Version != "" {
		add("version LIKE ?", "%"+f.Version+"%")
	}
	if f.Cluster != "" {
		add("cluster = ?", f.Cluster)
	}
	if f.Campaign != "" {
		add("campaign = ?", f.Campaign)
	}
	if !f.Since.IsZero() {
		add("started >= ?", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		add("started < ?", f.Until.UTC().Format(time.RFC3339Nano))
	}
	rows, err := s.db.QueryContext(ctx, q+" ORDER BY started, run_key", args...)
	if err != nil {
		return nil, fmt.Errorf("history store %s: %w", s.where, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var started, id, c, figs string
		var lower int
		var v sql.NullFloat64
		if err := rows.Scan(&e.Key, &started, &e.Campaign, &e.Label, &lower, &v, &e.State, &e.Dir, &id, &c, &figs); err != nil {
			return nil, fmt.Errorf("history store %s: %w", s.where, err)
		}
		e.Start, err = time.Parse(time.RFC3339Nano, started)
		if err != nil {
			return nil, fmt.Errorf("history store %s: run %s: start %q: %w", s.where, e.Key, started, err)
		}
		if err := errors.Join(json.Unmarshal([]byte(id), &e.Identity), json.Unmarshal([]byte(c), &e.Context), json.Unmarshal([]byte(figs), &e.Figures)); err != nil {
			return nil, fmt.Errorf("history store %s: run %s: damaged: %w", s.where, e.Key, err)
		}
		e.LowerIsBetter = lower != 0
		e.Value = math.NaN()
		if v.Valid {
			e.Value = v.Float64
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history store %s: %w", s.where, err)
	}
	return out, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// damaged wraps an error met while reading the store's own tables.
func (s *Store) damaged(err error) error {
	return fmt.Errorf("history store %s: cannot read it as an orch history (damaged?): %w; nothing was changed", s.where, err)
}
