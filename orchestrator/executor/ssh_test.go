package executor

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestSSHRunCapturesOutputAndExitCodes(t *testing.T) {
	f := newFixture(t)
	_, s := f.connect()
	ctx := context.Background()

	res, err := s.Run(ctx, Command{Script: "echo out; echo err >&2"})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Stdout) != "out\n" || string(res.Stderr) != "err\n" || res.ExitCode != 0 {
		t.Errorf("got stdout %q stderr %q code %d", res.Stdout, res.Stderr, res.ExitCode)
	}

	res, err = s.Run(ctx, Command{Script: "for i in 1 2 3 4 5 6 7; do echo line$i >&2; done; exit 3"})
	var ee *ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("want ExitError, got %v", err)
	}
	if ee.ExitCode != 3 || res.ExitCode != 3 || ee.Host != "db1 127.0.0.1" {
		t.Errorf("exit error %+v, result code %d", ee, res.ExitCode)
	}
	if ee.Stderr != "line3\nline4\nline5\nline6\nline7" {
		t.Errorf("stderr tail %q", ee.Stderr)
	}
	if !strings.HasPrefix(err.Error(), "db1 127.0.0.1: command exited 3") {
		t.Errorf("error %q does not name the host", err)
	}
	if len(res.Stderr) == 0 {
		t.Error("captured stderr missing from Result on failure")
	}
}

