package preflight

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// A cluster on this machine's loopback: the master's server is whatever
// listens at masterAddr:port, each slave and load box dials from here
// through its own executor (toolHost), and the benchmark account logs in
// with an inline password.
type pathLab struct {
	master, slave1, slave2, lb *topology.Host
	inv                        *topology.Inventory
	ex                         map[string]executor.Executor
}

func newPathLab(t *testing.T, masterAddr string, port int) *pathLab {
	l := &pathLab{
		master: &topology.Host{Name: "master", Role: topology.RoleMaster, Address: masterAddr, MySQL: topology.MySQLConfig{Port: port}},
		slave1: &topology.Host{Name: "slave1", Role: topology.RoleSlave, Address: "127.0.0.3"},
		slave2: &topology.Host{Name: "slave2", Role: topology.RoleSlave, Address: "10.0.0.4"},
		lb:     &topology.Host{Name: "lb", Role: topology.RoleLoadBox, Address: "127.0.0.4"},
	}
	l.inv = &topology.Inventory{Hosts: []*topology.Host{l.master, l.slave1, l.slave2, l.lb},
		Benchmark: topology.Account{User: "sbtest", Password: topology.InlineSecret("sbtest-pw")}}
	tools := toolDir(t, nil)
	l.ex = map[string]executor.Executor{ // slave2 cannot be reached
		"master": newToolHost("master", tools),
		"slave1": newToolHost("slave1", tools),
		"lb":     newToolHost("lb", tools),
	}
	return l
}

func (l *pathLab) paths(t *testing.T) []Path {
	return paths(context.Background(), connect(t, l.inv, l.inv.Hosts, l.ex))
}

func pathFrom(t *testing.T, ps []Path, from string) Path {
	t.Helper()
	for _, p := range ps {
		if p.From == from {
			return p
		}
	}
	t.Fatalf("no path from %s in %v", from, ps)
	return Path{}
}

func TestPathsFromEachHost(t *testing.T) {
	srv := startWire(t, "127.0.0.1:0", wireGreets)
	l := newPathLab(t, "127.0.0.1", srv.Port)
	ps := l.paths(t)
	if len(ps) != 3 {
		t.Fatalf("paths %v: want slave1, slave2 and the load box", ps)
	}
	for _, p := range ps {
		if p.To != srv.Addr() {
			t.Errorf("%s dials %s, want the master's %s", p.From, p.To, srv.Addr())
		}
	}
	if p := pathFrom(t, ps, "slave1"); !p.OK || !strings.Contains(p.Detail, "10.11.19-MariaDB") {
		t.Errorf("slave1: %v", p)
	}
	if p := pathFrom(t, ps, "slave2"); p.OK || !strings.Contains(p.Detail, "not connected") || !strings.Contains(p.Detail, "connection timed out") {
		t.Errorf("unreachable slave2: %v", p)
	}
	if p := pathFrom(t, ps, "lb"); !p.OK || !strings.Contains(p.What, "sbtest") {
		t.Errorf("load box: %v", p)
	}
	err := PathsErr(ps)
	if err == nil || !strings.Contains(err.Error(), "slave2 -> "+srv.Addr()) || strings.Contains(err.Error(), "slave1") || strings.Contains(err.Error(), "lb ->") {
		t.Errorf("PathsErr = %v: want slave2's path alone", err)
	}
}

