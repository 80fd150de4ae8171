package dataset

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
)

// openCatalog is a pool to s through a client that interpolates ? on its
// side, as the MySQL driver does with interpolateParams: the server sees
// the values as quoted literals.
func openCatalog(t *testing.T, s sqlfake.Session) *sql.DB {
	db := sql.OpenDB(literalConnector{s})
	t.Cleanup(func() { db.Close() })
	return db
}

type literalConnector struct{ s sqlfake.Session }

func (c literalConnector) Connect(context.Context) (driver.Conn, error) { return literalConn{c.s}, nil }
func (literalConnector) Driver() driver.Driver                          { return nil }

type literalConn struct{ s sqlfake.Session }

func (literalConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("no prepared statements")
}
func (literalConn) Close() error              { return nil }
func (literalConn) Begin() (driver.Tx, error) { return nil, errors.New("no transactions") }

// interpolate puts each argument, quoted, where its ? is.
func interpolate(q string, args []driver.NamedValue) (string, error) {
	var b strings.Builder
	n := 0
	quote := byte(0)
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
		case ch == '\'' || ch == '"' || ch == '`':
			quote = ch
		case ch == '?':
			if n >= len(args) {
				return "", errors.New("more placeholders than arguments")
			}
			s, ok := args[n].Value.(string)
			if !ok {
				return "", fmt.Errorf("argument %d: %T, want a string", n+1, args[n].Value)
			}
			b.WriteString("'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'")
			n++
			continue
		}
		b.WriteByte(ch)
	}
	if n != len(args) {
		return "", errors.New("more arguments than placeholders")
	}
	return b.String(), nil
}

func (c literalConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	q, err := interpolate(q, args)
	if err != nil {
		return nil, err
	}
	r, err := c.s.Handle(ctx, q)
	if err != nil {
		return nil, err
	}
	return &literalRows{r: r}, nil
}

func (c literalConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	q, err := interpolate(q, args)
	if err != nil {
		return nil, err
	}
	if _, err := c.s.Handle(ctx, q); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

type literalRows struct {
	r sqlfake.Result
	i int
}

func (r *literalRows) Columns() []string { return r.r.Cols }
func (r *literalRows) Close() error      { return nil }
func (r *literalRows) Next(dest []driver.Value) error {
	if r.i >= len(r.r.Rows) {
		return io.EOF
	}
	for j, v := range r.r.Rows[r.i] {
		dest[j] = v
	}
	r.i++
	return nil
}
