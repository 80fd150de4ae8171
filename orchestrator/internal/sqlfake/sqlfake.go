// Package sqlfake is a database/sql driver in front of a simulated server,
// so that tests run orch's real SQL code (pools, pinned connections,
// scanning) against a server written from its manual. The simulation
// decides what each statement does; this package only carries statements
// in and result sets out.
package sqlfake

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
)

// Result is one statement's result set; a nil value is NULL.
type Result struct {
	Cols []string
	Rows [][]any
}

// Session is one connection to a simulated server.
type Session interface {
	// Handle runs one statement (no placeholders).
	Handle(ctx context.Context, q string) (Result, error)
}

// Pinger is a Session that answers the client's ping (COM_PING) itself; a
// Session without it answers every ping.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Connect opens a session, or refuses the connection with an error.
type Connect func(ctx context.Context) (Session, error)

// Open returns a pool whose connections come from connect.
func Open(connect Connect) *sql.DB { return sql.OpenDB(connector{connect}) }

type connector struct{ connect Connect }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	s, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{s: s}, nil
}

func (connector) Driver() driver.Driver { return drv{} }

type drv struct{}

func (drv) Open(string) (driver.Conn, error) { return nil, errors.New("sqlfake: use the connector") }

type conn struct{ s Session }

var errPlaceholders = errors.New("sqlfake: placeholders are not supported")

func (c *conn) Prepare(string) (driver.Stmt, error) {
	return nil, errors.New("sqlfake: prepared statements are not supported")
}

// Close ends the session; a Session that is an io.Closer hears it (a
// server frees what the connection held).
func (c *conn) Close() error {
	if cl, ok := c.s.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

func (c *conn) Ping(ctx context.Context) error {
	if p, ok := c.s.(Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}
func (c *conn) Begin() (driver.Tx, error) { return nil, errors.New("sqlfake: no transactions") }

func (c *conn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		return nil, errPlaceholders
	}
	if _, err := c.s.Handle(ctx, q); err != nil {
		return nil, err
	}
	return driver.RowsAffected(0), nil
}

func (c *conn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		return nil, errPlaceholders
	}
	r, err := c.s.Handle(ctx, q)
	if err != nil {
		return nil, err
	}
	return &rows{r: r}, nil
}

type rows struct {
	r Result
	i int
}

func (r *rows) Columns() []string { return r.r.Cols }
func (r *rows) Close() error      { return nil }

func (r *rows) Next(dest []driver.Value) error {
	if r.i >= len(r.r.Rows) {
		return io.EOF
	}
	for j, v := range r.r.Rows[r.i] {
		dest[j] = v
	}
	r.i++
	return nil
}
