package mysqlconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// A toy server behind database/sql: each statement writes its text to a
// pretend socket and reads 10 bytes per result row back, so the byte
// counts have known values. It answers queries with bound values the way
// the MySQL driver does without client-side interpolation: ErrSkip on the
// connection, then through a prepared statement.

type wireStub struct{ net.Conn }

func (wireStub) Read(p []byte) (int, error)  { return len(p), nil }
func (wireStub) Write(p []byte) (int, error) { return len(p), nil }
func (wireStub) Close() error                { return nil }

type toyConnector struct{}

func (toyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	return &toyConn{sock: countedConn(ctx, wireStub{})}, nil
}
func (toyConnector) Driver() driver.Driver { return nil }

type toyConn struct{ sock net.Conn }

func (c *toyConn) send(q string) error {
	if strings.Contains(q, "broken") {
		return errors.New("toy: syntax error near 'broken'")
	}
	_, err := c.sock.Write([]byte(q))
	return err
}

func (c *toyConn) Prepare(q string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), q)
}
func (c *toyConn) PrepareContext(_ context.Context, q string) (driver.Stmt, error) {
	c.sock.Write([]byte("prep")) // the prepare's own packet
	return &toyStmt{c: c, q: q}, nil
}
func (c *toyConn) Close() error                                                 { return nil }
func (c *toyConn) Begin() (driver.Tx, error)                                    { return nil, errors.New("no transactions") }
func (c *toyConn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) { return c.Begin() }
func (c *toyConn) Ping(context.Context) error                                   { return nil }
func (c *toyConn) ResetSession(context.Context) error                           { return nil }
func (c *toyConn) IsValid() bool                                                { return true }
func (c *toyConn) CheckNamedValue(*driver.NamedValue) error                     { return nil }

func (c *toyConn) ExecContext(_ context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	if len(args) > 0 {
		return nil, driver.ErrSkip
	}
	return driver.RowsAffected(1), c.send(q)
}

func (c *toyConn) QueryContext(_ context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	if len(args) > 0 {
		return nil, driver.ErrSkip
	}
	if err := c.send(q); err != nil {
		return nil, err
	}
	return &toyRows{c: c, left: 3}, nil
}

type toyStmt struct {
	c *toyConn
	q string
}

func (s *toyStmt) Close() error                             { return nil }
func (s *toyStmt) NumInput() int                            { return -1 }
func (s *toyStmt) CheckNamedValue(*driver.NamedValue) error { return nil }
func (s *toyStmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("old interface")
}
func (s *toyStmt) Query([]driver.Value) (driver.Rows, error) { return nil, errors.New("old interface") }
func (s *toyStmt) ExecContext(context.Context, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(1), s.c.send(s.q)
}
func (s *toyStmt) QueryContext(context.Context, []driver.NamedValue) (driver.Rows, error) {
	if err := s.c.send(s.q); err != nil {
		return nil, err
	}
	return &toyRows{c: s.c, left: 2}, nil
}

type toyRows struct {
	c    *toyConn
	left int
}

func (r *toyRows) Columns() []string { return []string{"v"} }
func (r *toyRows) Close() error      { return nil }
func (r *toyRows) Next(dest []driver.Value) error {
	if r.left == 0 {
		return io.EOF
	}
	r.left--
	r.c.sock.Read(make([]byte, 10))
	dest[0] = "row"
	return nil
}
func (r *toyRows) HasNextResultSet() bool                            { return false }
func (r *toyRows) NextResultSet() error                              { return io.EOF }
func (r *toyRows) ColumnTypeDatabaseTypeName(int) string             { return "TEXT" }
func (r *toyRows) ColumnTypeNullable(int) (bool, bool)               { return false, true }
func (r *toyRows) ColumnTypePrecisionScale(int) (int64, int64, bool) { return 0, 0, false }
func (r *toyRows) ColumnTypeScanType(int) reflect.Type               { return reflect.TypeOf("") }

type sqlRecords struct {
	mu   sync.Mutex
	list []executor.Record
}

func (s *sqlRecords) Record(r executor.Record) {
	s.mu.Lock()
	s.list = append(s.list, r)
	s.mu.Unlock()
}

func TestRecordingConnector(t *testing.T) {
	rec := &sqlRecords{}
	db := sql.OpenDB(recordingConnector{inner: toyConnector{}, host: "db1", rec: rec})
	defer db.Close()
	ctx := context.Background()

	if _, err := db.ExecContext(ctx, "SET GLOBAL max_connections = 500"); err != nil {
		t.Fatal(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT name FROM t WHERE id = ?", 7)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	var v string
	if err := db.QueryRowContext(ctx, "SELECT 1").Scan(&v); err != nil || v != "row" {
		t.Fatalf("QueryRow: %q %v", v, err)
	}
	if _, err := db.ExecContext(ctx, "broken statement"); err == nil {
		t.Fatal("the broken statement succeeded")
	}

	l := rec.list
	if len(l) != 4 || n != 2 {
		t.Fatalf("%d records (%d rows): %+v", len(l), n, l)
	}
	if r := l[0]; r.Kind != executor.KindSQL || r.Host != "db1" || r.Text != "SET GLOBAL max_connections = 500" ||
		r.BytesOut != int64(len(r.Text)) || r.BytesIn != 0 || r.Err != nil || r.Exit != nil {
		t.Errorf("exec: %+v", r)
	}
	// Sent once (as a prepared statement), recorded once, with its
	// prepare's bytes and its rows.
	if r := l[1]; r.Text != "SELECT name FROM t WHERE id = ?" || r.Args != 1 || r.BytesIn != 20 || r.BytesOut != int64(len("prep")+len(r.Text)) {
		t.Errorf("query with a bound value: %+v", r)
	}
	if r := l[2]; r.Text != "SELECT 1" || r.BytesIn < 10 {
		t.Errorf("query row: %+v", r)
	}
	if r := l[3]; r.Err == nil || !strings.Contains(r.Err.Error(), "syntax") || r.BytesOut != 0 {
		t.Errorf("failed statement: %+v", r)
	}
}

func TestRecordingConnectorConcurrent(t *testing.T) {
	rec := &sqlRecords{}
	db := sql.OpenDB(recordingConnector{inner: toyConnector{}, host: "db1", rec: rec})
	defer db.Close()
	db.SetMaxOpenConns(4)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 25; j++ {
				rows, err := db.QueryContext(context.Background(), "SELECT 2")
				if err != nil {
					t.Error(err)
					return
				}
				for rows.Next() {
				}
				rows.Close()
			}
		}()
	}
	wg.Wait()
	if len(rec.list) != 200 {
		t.Fatalf("%d records, want 200", len(rec.list))
	}
	for _, r := range rec.list {
		// Each statement's own bytes, though four connections share none.
		if r.BytesOut != int64(len("SELECT 2")) || r.BytesIn != 30 {
			t.Fatalf("record %+v", r)
		}
	}
}
