package mysqlconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/topology"
)

// recordingDialer notes every dial it is asked for and refuses it, so a
// test sees where a connection would have gone without a server.
type recordingDialer struct {
	mu    sync.Mutex
	calls []string
}

var errRefused = errors.New("dial refused by the test")

func (d *recordingDialer) DialContext(_ context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, network+" "+addr)
	return nil, errRefused
}

func host(name string, port int, socket string) *topology.Host {
	h := &topology.Host{Name: name, Address: "192.0.2.1"}
	h.MySQL.User = "bench"
	h.MySQL.Port = port
	h.MySQL.Socket = socket
	h.MySQL.Password = topology.InlineSecret("pw")
	return h
}

// TestOpenDialsThroughItsOwnTransport: each pool dials through the dialer it
// was opened with (two hosts opened at once never swap transports), to the
// server's socket or its local TCP port.
func TestOpenDialsThroughItsOwnTransport(t *testing.T) {
	a, b := &recordingDialer{}, &recordingDialer{}
	ctx := context.Background()
	var wg sync.WaitGroup
	var errA, errB error
	wg.Add(2)
	go func() { defer wg.Done(); _, errA = Open(ctx, a, host("db1", 0, "/run/mysqld/mysqld.sock")) }()
	go func() { defer wg.Done(); _, errB = Open(ctx, b, host("db2", 3307, "")) }()
	wg.Wait()
	for _, err := range []error{errA, errB} {
		if !errors.Is(err, errRefused) {
			t.Fatalf("Open error %v, want the dialer's own error", err)
		}
	}
	if !strings.HasPrefix(errA.Error(), "db1 ") || !strings.HasPrefix(errB.Error(), "db2 ") {
		t.Errorf("errors do not name their hosts: %q, %q", errA, errB)
	}
	if len(a.calls) == 0 || len(b.calls) == 0 {
		t.Fatalf("dials: a %v, b %v", a.calls, b.calls)
	}
	for _, c := range a.calls {
		if c != "unix /run/mysqld/mysqld.sock" {
			t.Errorf("db1 dialled %q", c)
		}
	}
	for _, c := range b.calls {
		if c != "tcp 127.0.0.1:3307" {
			t.Errorf("db2 dialled %q", c)
		}
	}
}

func TestConfigNeedsAPassword(t *testing.T) {
	h := host("db1", 0, "")
	h.MySQL.Password = topology.Secret{}
	cfg, err := Config(&recordingDialer{}, h)
	if err != nil {
		// An unset password is a valid (empty) one for socket auth.
		t.Fatalf("Config: %v", err)
	}
	if cfg.Passwd != "" || cfg.Addr != "127.0.0.1:3306" || cfg.DialFunc == nil {
		t.Errorf("config: passwd %q addr %q dialfunc set %v", cfg.Passwd, cfg.Addr, cfg.DialFunc != nil)
	}
}

// TestOpenSaysWhy: a refused dial and a refused login each get a hint
// saying which of the two it was.
func TestOpenSaysWhy(t *testing.T) {
	_, err := Open(context.Background(), &recordingDialer{}, host("db1", 0, ""))
	if err == nil || !strings.HasSuffix(err.Error(), "(no server answers there: is it running?)") {
		t.Errorf("refused dial: %v", err)
	}
	if !LoginRefused(fmt.Errorf("x: %w", &mysql.MySQLError{Number: 1698})) || LoginRefused(errRefused) || ServerAnswered(errRefused) {
		t.Error("login classification")
	}
}

// silentDialer connects to a peer that accepts the connection and never
// says a word, as a stopped (SIGSTOP) or wedged server does.
type silentDialer struct{ peers []net.Conn }

func (d *silentDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	ours, theirs := net.Pipe()
	d.peers = append(d.peers, theirs)
	return ours, nil
}

// TestOpenGivesUpOnAHungServer: Open answers within its bound, naming the
// host and the cause, instead of waiting for a greeting forever.
func TestOpenGivesUpOnAHungServer(t *testing.T) {
	defer func(old time.Duration) { AnswerTimeout = old }(AnswerTimeout)
	AnswerTimeout = 300 * time.Millisecond
	d := &silentDialer{}
	_, err := Open(context.Background(), d, host("db1", 0, ""))
	if err == nil {
		t.Fatal("Open on a silent server succeeded")
	}
	if !strings.Contains(err.Error(), "db1") || !strings.Contains(err.Error(), "no answer within 300ms") || !strings.Contains(err.Error(), "hung") || !Hung(err) {
		t.Errorf("error does not say which host and why: %v", err)
	}
	if len(d.peers) == 0 {
		t.Error("Open never dialled")
	}
	for _, p := range d.peers {
		p.Close()
	}
}
