package executor

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gliderssh "github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/orch-bench/orch/topology"
)

// testServer is an in-process SSH server on loopback whose sessions run
// `sh -c RawCommand` for real, with signals, exit status and forwarding.
type testServer struct {
	t        testing.TB
	srv      *gliderssh.Server
	ln       net.Listener
	port     int
	hostKeys []gossh.Signer
	env      []string

	password   string            // accepted password ("" = no password auth)
	authorized []gossh.PublicKey // accepted client keys

	mu       sync.Mutex
	commands []string
	raw      []net.Conn
	accepted int
	tunnels  []string
	users    []string

	keepaliveBlock chan struct{} // non-nil: keepalive requests get no reply
	ignoreSignals  bool          // like OpenSSH for root logins
	maxSessions    int           // like OpenSSH's MaxSessions (0: no limit, <0: none)
	activeSessions int
	refused        int
}

type serverOption func(*testServer)

func withPassword(pw string) serverOption { return func(s *testServer) { s.password = pw } }

func withAuthorized(keys ...gossh.PublicKey) serverOption {
	return func(s *testServer) { s.authorized = keys }
}

func withHostKeys(keys ...gossh.Signer) serverOption {
	return func(s *testServer) { s.hostKeys = keys }
}

func withEnv(kv ...string) serverOption { return func(s *testServer) { s.env = append(s.env, kv...) } }

// withoutSignals makes the server ignore signal requests, as OpenSSH does
// for root logins.
func withoutSignals() serverOption { return func(s *testServer) { s.ignoreSignals = true } }

// withMaxSessions refuses session channels beyond n open at once.
func withMaxSessions(n int) serverOption { return func(s *testServer) { s.maxSessions = n } }

func withSilentKeepalive() serverOption {
	return func(s *testServer) { s.keepaliveBlock = make(chan struct{}) }
}

// clientKey is the key every test server accepts unless told otherwise.
var clientKey = newEd25519Key()

func newTestServer(t testing.TB, opts ...serverOption) *testServer {
	t.Helper()
	ts := &testServer{t: t, authorized: []gossh.PublicKey{clientKey.PublicKey()}}
	for _, o := range opts {
		o(ts)
	}
	if len(ts.hostKeys) == 0 {
		ts.hostKeys = []gossh.Signer{newEd25519Key()}
	}
	var signers []gliderssh.Signer
	for _, k := range ts.hostKeys {
		signers = append(signers, k)
	}
	ts.srv = &gliderssh.Server{
		Handler:     ts.handle,
		HostSigners: signers,
		ConnCallback: func(ctx gliderssh.Context, c net.Conn) net.Conn {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.raw = append(ts.raw, c)
			ts.accepted++
			return c
		},
		LocalPortForwardingCallback: func(ctx gliderssh.Context, host string, port uint32) bool {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.tunnels = append(ts.tunnels, net.JoinHostPort(host, fmt.Sprint(port)))
			return true
		},
		ChannelHandlers: map[string]gliderssh.ChannelHandler{
			"session":                        ts.session,
			"direct-tcpip":                   gliderssh.DirectTCPIPHandler,
			"direct-streamlocal@openssh.com": ts.streamLocal,
		},
		RequestHandlers: map[string]gliderssh.RequestHandler{
			"keepalive@openssh.com": func(ctx gliderssh.Context, srv *gliderssh.Server, req *gossh.Request) (bool, []byte) {
				if ts.keepaliveBlock != nil {
					select {
					case <-ts.keepaliveBlock:
					case <-ctx.Done():
					}
				}
				return false, nil // OpenSSH answers keepalives with a failure too
			},
		},
		PublicKeyHandler: func(ctx gliderssh.Context, key gliderssh.PublicKey) bool {
			for _, k := range ts.authorized {
				if gliderssh.KeysEqual(key, k) {
					ts.recordUser(ctx.User())
					return true
				}
			}
			return false
		},
	}
	if ts.password != "" {
		ts.srv.PasswordHandler = func(ctx gliderssh.Context, pw string) bool {
			ts.recordUser(ctx.User())
			return pw == ts.password
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.ln = ln
	ts.port = ln.Addr().(*net.TCPAddr).Port
	go ts.srv.Serve(ln)
	t.Cleanup(func() {
		if ts.keepaliveBlock != nil {
			close(ts.keepaliveBlock)
		}
		ts.srv.Close()
	})
	return ts
}

func (ts *testServer) addr() string { return fmt.Sprintf("127.0.0.1:%d", ts.port) }

func (ts *testServer) recordUser(u string) {
	ts.mu.Lock()
	ts.users = append(ts.users, u)
	ts.mu.Unlock()
}

// Commands returns every command text the server was asked to run.
func (ts *testServer) Commands() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.commands...)
}

func (ts *testServer) Accepted() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.accepted
}

func (ts *testServer) Tunnels() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.tunnels...)
}

// dropConnections cuts every client connection, as a crashed peer would.
func (ts *testServer) dropConnections() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, c := range ts.raw {
		c.Close()
	}
	ts.raw = nil
}

func (ts *testServer) Refused() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.refused
}

