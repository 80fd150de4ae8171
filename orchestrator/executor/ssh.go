package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/orch-bench/orch/topology"
)

// DialConfig tunes how SSH connections are made.
type DialConfig struct {
	// KnownHostsFile verifies host keys (default ~/.ssh/known_hosts).
	KnownHostsFile string
	// AcceptNewHostKeys appends keys of hosts not yet in KnownHostsFile.
	// A changed key is refused regardless.
	AcceptNewHostKeys bool
	// SSHConfigFile is the ssh_config to honour: "" = ~/.ssh/config,
	// "none" = ignore.
	SSHConfigFile string
	// ConnectTimeout bounds TCP connect plus handshake (both hops through a
	// jump host). Default: the host's ssh.connect_timeout, else 10s.
	ConnectTimeout time.Duration
	// KeepAlive is the interval between keepalive requests (default 5s);
	// the connection is closed when a reply takes three intervals, so a
	// dead link is found within 20 s. sshd answers keepalives itself, so
	// even a host saturated by a benchmark replies well within 15 s.
	KeepAlive time.Duration
	// Logf receives diagnostics (may be nil).
	Logf func(format string, args ...any)
}

const (
	defaultConnectTimeout = 10 * time.Second
	defaultKeepAlive      = 5 * time.Second
	keepAliveMissed       = 3
	// maxSessions matches OpenSSH's default MaxSessions: more concurrent
	// sessions on one connection would be refused by the server.
	maxSessions = 10
)

// SSH runs commands on one host over a single SSH connection shared by
// every command, transfer and tunnel (sessions are multiplexed on it).
type SSH struct {
	host     *topology.Host
	name     string
	cfg      DialConfig
	route    route
	creds    *credentials
	hostKeys *hostKeys // for the target
	jumpKeys *hostKeys // for the jump host, when there is one
	sessions chan struct{}

	handshakes atomic.Int64

	mu     sync.Mutex
	cur    *conn
	closed bool

	sudoMu sync.Mutex
	sudo   sudoState
}

var _ Executor = (*SSH)(nil)

// conn is one live connection (and the bastion connection under it).
type conn struct {
	client *ssh.Client
	jump   *ssh.Client
	done   chan struct{} // closed once the connection is gone
}

func (c *conn) close() {
	c.client.Close()
	if c.jump != nil {
		c.jump.Close()
	}
}

// Dial connects to h and returns an executor bound to that connection.
// Every error names the host.
func Dial(ctx context.Context, h *topology.Host, cfg DialConfig) (*SSH, error) {
	if h == nil || h.Address == "" {
		return nil, errors.New("ssh dial: host without an address")
	}
	s := &SSH{host: h, name: h.String(), cfg: cfg, sessions: make(chan struct{}, maxSessions)}
	if s.cfg.Logf == nil {
		s.cfg.Logf = func(string, ...any) {}
	}
	if s.cfg.ConnectTimeout <= 0 {
		s.cfg.ConnectTimeout = h.SSH.ConnectTimeout
	}
	if s.cfg.ConnectTimeout <= 0 {
		s.cfg.ConnectTimeout = defaultConnectTimeout
	}
	if s.cfg.KeepAlive <= 0 {
		s.cfg.KeepAlive = defaultKeepAlive
	}
	defaultKH := ""
	if home, err := os.UserHomeDir(); err == nil {
		defaultKH = filepath.Join(home, ".ssh", "known_hosts")
	} else if cfg.KnownHostsFile == "" {
		return nil, s.errorf("known hosts: %w", err)
	}

	sc, err := loadSSHConfig(cfg.SSHConfigFile)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	if s.route, err = resolveRoute(h, sc); err != nil {
		return nil, s.errorf("%w", err)
	}
	s.hostKeys = hostKeysFor(cfg, defaultKH, s.route.target, s.logf)
	if j := s.route.jump; j != nil {
		s.jumpKeys = hostKeysFor(cfg, defaultKH, *j, s.logf)
	}
	if s.creds, err = loadCredentials(h, s.route.identities, s.logf); err != nil {
		return nil, s.errorf("%w", err)
	}
	c, err := s.connect(ctx)
	if err != nil {
		return nil, s.errorf("%w", err)
	}
	s.cur = c
	return s, nil
}

// Name is "name address".
func (s *SSH) Name() string { return s.name }

// Handshakes counts SSH handshakes completed so far, bastion hops included.
func (s *SSH) Handshakes() int { return int(s.handshakes.Load()) }

// User is the login user on the host.
func (s *SSH) User() string { return s.route.target.user }

// Close closes the connection; the executor cannot be used afterwards.
func (s *SSH) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.cur.close()
	return nil
}

func (s *SSH) errorf(format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{s.name}, args...)...)
}

func (s *SSH) logf(format string, args ...any) {
	s.cfg.Logf("%s: "+format, append([]any{s.name}, args...)...)
}

