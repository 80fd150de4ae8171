package mysqlconn

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// LoginFrom logs in to the server at addr (host:port) as user, on a
// connection d opens: through a load box's SSH connection, the server
// sees the load box as the client, exactly as the benchmark will. The
// password lives only in memory.
func LoginFrom(ctx context.Context, d Dialer, addr, user, password string) error {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = user, password, "tcp", addr
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	cfg.Timeout = 10 * time.Second
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	return db.PingContext(ctx)
}

// Greeting connects to addr through d and reads the server's first
// packet: its version when it greets, or the error it sends instead (a
// client host the server refuses, too many connections).
func Greeting(ctx context.Context, d Dialer, addr string) (version string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	var hdr [4]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return "", fmt.Errorf("no greeting: %w", err)
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if n == 0 || n > 1<<16 {
		return "", fmt.Errorf("not a MySQL greeting (packet length %d)", n)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(c, p); err != nil {
		return "", fmt.Errorf("no greeting: %w", err)
	}
	return parseGreeting(p)
}

// parseGreeting reads a handshake (protocol 10: version, NUL-terminated)
// or an error packet (0xff, code, message) as the protocol documents them.
func parseGreeting(p []byte) (string, error) {
	switch {
	case p[0] == 0x0a:
		v, _, _ := strings.Cut(string(p[1:]), "\x00")
		return v, nil
	case p[0] == 0xff && len(p) >= 3:
		code := binary.LittleEndian.Uint16(p[1:3])
		msg := p[3:]
		if len(msg) >= 6 && msg[0] == '#' {
			msg = msg[6:]
		}
		return "", &RefusedError{Code: code, Msg: string(msg)}
	}
	return "", fmt.Errorf("not a MySQL greeting (first byte %#x)", p[0])
}

// RefusedError is a server's answer instead of a greeting.
type RefusedError struct {
	Code uint16
	Msg  string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("server refused the connection: error %d: %s", e.Code, e.Msg)
}

// NoAccountForHost reports whether the server refused the client because
// no account matches its host (ER_HOST_NOT_PRIVILEGED, 1130): the server
// runs and the path works; only an account is missing.
func NoAccountForHost(err error) bool {
	var re *RefusedError
	return errors.As(err, &re) && re.Code == 1130
}
