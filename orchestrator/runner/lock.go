package runner

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// benchLockName is the named lock (GET_LOCK) a run holds on the master it
// loads, from before prepare to its end. It makes "one orch benchmark per
// cluster" atomic and visible from every load box and control machine:
// checkAlone sees only the processes on one load box, and two runs started
// within the same fraction of a second both passed it. The server releases
// the lock when the holding connection ends, so an orch that is killed
// never leaves it behind; a benchmark that outlives its orch is still
// found by its marker (checkAlone).
//
// The name is the cluster's own, orch.benchmark.<inventory name> (an
// unnamed inventory uses its master's address and port), not one name for
// every orch: user locks are global to a server and any account, even one
// with USAGE only, may take any name, so the one fixed name let any session
// on the server block every orch run there. A session can still take a
// cluster's name, and then blocks that cluster only; the refusal names its
// account when it is not the run's (lockHolder). Two inventories of
// different names on one master take different locks: the marker check
// (checkAlone) is what still sees the other's benchmark on a shared load
// box. Names longer than a server accepts (maxUserLockName) are cut and end
// in a hash of the whole identity, so two long names still differ and one
// cluster always gets the same lock.
func benchLockName(inv *topology.Inventory) string {
	id := inv.Name
	if id == "" {
		if m := inv.Master(); m != nil {
			id = net.JoinHostPort(m.PeerAddress(), strconv.Itoa(m.MySQL.Port))
		}
	}
	name := benchLockPrefix + id
	if len(name) <= maxUserLockName {
		return name
	}
	sum := sha256.Sum256([]byte(id))
	tag := "~" + hex.EncodeToString(sum[:6])
	cut := maxUserLockName - len(tag)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tag
}

const (
	benchLockPrefix = "orch.benchmark."
	// maxUserLockName is MySQL's limit on a user lock's name (5.7 and
	// later refuse a longer one with ER_USER_LOCK_WRONG_NAME); bytes here,
	// which never exceed characters.
	maxUserLockName = 64
)

// serverLock is a held benchmark lock: one pinned connection.
type serverLock struct {
	conn *sql.Conn
	name string
}

// lockServer takes the benchmark lock name on n's server without waiting,
// or fails with ErrBusy naming the connection that holds it.
func lockServer(ctx context.Context, n *server.Node, name string) (*serverLock, error) {
	conn, err := n.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: benchmark lock: %w", n, err)
	}
	var got sql.NullInt64
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK("+flavor.QuoteString(name)+", 0)").Scan(&got); err != nil {
		conn.Close()
		return nil, fmt.Errorf("%s: benchmark lock: %w", n, err)
	}
	if got.Valid && got.Int64 == 1 {
		return &serverLock{conn: conn, name: name}, nil
	}
	holder, foreign := lockHolder(ctx, conn, name)
	conn.Close()
	if foreign {
		// orch takes it with the benchmark's own account; another
		// account's hold is not a run of orch's.
		return nil, fmt.Errorf("%s: %w: this server's benchmark lock %s is held by %s, not an orch run; end that session to run",
			n, ErrBusy, name, holder)
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
func lockHolder(ctx context.Context, conn *sql.Conn, name string) (desc string, foreign bool) {
	var id sql.NullInt64
	q := "SELECT IS_USED_LOCK(" + flavor.QuoteString(name) + ")"
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
	_, err := l.conn.ExecContext(ctx, "DO RELEASE_LOCK("+flavor.QuoteString(l.name)+")")
	if err != nil {
		// Never hand the pool a connection that may still hold the lock.
		_ = l.conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	return errors.Join(err, l.conn.Close())
}