func TestPathsServerAnswers(t *testing.T) {
	t.Run("no account for the slave's host", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireHostRefused)
		l := newPathLab(t, "127.0.0.1", srv.Port)
		ps := l.paths(t)
		if p := pathFrom(t, ps, "slave1"); !p.OK || !strings.Contains(p.Detail, "slave1") {
			t.Errorf("slave1: %v", p)
		}
		// The benchmark account is the inventory's: it must log in.
		if p := pathFrom(t, ps, "lb"); p.OK || !strings.Contains(p.Detail, "1130") {
			t.Errorf("load box: %v", p)
		}
	})
	t.Run("benchmark account not made yet", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireHostRefused)
		l := newPathLab(t, "127.0.0.1", srv.Port)
		l.inv.Benchmark = topology.Account{User: "orch_bench", Managed: true, Password: topology.Secret{File: filepath.Join(t.TempDir(), "bench.password")}}
		if p := pathFrom(t, l.paths(t), "lb"); !p.OK || !strings.Contains(p.Detail, "orch_bench") {
			t.Errorf("load box: %v", p)
		}
	})
	t.Run("benchmark login refused", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireRefuses)
		l := newPathLab(t, "127.0.0.1", srv.Port)
		p := pathFrom(t, l.paths(t), "lb")
		if p.OK || !strings.Contains(p.Detail, "Access denied") || !strings.Contains(p.Detail, "benchmark.password") {
			t.Errorf("load box: %v", p)
		}
	})
	t.Run("benchmark password unset", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireGreets)
		l := newPathLab(t, "127.0.0.1", srv.Port)
		l.inv.Benchmark.Password = topology.Secret{Env: "ORCH_TEST_UNSET_BENCH_PW"}
		os.Unsetenv("ORCH_TEST_UNSET_BENCH_PW")
		p := pathFrom(t, l.paths(t), "lb")
		if p.OK || !strings.Contains(p.Detail, "ORCH_TEST_UNSET_BENCH_PW") {
			t.Errorf("load box: %v", p)
		}
	})
	t.Run("too many connections", func(t *testing.T) {
		srv := startWire(t, "127.0.0.1:0", wireTooMany)
		l := newPathLab(t, "127.0.0.1", srv.Port)
		if p := pathFrom(t, l.paths(t), "slave1"); p.OK || !strings.Contains(p.Detail, "1040") {
			t.Errorf("slave1: %v", p)
		}
	})
}

// Names the slaves resolve, or do not, with their own resolver; a load
// box on the master's machine reaches it on loopback.
func TestPathsByName(t *testing.T) {
	need(t, "getent")
	srv := startWire(t, "127.0.0.1:0", wireGreets)
	l := newPathLab(t, "127.0.0.1", srv.Port)
	l.master.Address, l.lb.Address = "localhost", "localhost"
	ps := l.paths(t)
	name := net.JoinHostPort("localhost", strconv.Itoa(srv.Port))
	if p := pathFrom(t, ps, "slave1"); !p.OK || p.To != name {
		t.Errorf("slave1 by name: %v", p)
	}
	if p := pathFrom(t, ps, "lb"); !p.OK || p.To != srv.Addr() {
		t.Errorf("load box on the master's machine: %v", p)
	}

	l = newPathLab(t, "127.0.0.1", srv.Port)
	l.master.NetAddress = "db-master.invalid"
	ps = l.paths(t)
	for _, from := range []string{"slave1", "lb"} {
		p := pathFrom(t, ps, from)
		if p.OK || !strings.Contains(p.Detail, `"db-master.invalid"`) || !strings.Contains(p.Detail, from+" localhost") {
			t.Errorf("%s: %v", from, p)
		}
	}
	if srv.conns.Load() != 2 {
		t.Errorf("%d connections: want the first lab's two, none to a name that does not resolve", srv.conns.Load())
	}
}

// Without load boxes this machine is the benchmark client; a load box
// outside the command's hosts has no path checked.
func TestPathsBenchmarkClient(t *testing.T) {
	srv := startWire(t, "127.0.0.1:0", wireGreets)
	l := newPathLab(t, "127.0.0.1", srv.Port)
	l.inv.Hosts = l.inv.Hosts[:3]
	ps := l.paths(t)
	if p := pathFrom(t, ps, "this machine"); !p.OK || p.To != srv.Addr() {
		t.Errorf("this machine: %v", p)
	}

	l = newPathLab(t, "127.0.0.1", srv.Port)
	c := connect(t, l.inv, []*topology.Host{l.master, l.slave1}, l.ex)
	ps = paths(context.Background(), c)
	if len(ps) != 2 {
		t.Errorf("paths %v: want slave1's, and slave2 unchecked", ps)
	}
	if p := pathFrom(t, ps, "slave2"); p.OK || !strings.Contains(p.Detail, "not part of") {
		t.Errorf("slave2: %v", p)
	}

	l.inv.Hosts = []*topology.Host{l.slave1, l.lb}
	if ps := paths(context.Background(), connect(t, l.inv, l.inv.Hosts, l.ex)); ps != nil {
		t.Errorf("no master, yet paths %v", ps)
	}
}