// connect dials the host, through the bastion when there is one. The
// connect timeout covers every TCP connect and handshake on the way. Errors
// do not name the host; callers add it.
func (s *SSH) connect(ctx context.Context) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectTimeout)
	defer cancel()
	tgt := s.route.target
	var d net.Dialer
	c := &conn{done: make(chan struct{})}
	var nc net.Conn
	var err error
	if j := s.route.jump; j != nil {
		what := "jump host " + j.String()
		if nc, err = d.DialContext(ctx, "tcp", j.addr()); err != nil {
			return nil, s.connectErr(ctx, what, err)
		}
		if c.jump, err = s.handshake(ctx, nc, *j, s.jumpKeys); err != nil {
			return nil, s.connectErr(ctx, what, err)
		}
		if nc, err = c.jump.DialContext(ctx, "tcp", tgt.addr()); err != nil {
			c.jump.Close()
			return nil, s.connectErr(ctx, "connect "+tgt.addr()+" via "+what, err)
		}
	} else if nc, err = d.DialContext(ctx, "tcp", tgt.addr()); err != nil {
		return nil, s.connectErr(ctx, "connect "+tgt.addr(), err)
	}
	if c.client, err = s.handshake(ctx, nc, tgt, s.hostKeys); err != nil {
		if c.jump != nil {
			c.jump.Close()
		}
		var hk *hostKeyError
		if errors.As(err, &hk) {
			return nil, hk // its message names the address already
		}
		return nil, s.connectErr(ctx, "ssh "+tgt.String(), err)
	}
	go func() {
		c.client.Wait()
		if c.jump != nil {
			c.jump.Close()
		}
		close(c.done)
	}()
	go s.keepalive(c)
	return c, nil
}

func (s *SSH) connectErr(ctx context.Context, what string, err error) error {
	var hk *hostKeyError
	switch {
	case errors.As(err, &hk):
		return fmt.Errorf("%s: %w", what, hk)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%s: timed out after %s: %w", what, s.cfg.ConnectTimeout, ctx.Err())
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	return fmt.Errorf("%s: %w", what, err)
}

// handshake runs the SSH handshake over nc for ep. Closing nc is the only
// way to interrupt x/crypto/ssh, so ctx expiry closes it.
func (s *SSH) handshake(ctx context.Context, nc net.Conn, ep endpoint, hk *hostKeys) (*ssh.Client, error) {
	callback, algos, err := hk.config(ep.addr())
	if err != nil {
		nc.Close()
		return nil, err
	}
	auth, cleanup := s.creds.methods()
	defer cleanup()
	config := &ssh.ClientConfig{
		User:              ep.user,
		Auth:              auth,
		HostKeyCallback:   pinFirstKey(callback),
		HostKeyAlgorithms: algos,
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	sc, chans, reqs, err := ssh.NewClientConn(nc, ep.addr(), config)
	if !stop() {
		if err == nil {
			sc.Close()
		}
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, s.creds.explain(err)
	}
	s.handshakes.Add(1)
	return ssh.NewClient(sc, chans, reqs), nil
}

// pinFirstKey verifies the first host key with callback (known_hosts) and
// then drops callback: x/crypto/ssh keeps the callback for the connection's
// lifetime to check the key again at every re-key, and callback holds the
// whole parsed known_hosts file, so with N hosts in it every connection
// kept N keys alive (180 MB at 1,000 hosts, BenchmarkCheckFanout1000).
// A re-key must present the key verified at connect time: a server whose
// key changes mid-connection is refused, which is stricter than checking
// known_hosts again.
func pinFirstKey(callback ssh.HostKeyCallback) ssh.HostKeyCallback {
	var mu sync.Mutex
	var pinned []byte
	return func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		mu.Lock()
		defer mu.Unlock()
		if callback == nil {
			if !bytes.Equal(key.Marshal(), pinned) {
				return &hostKeyError{fmt.Sprintf("host key for %s changed during the connection (now %s %s): refusing it",
					hostname, key.Type(), ssh.FingerprintSHA256(key))}
			}
			return nil
		}
		if err := callback(hostname, remote, key); err != nil {
			return err
		}
		pinned, callback = key.Marshal(), nil
		return nil
	}
}

// keepalive probes the connection and closes it when the server stops
// answering, so commands fail instead of hanging on a dead peer.
func (s *SSH) keepalive(c *conn) {
	t := time.NewTicker(s.cfg.KeepAlive)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
		}
		replied := make(chan error, 1)
		go func() {
			_, _, err := c.client.SendRequest("keepalive@openssh.com", true, nil)
			replied <- err
		}()
		select {
		case err := <-replied:
			if err != nil {
				return // the connection is already gone
			}
		case <-time.After(keepAliveMissed * s.cfg.KeepAlive):
			s.logf("no keepalive reply for %s, closing the connection", keepAliveMissed*s.cfg.KeepAlive)
			c.close()
			return
		case <-c.done:
			return
		}
	}
}

var errClosed = errors.New("executor closed")

// current returns the live connection.
func (s *SSH) current() (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	return s.cur, nil
}

// redial replaces a broken connection. When another caller already did,
// its connection is used.
func (s *SSH) redial(ctx context.Context, broken *conn) (*conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errClosed
	}
	if s.cur != broken {
		return s.cur, nil
	}
	broken.close()
	s.logf("connection lost, re-connecting")
	c, err := s.connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connection lost; reconnecting failed: %w", err)
	}
	s.cur = c
	return c, nil
}

// withChannel runs open (which opens one session or tunnel) on the live
// connection. When it fails because the connection broke, the host is
// re-dialled once and open tried again. Nothing has run remotely when a
// channel fails to open, so retrying never repeats a command. Errors do
// not name the host.
func withChannel[T any](ctx context.Context, s *SSH, open func(*ssh.Client) (T, error)) (T, error) {
	var zero T
	c, err := s.current()
	if err != nil {
		return zero, err
	}
	v, err := open(c.client)
	if err == nil {
		return v, nil
	}
	var refused *ssh.OpenChannelError
	if errors.As(err, &refused) || ctx.Err() != nil {
		return zero, err
	}
	if c, err = s.redial(ctx, c); err != nil {
		return zero, err
	}
	return open(c.client)
}