func TestSSHStdinAndStreaming(t *testing.T) {
	f := newFixture(t)
	_, s := f.connect()
	ctx := context.Background()

	res, err := s.Run(ctx, Command{Script: "tr a-z A-Z", Stdin: strings.NewReader("hello\nworld")})
	if err != nil || string(res.Stdout) != "HELLO\nWORLD" {
		t.Fatalf("stdin: %q, %v", res.Stdout, err)
	}

	// Output must arrive while the command still runs: the script waits
	// for input that is only sent after the first line was seen.
	inR, inW := io.Pipe()
	lines := make(chan string, 4)
	outR, outW := io.Pipe()
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var errBuf bytes.Buffer
	done := make(chan error, 1)
	go func() {
		_, err := s.Run(ctx, Command{Script: "echo first; read x; echo got $x; echo warn >&2", Stdin: inR, Stdout: outW, Stderr: &errBuf})
		outW.Close()
		done <- err
	}()
	if l := <-lines; l != "first" {
		t.Fatalf("first line %q", l)
	}
	select {
	case err := <-done:
		t.Fatalf("Run returned before its input was sent: %v", err)
	default:
	}
	io.WriteString(inW, "go\n")
	if l := <-lines; l != "got go" {
		t.Errorf("second line %q", l)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if errBuf.String() != "warn\n" {
		t.Errorf("streamed stderr %q", errBuf.String())
	}
}

func TestSSHOneWriterForBothStreams(t *testing.T) {
	f := newFixture(t)
	_, s := f.connect()
	var buf bytes.Buffer // not goroutine-safe: Run must serialise writes
	_, err := s.Run(context.Background(), Command{
		Script: "i=0; while [ $i -lt 200 ]; do echo o$i; echo e$i >&2; i=$((i+1)); done",
		Stdout: &buf, Stderr: &buf,
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 400 {
		t.Errorf("got %d lines, want 400", n)
	}
}

func TestSSHConnectionReuse(t *testing.T) {
	f := newFixture(t)
	ts, s := f.connect()
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, err := s.Run(context.Background(), Command{Script: "echo " + strconv.Itoa(i)})
			if err == nil && string(res.Stdout) != strconv.Itoa(i)+"\n" {
				err = errors.New("wrong output " + string(res.Stdout))
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if s.Handshakes() != 1 || ts.Accepted() != 1 {
		t.Errorf("20 commands took %d handshakes, %d connections", s.Handshakes(), ts.Accepted())
	}
}

func TestSSHRedialsOnceAfterDrop(t *testing.T) {
	f := newFixture(t)
	ts, s := f.connect()
	ctx := context.Background()
	if _, err := s.Run(ctx, Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
	ts.dropConnections()
	res, err := s.Run(ctx, Command{Script: "echo again"})
	if err != nil || string(res.Stdout) != "again\n" {
		t.Fatalf("after drop: %q, %v", res.Stdout, err)
	}
	if s.Handshakes() != 2 {
		t.Errorf("handshakes %d, want 2", s.Handshakes())
	}

	// With the server gone the single re-dial fails and says so.
	ts.srv.Close()
	_, err = s.Run(ctx, Command{Script: "true"})
	if err == nil {
		t.Fatal("Run succeeded against a closed server")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: ", "reconnecting failed")
	if s.Handshakes() != 2 {
		t.Errorf("handshakes %d after failed re-dial, want 2", s.Handshakes())
	}
}

func TestSSHTimeoutAndCancelKillRemoteProcess(t *testing.T) {
	f := newFixture(t)
	_, withSignals := f.connect()
	// OpenSSH ignores signal requests for root logins: the process group
	// must still die.
	_, noSignals := f.connect(withoutSignals())
	for _, tc := range []struct {
		server string
		s      *SSH
		mode   string
	}{
		{"signals", withSignals, "timeout"},
		{"signals", withSignals, "cancel"},
		{"no-signals", noSignals, "timeout"},
		{"no-signals", noSignals, "cancel"},
	} {
		s, mode := tc.s, tc.mode
		t.Run(tc.server+"/"+mode, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "pid")
			cmd := Command{Script: "echo $$ > " + pidFile + "; exec sleep 30"}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if mode == "timeout" {
				cmd.Timeout = 300 * time.Millisecond
			} else {
				go func() {
					waitForFile(t, pidFile)
					cancel()
				}()
			}
			start := time.Now()
			_, err := s.Run(ctx, cmd)
			want := context.DeadlineExceeded
			if mode == "cancel" {
				want = context.Canceled
			}
			if !errors.Is(err, want) {
				t.Fatalf("got %v, want %v", err, want)
			}
			mustContain(t, err.Error(), "db1 127.0.0.1: ")
			if time.Since(start) > 10*time.Second {
				t.Errorf("Run returned only after %s", time.Since(start))
			}
			waitProcessGone(t, readPid(t, pidFile))
		})
	}
	// The connection survives a cancelled command.
	if _, err := noSignals.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
}

func TestSSHWaitsForServerSessionLimit(t *testing.T) {
	f := newFixture(t)
	ts, s := f.connect(withMaxSessions(3))
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Run(context.Background(), Command{Script: "sleep 0.05"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if ts.Refused() == 0 {
		t.Error("the server never refused a session: the limit was not exercised")
	}

	// A refusal with none of ours open is final.
	ts.mu.Lock()
	ts.maxSessions = -1
	ts.mu.Unlock()
	_, err := s.Run(context.Background(), Command{Script: "true"})
	if err == nil {
		t.Fatal("Run succeeded on a server refusing every session")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: open session:", "open failed")
}

func TestSSHSecretEnvStaysOffTheCommandLine(t *testing.T) {
	f := newFixture(t)
	ts, s := f.connect()
	secret := `p4ss w'rd "$(echo x)" ` + "`id`;\\"
	res, err := s.Run(context.Background(), Command{
		Script:    `printf '%s|%s|' "$DB_PASS" "$PLAIN"; cat`,
		Env:       map[string]string{"PLAIN": "visible"},
		SecretEnv: map[string]string{"DB_PASS": secret, "EMPTY": ""},
		Stdin:     strings.NewReader("user stdin"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := secret + "|visible|user stdin"; string(res.Stdout) != want {
		t.Errorf("got %q, want %q", res.Stdout, want)
	}
	for _, c := range ts.Commands() {
		if strings.Contains(c, "p4ss") {
			t.Errorf("secret leaked into the command text: %q", c)
		}
	}

	_, err = s.Run(context.Background(), Command{Script: "true", SecretEnv: map[string]string{"X": "a\nb"}})
	if err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("newline in secret: %v", err)
	}
	_, err = s.Run(context.Background(), Command{Script: "true", Env: map[string]string{"A;rm": "x"}})
	if err == nil || !strings.Contains(err.Error(), "not a valid variable name") {
		t.Errorf("bad env name: %v", err)
	}
}

func TestSSHDialContextTunnels(t *testing.T) {
	f := newFixture(t)
	ts, s := f.connect()
	ctx := context.Background()

	tcpLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcpLn.Close()
	go echoServer(tcpLn)
	unixPath := filepath.Join(t.TempDir(), "echo.sock")
	unixLn, err := net.Listen("unix", unixPath)
	if err != nil {
		t.Fatal(err)
	}
	defer unixLn.Close()
	go echoServer(unixLn)

	for _, tc := range []struct{ network, addr string }{{"tcp", tcpLn.Addr().String()}, {"unix", unixPath}} {
		c, err := s.DialContext(ctx, tc.network, tc.addr)
		if err != nil {
			t.Fatalf("%s: %v", tc.network, err)
		}
		io.WriteString(c, "ping\n")
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || line != "ping\n" {
			t.Errorf("%s echo: %q, %v", tc.network, line, err)
		}
	}
	// Deadlines work (the MySQL driver's timeouts rely on them), and the
	// connection stays usable after one expires.
	c, err := s.DialContext(ctx, "tcp", tcpLn.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("read past deadline: %v", err)
	}
	c.SetDeadline(time.Time{})
	io.WriteString(c, "again\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "again\n" {
		t.Errorf("after deadline: %q, %v", line, err)
	}

	tunnels := strings.Join(ts.Tunnels(), " ")
	mustContain(t, tunnels, tcpLn.Addr().String(), "unix:"+unixPath)
	if s.Handshakes() != 1 {
		t.Errorf("tunnels used %d handshakes", s.Handshakes())
	}

	_, err = s.DialContext(ctx, "tcp", "127.0.0.1:1")
	if err == nil || !strings.HasPrefix(err.Error(), "db1 127.0.0.1: tunnel to tcp 127.0.0.1:1") {
		t.Errorf("refused tunnel: %v", err)
	}
}

func TestSSHJumpHost(t *testing.T) {
	f := newFixture(t)
	bastion := newTestServer(t)
	target := newTestServer(t)
	f.trust(bastion)
	f.trust(target)
	h := f.host(target)
	h.SSH.JumpHost = "jumper@" + bastion.addr()
	s := f.dial(h, f.config())
	res, err := s.Run(context.Background(), Command{Script: "echo via bastion"})
	if err != nil || string(res.Stdout) != "via bastion\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	if len(bastion.Commands()) != 0 || len(target.Commands()) != 1 {
		t.Errorf("bastion ran %q, target ran %q", bastion.Commands(), target.Commands())
	}
	if tun := bastion.Tunnels(); len(tun) != 1 || tun[0] != target.addr() {
		t.Errorf("bastion tunnels %q, want [%s]", tun, target.addr())
	}
	if bastion.users[0] != "jumper" {
		t.Errorf("bastion login user %q", bastion.users[0])
	}

	// The bastion's host key is verified too.
	os.WriteFile(f.knownHosts, nil, 0o600)
	f.trust(target)
	_, err = Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("unknown bastion key accepted")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: jump host jumper@"+bastion.addr(), "unknown host key")
}

func TestSSHKeepaliveClosesUnresponsiveConnection(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t, withSilentKeepalive())
	f.trust(ts)
	cfg := f.config()
	cfg.KeepAlive = 50 * time.Millisecond
	s := f.dial(f.host(ts), cfg)
	c, err := s.current()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Fatal("connection with unanswered keepalives still open")
	}
}

func TestSSHConnectTimeout(t *testing.T) {
	f := newFixture(t)
	// A listener that never speaks SSH: the handshake must time out.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	h := f.host(&testServer{port: ln.Addr().(*net.TCPAddr).Port})
	cfg := f.config()
	cfg.ConnectTimeout = 200 * time.Millisecond
	_, err = Dial(context.Background(), h, cfg)
	if err == nil {
		t.Fatal("Dial succeeded")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: ", "timed out after 200ms")
}

func echoServer(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() { io.Copy(c, c); c.Close() }()
	}
}

func waitForFile(t *testing.T, path string) {
	for i := 0; i < 500; i++ {
		if b, err := os.ReadFile(path); err == nil && len(b) > 0 && b[len(b)-1] == '\n' {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("%s never appeared", path)
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitProcessGone fails unless pid dies within 5s. A killed orphan stays a
// zombie until init reaps it, which counts as dead.
func waitProcessGone(t *testing.T, pid int) {
	t.Helper()
	for i := 0; i < 500; i++ {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err == nil {
			// The state follows the parenthesised command name.
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("process %d still running after cancel", pid)
}