// A refused port on a server orch will rebind or start is not a broken
// path: ss on the master tells which. A server the inventory calls
// existing is never rebound, so its refusal stands.
func TestPathsRefusedPort(t *testing.T) {
	need(t, "ss")
	t.Run("server stopped", func(t *testing.T) {
		l := newPathLab(t, "127.0.0.1", closedPort(t))
		for _, p := range l.paths(t) {
			if p.From == "slave2" {
				continue
			}
			if !p.OK || !strings.Contains(p.Detail, "refused") || strings.Contains(p.Detail, "127.0.0.1 only") {
				t.Errorf("%v", p)
			}
		}
	})
	t.Run("server on loopback only", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		port := ln.Addr().(*net.TCPAddr).Port
		l := newPathLab(t, "127.0.0.2", port)
		for _, p := range l.paths(t) {
			if p.From != "slave2" && (!p.OK || !strings.Contains(p.Detail, "127.0.0.1")) {
				t.Errorf("%v", p)
			}
		}
	})
	t.Run("existing server", func(t *testing.T) {
		l := newPathLab(t, "127.0.0.1", closedPort(t))
		l.inv.Existing = true
		for _, p := range l.paths(t) {
			if p.OK || p.From != "slave2" && !strings.Contains(p.Detail, "connection refused") {
				t.Errorf("%v", p)
			}
		}
	})
}

func TestReplicationPassword(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "repl.password")
	inv := &topology.Inventory{Replication: topology.Replication{PasswordManaged: true, Password: topology.Secret{File: file}}}
	pending := ReplicationPassword(inv)
	if err := os.WriteFile(file, []byte("s3cret-generated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	made := ReplicationPassword(inv)
	for _, s := range []string{pending, made} {
		if !strings.Contains(s, file) || strings.Contains(s, "s3cret") {
			t.Errorf("%q: want the file named, never its content", s)
		}
	}
	if pending == made {
		t.Errorf("before and after up both say %q", made)
	}
	inv.Replication = topology.Replication{Password: topology.InlineSecret("hunter2")}
	if s := ReplicationPassword(inv); strings.Contains(s, "hunter2") || s == "" {
		t.Errorf("inline password: %q", s)
	}
	inv.Replication = topology.Replication{Password: topology.Secret{Env: "REPL_PW"}}
	if s := ReplicationPassword(inv); !strings.Contains(s, "REPL_PW") {
		t.Errorf("env password: %q", s)
	}
}

func TestPathsErrNilWhenAllOK(t *testing.T) {
	ok := []Path{{From: "slave1", To: "10.0.0.1:3306", What: "replication", OK: true, Detail: "server answers"}}
	if err := PathsErr(ok); err != nil {
		t.Errorf("PathsErr = %v", err)
	}
	if err := PathsErr(nil); err != nil {
		t.Errorf("PathsErr(nil) = %v", err)
	}
	bad := append(ok, Path{From: "lb", To: "10.0.0.1:3306", What: "benchmark login as sbtest", Detail: "i/o timeout"})
	err := PathsErr(bad)
	if err == nil || !strings.Contains(err.Error(), "lb -> 10.0.0.1:3306") || !strings.Contains(err.Error(), "i/o timeout") || strings.Contains(err.Error(), "slave1") {
		t.Errorf("PathsErr = %v", err)
	}
}

// A slave orch could not log in to (its SSH port refused) has a broken
// path, whatever the master's server listens on: the refusal is of the
// slave's SSH, not of the master's port, so it proves no route, and it is
// not worth checking again (the slave is not dialled again).
func TestPathsSlaveSSHRefused(t *testing.T) {
	need(t, "ss")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	l := newPathLab(t, "127.0.0.2", ln.Addr().(*net.TCPAddr).Port)
	dial := func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		if ex, ok := l.ex[h.Name]; ok {
			return ex, nil
		}
		return nil, errors.New(h.String() + ": dial tcp " + h.Address + ":22: connect: connection refused")
	}
	c := cluster.Connect(context.Background(), l.inv, l.inv.Hosts, cluster.Options{Dialer: dial})
	defer c.Close()
	ps := paths(context.Background(), c)
	p := pathFrom(t, ps, "slave2")
	if p.OK || !strings.Contains(p.Detail, "not connected") || !strings.Contains(p.Detail, "connection refused") {
		t.Errorf("slave2, its SSH refused: %v", p)
	}
	if transient(p.Detail) {
		t.Errorf("slave2's refused SSH counts as a port that may open: %q", p.Detail)
	}
	// The reachable slave's refusal is the master's loopback-only server.
	if p := pathFrom(t, ps, "slave1"); !p.OK || !strings.Contains(p.Detail, "127.0.0.1 only") {
		t.Errorf("slave1: %v", p)
	}
}
