package replication

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
)

// A database/sql driver in front of a fakeServer, so that the package's
// real code (pools, pinned connections, flavor.ConnSession) runs unchanged
// against a simulated server.

type fakeConnector struct{ s *fakeServer }

func (fc fakeConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if err := fc.s.reachable(ctx); err != nil {
		return nil, err
	}
	return &fakeConn{s: fc.s, binlog: true}, nil
}

func (fakeConnector) Driver() driver.Driver { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) {
	return nil, errors.New("fake: use the connector")
}

// fakeConn is one session; binlog is its sql_log_bin.
type fakeConn struct {
	s      *fakeServer
	binlog bool
}

func (c *fakeConn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("fake: prepared statements are not supported")
}
func (c *fakeConn) Close() error              { return nil }
func (c *fakeConn) Begin() (driver.Tx, error) { return nil, errors.New("fake: no transactions") }

func (c *fakeConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		return nil, errors.New("fake: placeholders are not supported")
	}
	if _, err := c.s.handle(ctx, c, q); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

func (c *fakeConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		return nil, errors.New("fake: placeholders are not supported")
	}
	t, err := c.s.handle(ctx, c, q)
	if err != nil {
		return nil, err
	}
	return &fakeRows{t: t}, nil
}

// fakeResult is a result set; a nil value is NULL.
type fakeResult struct {
	cols []string
	rows [][]any
}

type fakeRows struct {
	t fakeResult
	i int
}

func (r *fakeRows) Columns() []string { return r.t.cols }
func (r *fakeRows) Close() error      { return nil }

func (r *fakeRows) Next(dest []driver.Value) error {
	if r.i >= len(r.t.rows) {
		return io.EOF
	}
	for j, v := range r.t.rows[r.i] {
		dest[j] = v
	}
	r.i++
	return nil
}

// open returns a pool to s, sized like mysqlconn's.
func (s *fakeServer) open() *sql.DB {
	db := sql.OpenDB(fakeConnector{s})
	db.SetMaxOpenConns(4)
	return db
}
