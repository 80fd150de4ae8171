package replication

import (
	"context"
	"database/sql"

	"github.com/orch-bench/orch/orchestrator/internal/sqlfake"
)

// The database/sql side of a fakeServer (sqlfake carries the statements),
// so that the package's real code (pools, pinned connections,
// flavor.ConnSession) runs unchanged against a simulated server.

type fakeResult = sqlfake.Result

// fakeConn is one session; binlog is its sql_log_bin.
type fakeConn struct {
	s      *fakeServer
	binlog bool
	user   map[string]string // @variables
}

func (c *fakeConn) Handle(ctx context.Context, q string) (sqlfake.Result, error) {
	return c.s.handle(ctx, c, q)
}

// open returns a pool to s, sized like mysqlconn's.
func (s *fakeServer) open() *sql.DB {
	db := sqlfake.Open(func(ctx context.Context) (sqlfake.Session, error) {
		if err := s.reachable(ctx); err != nil {
			return nil, err
		}
		return &fakeConn{s: s, binlog: true}, nil
	})
	db.SetMaxOpenConns(4)
	return db
}