// session enforces maxSessions; a slot is held until the client closes the
// channel, as in OpenSSH.
func (ts *testServer) session(srv *gliderssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx gliderssh.Context) {
	ts.mu.Lock()
	if ts.maxSessions < 0 || ts.maxSessions > 0 && ts.activeSessions >= ts.maxSessions {
		ts.refused++
		ts.mu.Unlock()
		nc.Reject(gossh.ConnectionFailed, "open failed")
		return
	}
	ts.activeSessions++
	ts.mu.Unlock()
	defer func() {
		ts.mu.Lock()
		ts.activeSessions--
		ts.mu.Unlock()
	}()
	gliderssh.DefaultSessionHandler(srv, conn, nc, ctx)
}

func (ts *testServer) handle(sess gliderssh.Session) {
	ts.mu.Lock()
	ts.commands = append(ts.commands, sess.RawCommand())
	ts.mu.Unlock()

	cmd := exec.Command("/bin/sh", "-c", sess.RawCommand())
	cmd.Env = append(os.Environ(), ts.env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = sess
	cmd.Stderr = sess.Stderr()
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(sess.Stderr(), err)
		sess.Exit(127)
		return
	}
	go func() {
		io.Copy(stdin, sess)
		stdin.Close()
	}()
	sigs := make(chan gliderssh.Signal, 8)
	if !ts.ignoreSignals {
		sess.Signals(sigs)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-sess.Context().Done():
		case <-done:
			return
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	cmd.Wait()
	close(done)
	sess.Signals(nil)
	sess.Exit(exitCode(cmd.ProcessState))
}

// streamLocal serves direct-streamlocal@openssh.com (a tunnel to a unix
// socket), which gliderlabs/ssh does not implement.
func (ts *testServer) streamLocal(_ *gliderssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx gliderssh.Context) {
	var req struct {
		SocketPath string
		Reserved0  string
		Reserved1  uint32
	}
	if err := gossh.Unmarshal(nc.ExtraData(), &req); err != nil {
		nc.Reject(gossh.ConnectionFailed, err.Error())
		return
	}
	uc, err := net.Dial("unix", req.SocketPath)
	if err != nil {
		nc.Reject(gossh.ConnectionFailed, err.Error())
		return
	}
	ts.mu.Lock()
	ts.tunnels = append(ts.tunnels, "unix:"+req.SocketPath)
	ts.mu.Unlock()
	ch, reqs, err := nc.Accept()
	if err != nil {
		uc.Close()
		return
	}
	go gossh.DiscardRequests(reqs)
	go func() { io.Copy(ch, uc); ch.CloseWrite() }()
	go func() { io.Copy(uc, ch); uc.Close() }()
}

// testKey is a signer with its private key, so it can also be written out.
type testKey struct {
	gossh.Signer
	priv any
}

func newEd25519Key() *testKey {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		panic(err)
	}
	return mustKey(priv)
}

func newECDSAKey() *testKey {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	return mustKey(priv)
}

func mustKey(priv any) *testKey {
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		panic(err)
	}
	return &testKey{s, priv}
}

// fixture is a client-side sandbox: HOME, a key file, a known_hosts file;
// no ssh-agent and no ~/.ssh/config leak in from the real environment.
type fixture struct {
	t          *testing.T
	dir        string
	keyFile    string
	knownHosts string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("HOME", dir)
	t.Setenv("SSH_AUTH_SOCK", "")
	f := &fixture{t: t, dir: dir, keyFile: filepath.Join(dir, "client_key"), knownHosts: filepath.Join(dir, "known_hosts")}
	writeKey(t, f.keyFile, clientKey)
	return f
}

// writeKey stores k unencrypted in OpenSSH format.
func writeKey(t testing.TB, path string, k *testKey) {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(k.priv, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

// trust records ts's host keys in the fixture's known_hosts.
func (f *fixture) trust(ts *testServer) {
	f.t.Helper()
	trustIn(f.t, f.knownHosts, ts, ts.hostKeys...)
}

func trustIn(t testing.TB, file string, ts *testServer, keys ...gossh.Signer) {
	t.Helper()
	fh, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	for _, k := range keys {
		fmt.Fprintln(fh, knownhosts.Line([]string{knownhosts.Normalize(ts.addr())}, k.PublicKey()))
	}
}

func (f *fixture) host(ts *testServer) *topology.Host {
	return &topology.Host{
		Name:    "db1",
		Role:    topology.RoleMaster,
		Address: "127.0.0.1",
		SSH:     topology.SSHConfig{User: "root", Port: ts.port, IdentityFiles: []string{f.keyFile}},
	}
}

func (f *fixture) config() DialConfig {
	return DialConfig{KnownHostsFile: f.knownHosts, SSHConfigFile: "none", ConnectTimeout: 5 * time.Second}
}

// dial connects and registers Close with the test.
func (f *fixture) dial(h *topology.Host, cfg DialConfig) *SSH {
	f.t.Helper()
	s, err := Dial(context.Background(), h, cfg)
	if err != nil {
		f.t.Fatalf("Dial: %v", err)
	}
	f.t.Cleanup(func() { s.Close() })
	return s
}

// connect is newTestServer + trust + dial with defaults.
func (f *fixture) connect(opts ...serverOption) (*testServer, *SSH) {
	f.t.Helper()
	ts := newTestServer(f.t, opts...)
	f.trust(ts)
	return ts, f.dial(f.host(ts), f.config())
}

func isExit(err error, code int) bool {
	var ee *ExitError
	return errors.As(err, &ee) && ee.ExitCode == code
}

func mustContain(t testing.TB, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("%q does not contain %q", s, p)
		}
	}
}
