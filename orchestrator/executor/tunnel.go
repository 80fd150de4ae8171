package executor

import (
	"context"
	"io"
	"net"

	"golang.org/x/crypto/ssh"
)

// DialContext opens a connection from the host to addr, tunnelled through
// the SSH connection: "tcp" (e.g. 127.0.0.1:3306) or "unix" (a socket path,
// via the streamlocal extension). The database is reached this way without
// opening its port to the control machine. The connection supports
// deadlines, which the MySQL driver uses for read/write timeouts.
func (s *SSH) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6", "unix":
	default:
		return nil, s.errorf("dial %s %s: unsupported network", network, addr)
	}
	nc, err := withChannel(ctx, s, func(c *ssh.Client) (net.Conn, error) {
		return c.DialContext(ctx, network, addr)
	})
	if err != nil {
		return nil, s.errorf("tunnel to %s %s: %w", network, addr, err)
	}
	return withDeadlines(nc), nil
}

// withDeadlines fronts an SSH channel, whose Set*Deadline methods only
// return errors, with one end of a net.Pipe, which implements them. Two
// goroutines copy between the pipe and the channel; closing either side
// closes both.
func withDeadlines(ch net.Conn) net.Conn {
	user, inner := net.Pipe()
	go func() {
		io.Copy(inner, ch)
		inner.Close()
	}()
	go func() {
		io.Copy(ch, inner)
		ch.Close()
	}()
	return &tunnelConn{Conn: user, ch: ch}
}

// tunnelConn reports the channel's addresses rather than the pipe's.
type tunnelConn struct {
	net.Conn
	ch net.Conn
}

func (t *tunnelConn) LocalAddr() net.Addr  { return t.ch.LocalAddr() }
func (t *tunnelConn) RemoteAddr() net.Addr { return t.ch.RemoteAddr() }
