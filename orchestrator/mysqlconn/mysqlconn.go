// Package mysqlconn opens MySQL connections to a host through that host's
// existing SSH connection, so only port 22 needs to be reachable from the
// control machine. The server sees a local client (127.0.0.1 or its socket).
package mysqlconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strconv"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// Dialer opens a connection on the far side of a host's transport (the SSH
// executor tunnels it; the local executor dials directly).
type Dialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

func init() {
	// The driver prints some connection failures itself ("[mysql]
	// packets.go:...: closed pipe") on stderr, beside the error it also
	// returns: orch reports the returned error, naming the host, so the
	// stray line only adds noise to a command's output.
	mysql.SetLogger(&mysql.NopLogger{})
}

// Config returns the driver configuration for the host's server, reached
// through d. The password is resolved here and lives only in memory.
func Config(d Dialer, h *topology.Host) (*mysql.Config, error) {
	m := h.MySQL
	pw, err := m.Password.Resolve()
	if err != nil && m.Managed && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: orch has not made its account %s on this server yet (no password in %s): run orch up first", h, m.User, m.Password.File)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: mysql password: %w", h, err)
	}
	network, addr := "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(portOr(m.Port)))
	if m.Socket != "" {
		network, addr = "unix", m.Socket
	}
	cfg := mysql.NewConfig()
	cfg.User = m.User
	cfg.Passwd = pw
	cfg.Net = network
	cfg.Addr = addr
	// A per-connector dial function: the connections go through this
	// host's transport without a name in the driver's global registry.
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countedConn(ctx, c), nil
	}
	cfg.Timeout = 10 * time.Second
	cfg.ParseTime = true
	return cfg, nil
}

// AnswerTimeout bounds how long Open waits for the server to answer.
var AnswerTimeout = 15 * time.Second

// NoAnswerError is Open's error when the connection was accepted but the
// server never answered: a process is there (so it must not be started
// again), hung or overloaded.
type NoAnswerError struct{ After time.Duration }

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no answer within %s (something accepts connections there but the server does not answer: is it hung or overloaded?)", e.After)
}

// Hung reports whether err is, or wraps, a NoAnswerError.
func Hung(err error) bool {
	var e *NoAnswerError
	return errors.As(err, &e)
}

// Open returns a pool to the host's server and checks it answers. When d
// is a recording executor (executor.Recorded), the pool records every
// statement on the same Recorder.
func Open(ctx context.Context, d Dialer, h *topology.Host) (*sql.DB, error) {
	cfg, err := Config(d, h)
	if err != nil {
		return nil, err
	}
	var conn driver.Connector
	if conn, err = mysql.NewConnector(cfg); err != nil {
		return nil, fmt.Errorf("%s: mysql: %w", h, err)
	}
	if host, rec, ok := executor.RecorderOf(d); ok {
		conn = recordingConnector{inner: conn, host: host, rec: rec}
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(4)
	db.SetConnMaxIdleTime(time.Minute)
	// The driver waits for the server's greeting without a deadline of its
	// own: a server that accepts connections but is hung (stopped,
	// swapping, stuck in recovery) would hold the command forever, silently.
	pctx, cancel := context.WithTimeout(ctx, AnswerTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		hint := ""
		switch {
		case LoginRefused(err):
			hint = " (the server runs but refuses this login: check mysql.user and mysql.password for this host)"
		case pctx.Err() != nil && ctx.Err() == nil:
			err = &NoAnswerError{After: AnswerTimeout}
		case !ServerAnswered(err) && ctx.Err() == nil:
			hint = " (no server answers there: is it running?)"
		}
		return nil, fmt.Errorf("%s: mysql %s@%s: %w%s", h, cfg.User, cfg.Addr, err, hint)
	}
	return db, nil
}

func portOr(p int) int {
	if p == 0 {
		return 3306
	}
	return p
}

// ServerAnswered reports whether err came from the server itself (a MySQL
// error packet, such as a refused login) rather than from reaching it: a
// server that answers is running, whatever it answered.
func ServerAnswered(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me)
}

// LoginRefused reports whether the server refused the account: a wrong
// password (1045) or a plugin that does not take one (1698, unix_socket
// and auth_socket accounts).
func LoginRefused(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1045 || me.Number == 1698)
}
