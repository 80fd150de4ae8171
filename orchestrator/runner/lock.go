package runner

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// benchLockName is the named lock (GET_LOCK) a run holds on the master it
// loads, from before prepare to its end. It makes "one orch benchmark per
// server" atomic and visible from every load box and control machine:
// checkAlone sees only the processes on one load box, and two runs started
// within the same fraction of a second both passed it. The server releases
// the lock when the holding connection ends, so an orch that is killed
// never leaves it behind; a benchmark that outlives its orch is still
// found by its marker (checkAlone).
const benchLockName = "orch.benchmark"

// serverLock is a held benchLockName: one pinned connection.
type serverLock struct{ conn *sql.Conn }

// lockServer takes the benchmark lock on n's server without waiting, or
// fails with ErrBusy naming the connection that holds it.
func lockServer(ctx context.Context, n *server.Node) (*serverLock, error) {
	conn, err := n.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: benchmark lock: %w", n, err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+flavor.QuoteString(benchLockName)+", 0)").Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: benchmark lock: %w", n, err)
	}
	if got.Valid && got.Int64 == 1 {
		return &serverLock{conn: conn}, nil
	}
	holder, foreign := lockHolder(ctx, conn)
	conn.Close()
	if foreign {
		// orch takes it with the benchmark's own account; another
		// account's hold is not a run of orch's.
		return nil, fmt.Errorf("%s: %w: this server's benchmark lock %s is held by %s, not an orch run; end that session to run",
			n, ErrBusy, benchLockName, holder)
	}
	return nil, fmt.Errorf("%s: %w: an orch run holds this server's benchmark lock (%s); wait for it or stop it",
		n, ErrBusy, holder)
}

// lockHolder describes the connection holding the lock, as far as this
// account may see it (PROCESSLIST shows other accounts' threads only with
// the PROCESS privilege).
// foreign is set when the holder is not this account: a user other than
// CURRENT_USER()'s, or a connection this account cannot see (every account
// sees its own).
func lockHolder(ctx context.Context, conn *sql.Conn) (desc string, foreign bool) {
	var id sql.NullInt64
	q := "SELECT IS_USED_LOCK(" + flavor.QuoteString(benchLockName) + ")"
	if err := conn.QueryRowContext(ctx, q).Scan(&id); err != nil || !id.Valid {
		return "its holder just let it go; try again", false
	}
	var me sql.NullString
	known := conn.QueryRowContext(ctx, "SELECT SUBSTRING_INDEX(CURRENT_USER(), '@', 1)").Scan(&me) == nil && me.Valid
	var user, host string
	var idle int64
	q = fmt.Sprintf("SELECT USER, HOST, TIME FROM information_schema.PROCESSLIST WHERE ID = %d", id.Int64)
	if err := conn.QueryRowContext(ctx, q).Scan(&user, &host, &idle); err != nil {
		if known {
			return fmt.Sprintf("connection %d of another account", id.Int64), true
		}
		return fmt.Sprintf("connection %d", id.Int64), false
	}
	desc = fmt.Sprintf("connection %d, %s@%s, idle %s", id.Int64, user, host, time.Duration(idle)*time.Second)
	if known && user != me.String {
		return fmt.Sprintf("%s@%s (connection %d)", user, host, id.Int64), true
	}
	return desc, false
}

// Release lets the lock go. A connection that broke has already lost it:
// the server releases a lock when its connection ends.
func (l *serverLock) Release() error {
	if l == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := l.conn.ExecContext(ctx, "DO RELEASE_LOCK("+flavor.QuoteString(benchLockName)+")")
	if err != nil {
		// Never hand the pool a connection that may still hold the lock.
		_ = l.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return errors.Join(err, l.conn.Close())
}
