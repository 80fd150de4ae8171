// Package sqlrows reads SQL results as text: the one row reader behind the
// packages that query servers (server, replication, dataset, monitor,
// runner, preflight), each of which keeps only the shape it needs.
package sqlrows

import (
	"context"
	"database/sql"
	"strings"
)

// Querier is what a pool, a pinned connection and a transaction share:
// the database/sql handles, with placeholders and NULLs.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Session is SQL on one server as text, the one interface of the packages
// that run statements without database/sql's types: a pinned connection
// (flavor.ConnSession), a pool (server), root's unix socket through the
// mysql client (account.Socket), and the tests' recording fakes.
type Session interface {
	// Query returns every row of q, each column as text (NULL as "").
	Query(ctx context.Context, q string) ([][]string, error)
	// Exec runs stmts in order, stopping at the first failure; on one
	// session where the implementation pins one.
	Exec(ctx context.Context, stmts ...string) error
}

// Table is a result set as text; a NULL reads as "" with Valid false.
type Table struct {
	Cols []string
	Rows [][]sql.NullString
}

// Query runs q and reads every row.
func Query(ctx context.Context, db Querier, q string, args ...any) (Table, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return Table{}, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return Table{}, err
	}
	t := Table{Cols: cols}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return Table{}, err
		}
		t.Rows = append(t.Rows, vals)
	}
	return t, rows.Err()
}

// Value is the first column of the first row ("" without one).
func (t Table) Value() string {
	if len(t.Rows) == 0 || len(t.Rows[0]) == 0 {
		return ""
	}
	return t.Rows[0][0].String
}

// Strings is every row as strings, NULL as "".
func (t Table) Strings() [][]string {
	out := make([][]string, len(t.Rows))
	for i, r := range t.Rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = v.String
		}
	}
	return out
}

// NameValues reads SHOW VARIABLES / SHOW STATUS rows (name, value) into a
// map, names in lower case: servers differ in how they capitalise them.
func (t Table) NameValues() map[string]string {
	out := make(map[string]string, len(t.Rows))
	for _, r := range t.Rows {
		if len(r) >= 2 {
			out[strings.ToLower(r[0].String)] = r[1].String
		}
	}
	return out
}
