package mysqlconn

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// Recording happens at the driver's edge, under database/sql, so that every
// statement sent through a pool is recorded whichever package sends it and
// however (Exec, Query, QueryRow, a pinned Conn, a prepared statement).
// The bytes are those on the wire, counted on the connection itself.

// recordingConnector wraps the driver's connector: each connection it makes
// records its statements.
type recordingConnector struct {
	inner driver.Connector
	host  string
	rec   executor.Recorder
}

func (c recordingConnector) Driver() driver.Driver { return c.inner.Driver() }

func (c recordingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	w := &wire{}
	conn, err := c.inner.Connect(context.WithValue(ctx, wireKey{}, w))
	if err != nil {
		return nil, err
	}
	full, ok := conn.(fullConn)
	if !ok {
		return conn, nil // not the driver this was written against: unrecorded rather than broken
	}
	return &recordingConn{fullConn: full, host: c.host, rec: c.rec, wire: w}, nil
}

// fullConn is what the MySQL driver's connection implements; database/sql
// picks its paths by these interfaces, so the wrapper keeps them all.
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

type recordingConn struct {
	fullConn
	host string
	rec  executor.Recorder
	wire *wire
}

// statement is one statement in flight on a connection; database/sql uses
// a connection from one goroutine at a time, so the wire counts taken at
// its start and end are its own.
type statement struct {
	c         *recordingConn
	text      string
	args      int
	start     time.Time
	out0, in0 int64
	recorded  atomic.Bool
}

func (c *recordingConn) begin(text string, args int) *statement {
	return &statement{c: c, text: text, args: args, start: time.Now(), out0: c.wire.out.Load(), in0: c.wire.in.Load()}
}

func (s *statement) done(err error) {
	if s.recorded.Swap(true) || errors.Is(err, driver.ErrSkip) {
		return // ErrSkip: database/sql sends it again as a prepared statement
	}
	s.c.rec.Record(executor.Record{Start: s.start, Host: s.c.host, Kind: executor.KindSQL, Text: s.text,
		Args: s.args, Duration: time.Since(s.start), Err: err,
		BytesOut: s.c.wire.out.Load() - s.out0, BytesIn: s.c.wire.in.Load() - s.in0})
}

func (c *recordingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s := c.begin(query, len(args))
	res, err := c.fullConn.ExecContext(ctx, query, args)
	s.done(err)
	return res, err
}

func (c *recordingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s := c.begin(query, len(args))
	rows, err := c.fullConn.QueryContext(ctx, query, args)
	return s.rows(rows, err)
}

func (c *recordingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	prep := c.begin(query, 0)
	st, err := c.fullConn.PrepareContext(ctx, query)
	if err != nil {
		prep.done(err)
		return nil, err
	}
	full, ok := st.(fullStmt)
	if !ok {
		return st, nil
	}
	return &recordingStmt{fullStmt: full, c: c, text: query, prep: prep}, nil
}

func (c *recordingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// rows records the statement when its rows are closed, so that its
// duration and bytes include reading them; at once when it failed.
func (s *statement) rows(rows driver.Rows, err error) (driver.Rows, error) {
	if err != nil {
		s.done(err)
		return rows, err
	}
	full, ok := rows.(fullRows)
	if !ok {
		s.done(nil)
		return rows, nil
	}
	return &recordingRows{fullRows: full, s: s}, nil
}

type fullStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
	driver.NamedValueChecker
}

type recordingStmt struct {
	fullStmt
	c    *recordingConn
	text string
	// prep is the prepare, until the first execution: its time and bytes
	// are that execution's (database/sql prepares a statement with bound
	// values to run it once).
	prep *statement
}

func (st *recordingStmt) begin(args int) *statement {
	s := st.c.begin(st.text, args)
	if p := st.prep; p != nil {
		s.start, s.out0, s.in0 = p.start, p.out0, p.in0
		st.prep = nil
	}
	return s
}

func (st *recordingStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s := st.begin(len(args))
	res, err := st.fullStmt.ExecContext(ctx, args)
	s.done(err)
	return res, err
}

func (st *recordingStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s := st.begin(len(args))
	rows, err := st.fullStmt.QueryContext(ctx, args)
	return s.rows(rows, err)
}

type fullRows interface {
	driver.Rows
	driver.RowsNextResultSet
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

type recordingRows struct {
	fullRows
	s   *statement
	err error // the first error reading rows, the statement's if any
}

func (r *recordingRows) Next(dest []driver.Value) error {
	err := r.fullRows.Next(dest)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return err
}

func (r *recordingRows) Close() error {
	err := r.fullRows.Close()
	r.s.done(errors.Join(r.err, err))
	return err
}

// wire counts a connection's bytes each way.
type wire struct{ out, in atomic.Int64 }

type wireKey struct{}

// countedConn counts what crosses a connection for the wire in its dial
// context (none: it is returned as is).
func countedConn(ctx context.Context, c net.Conn) net.Conn {
	w, ok := ctx.Value(wireKey{}).(*wire)
	if !ok {
		return c
	}
	return &countingConn{Conn: c, w: w}
}

type countingConn struct {
	net.Conn
	w *wire
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.w.in.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.w.out.Add(int64(n))
	return n, err
}
