package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// serviceBox is a host whose only behaviour is an init-style status script
// with a fixed exit code; it records every script and refuses every dial.
type serviceBox struct {
	statusExit int
	scripts    []string
}

const (
	boxStart  = "/opt/db/bin/db-start"
	boxStop   = "/opt/db/bin/db-stop"
	boxStatus = "/opt/db/bin/db-status"
)

func (b *serviceBox) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	b.scripts = append(b.scripts, c.Script)
	switch c.Script {
	case boxStatus:
		if b.statusExit != 0 {
			return executor.Result{ExitCode: b.statusExit}, &executor.ExitError{Host: "box", ExitCode: b.statusExit}
		}
		return executor.Result{}, nil
	case boxStart:
		return executor.Result{}, errors.New("box: start is not expected in this test")
	}
	// Anything else is the host probe: say nothing about the host.
	return executor.Result{}, nil
}

func (b *serviceBox) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED}
}
func (b *serviceBox) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return errors.New("box: no uploads")
}
func (b *serviceBox) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("box: no downloads")
}
func (b *serviceBox) Name() string { return "box 192.0.2.7" }
func (b *serviceBox) Close() error { return nil }

func (b *serviceBox) ran(script string) bool {
	for _, s := range b.scripts {
		if s == script {
			return true
		}
	}
	return false
}

func boxHost() *topology.Host {
	h := &topology.Host{Name: "db7", Address: "192.0.2.7", Role: topology.RoleSlave}
	h.MySQL.User = "bench"
	h.MySQL.ConfigDir = "/etc/db/conf.d"
	h.MySQL.Service = topology.ServiceControl{Start: boxStart, Stop: boxStop, Status: boxStatus}
	return h
}

// TestStartIfStoppedLeavesAnsweringServerAlone: a server that refuses the
// login (error 1045, as a wrong password gets) is running; orch neither asks
// the service nor starts anything, and returns the login error at once.
func TestStartIfStoppedLeavesAnsweringServerAlone(t *testing.T) {
	box := &serviceBox{statusExit: 3}
	login := fmt.Errorf("db7 192.0.2.7: mysql bench@127.0.0.1:3306: %w",
		&mysql.MySQLError{Number: 1045, SQLState: [5]byte{'2', '8', '0', '0', '0'}, Message: "Access denied for user 'bench'@'localhost' (using password: YES)"})
	started, err := StartIfStopped(context.Background(), boxHost(), box, login, nil)
	if started || !errors.Is(err, login) {
		t.Fatalf("started %v, err %v; want the login error back", started, err)
	}
	if len(box.scripts) != 0 {
		t.Errorf("ran %q on a server that answered", box.scripts)
	}
}

// TestStartIfStoppedAsksTheService: a server that cannot be reached is
// started only when its service says it is not running.
func TestStartIfStoppedAsksTheService(t *testing.T) {
	refused := fmt.Errorf("db7 192.0.2.7: mysql: %w", &net.OpError{Op: "dial", Net: "unix", Err: syscall.ECONNREFUSED})

	running := &serviceBox{statusExit: 0}
	started, err := StartIfStopped(context.Background(), boxHost(), running, refused, nil)
	if started || err == nil || !strings.Contains(err.Error(), "reports the server running") {
		t.Fatalf("running service: started %v, err %v", started, err)
	}
	if running.ran(boxStart) || !running.ran(boxStatus) {
		t.Errorf("running service: scripts %q", running.scripts)
	}

	stopped := &serviceBox{statusExit: 3}
	started, err = StartIfStopped(context.Background(), boxHost(), stopped, refused, nil)
	if !stopped.ran(boxStatus) || !stopped.ran(boxStart) {
		t.Errorf("stopped service: scripts %q, want status then start", stopped.scripts)
	}
	if started || err == nil || !strings.Contains(err.Error(), "start server") {
		t.Errorf("stopped service whose start fails: started %v, err %v", started, err)
	}
}
