package runner

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/topology"
)

// simLab is one or more clusters of simulated Debian hosts, loaded from a
// YAML inventory the test writes, for the use cases that connect to them
// (up, down, status, check). The database side of each host is fakemaria's
// (service scripts, option files, the server); the rest of what a stock
// host answers is here: the command lock is a real shell and flock(1) in
// the SSH user's home (a directory per host), the stock server listens on
// 127.0.0.1 only (so a connection from another host is refused), and the
// facts a host reports (the probe) are a Debian 12 host's, canned.
type simLab struct {
	set  *topology.Set
	labs map[string]*fakemaria.Lab // by cluster name

	mu    sync.Mutex
	dials int
	// down: hosts (by address) whose SSH port does not answer.
	down map[string]bool
	// dropped: hosts (by address) whose TCP connections are dropped by a
	// firewall: they time out rather than being refused.
	dropped map[string]bool
	// clockAhead: how far a host's clock is ahead of this machine's.
	clockAhead map[string]time.Duration
	// onRun hears every command a host is sent, before it runs.
	onRun func(host, script string)
	// homes: each host's login home, by address.
	homes map[string]string
}

// newSimLab writes yaml to a file of the test and loads every cluster in
// it; each database host starts as a stock MariaDB 10.11 server.
func newSimLab(t *testing.T, yaml string) *simLab {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) here: the simulated hosts' command lock needs it")
	}
	t.Setenv("ORCH_SIM_MYSQL_PW", "sim-mysql-pw")
	t.Setenv("ORCH_SIM_BENCH_PW", "sim-bench-pw")
	t.Setenv(account.EnvStateDir, t.TempDir())
	path := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := topology.LoadSet([]string{path}, topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	l := &simLab{set: set, labs: map[string]*fakemaria.Lab{}, down: map[string]bool{}, dropped: map[string]bool{},
		clockAhead: map[string]time.Duration{}, homes: map[string]string{}}
	for _, inv := range set.Clusters {
		// The passwords orch generates for the accounts it manages, as
		// the command line points the inventory at them.
		dir, err := account.StateDir(inv)
		if err != nil {
			t.Fatal(err)
		}
		account.Resolve(inv, dir)
		l.labs[inv.Name] = fakemaria.NewLab(inv)
		for _, h := range inv.Hosts {
			l.homes[h.Address] = t.TempDir()
		}
	}
	return l
}

// cluster is the named cluster's inventory.
func (l *simLab) cluster(t *testing.T, name string) *topology.Inventory {
	t.Helper()
	for _, inv := range l.set.Clusters {
		if inv.Name == name {
			return inv
		}
	}
	t.Fatalf("no cluster %q", name)
	return nil
}

// host is the simulated database host of a cluster, by name.
func (l *simLab) host(t *testing.T, clusterName, name string) *fakemaria.Host {
	t.Helper()
	for _, h := range l.labs[clusterName].Hosts {
		if h.Short() == name {
			return h
		}
	}
	t.Fatalf("no database host %s in %s", name, clusterName)
	return nil
}

// dialled is how many SSH connections the commands made.
func (l *simLab) dialled() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dials
}

// options are ClusterOptions on this lab's clusters, printing to out and
// errOut.
func (l *simLab) options(out, errOut io.Writer) ClusterOptions {
	return ClusterOptions{Clusters: l.set.Clusters, Connect: l.connect, Out: out, Err: errOut}
}

// connect is ClusterOptions.Connect: the hosts dialled as a command does.
func (l *simLab) connect(ctx context.Context, inv *topology.Inventory, hosts []*topology.Host) *cluster.Cluster {
	lab := l.labs[inv.Name]
	dial := func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
		l.mu.Lock()
		l.dials++
		down := l.down[h.Address]
		l.mu.Unlock()
		if down {
			return nil, fmt.Errorf("%s: dial tcp %s:22: connect: connection timed out", h, h.Address)
		}
		sh := &simHost{lab: l, name: h.Name, addr: h.Address, home: l.homes[h.Address]}
		if h.IsDB() {
			ex, err := lab.Dial(ctx, h, cfg)
			if err != nil {
				return nil, err
			}
			sh.Executor = ex
			for _, mh := range lab.Hosts {
				if mh.Short() == h.Name {
					sh.db = mh
				}
			}
		} else {
			sh.Executor = noServer{h.String()}
		}
		return sh, nil
	}
	open := func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
		if sh, ok := ex.(*simHost); ok {
			ex = sh.Executor
		}
		return lab.OpenDB(ctx, h, ex)
	}
	return cluster.Connect(ctx, inv, hosts, cluster.Options{Dialer: dial, OpenDB: open})
}

// simHost is one host's SSH connection.
type simHost struct {
	executor.Executor // the simulated database host (noServer on a load box)
	lab               *simLab
	name, addr, home  string
	db                *fakemaria.Host
}

func (h *simHost) Run(ctx context.Context, cmd executor.Command) (executor.Result, error) {
	l := h.lab
	l.mu.Lock()
	onRun, ahead := l.onRun, l.clockAhead[h.addr]
	l.mu.Unlock()
	if onRun != nil {
		onRun(h.name, cmd.Script)
	}
	s := cmd.Script
	switch {
	case strings.Contains(s, "flock"):
		// The command lock: run by a real shell with the host's home.
		env := map[string]string{"HOME": h.home}
		for k, v := range cmd.Env {
			env[k] = v
		}
		cmd.Env = env
		return executor.NewLocal(h.name).Run(ctx, cmd)
	case strings.Contains(s, "/proc/meminfo"):
		// The facts probe.
		return simOutput(cmd, debianFacts(h.db != nil))
	case strings.Contains(s, "date +%s.%N") && cmd.Stdin != nil:
		// A shell printing its clock for each line it reads.
		sc := bufio.NewScanner(cmd.Stdin)
		for sc.Scan() {
			now := time.Now().Add(ahead)
			if _, err := fmt.Fprintf(cmd.Stdout, "%d.%09d\n", now.Unix(), now.Nanosecond()); err != nil {
				return executor.Result{ExitCode: -1}, err
			}
		}
		return executor.Result{}, nil
	case s == "ss -Hltn":
		// A stock Debian server listens on the loopback address only.
		if h.db != nil && h.db.Running() {
			return simOutput(cmd, "LISTEN 0      80         127.0.0.1:3306      0.0.0.0:*\n")
		}
		return simOutput(cmd, "LISTEN 0      128          0.0.0.0:22        0.0.0.0:*\n")
	case strings.Contains(s, "/dev/tcp/"):
		// A TCP connect timed in bash: a refused one is a round trip too.
		return simOutput(cmd, "tcp_us=412\n")
	case strings.Contains(s, "mariadb --batch") && cmd.Sudo && cmd.Stdin != nil:
		// root's client through the server's unix socket.
		b, _ := io.ReadAll(cmd.Stdin)
		switch {
		case strings.TrimSpace(string(b)) != "SELECT 1;" || h.db == nil:
		case h.db.Running():
			return simOutput(cmd, "1\n1\n")
		default:
			msg := "ERROR 2002 (HY000): Can't connect to local server through socket '/run/mysqld/mysqld.sock' (2)\n"
			return executor.Result{ExitCode: 1, Stderr: []byte(msg)}, &executor.ExitError{Host: h.Name(), ExitCode: 1, Stderr: strings.TrimSpace(msg)}
		}
	}
	return h.Executor.Run(ctx, cmd)
}

// DialContext opens a TCP connection from the host: the stock servers
// listen on 127.0.0.1 only, so another host's port refuses it, unless a
// firewall drops it first.
func (h *simHost) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	h.lab.mu.Lock()
	dropped := h.lab.dropped[h.addr]
	h.lab.mu.Unlock()
	if dropped {
		return nil, fmt.Errorf("dial %s %s: i/o timeout", network, addr)
	}
	if host, _, _ := net.SplitHostPort(addr); host == "127.0.0.1" && h.db != nil && h.db.Running() {
		// The host's own server would answer: this lab speaks no MySQL
		// protocol, so a test must not need it.
		return nil, fmt.Errorf("simulated host %s: no MySQL protocol to %s", h.name, addr)
	}
	return nil, fmt.Errorf("dial %s %s: connect: connection refused", network, addr)
}

// simOutput is a command's standard output, streamed when the caller asked.
func simOutput(cmd executor.Command, s string) (executor.Result, error) {
	if cmd.Stdout != nil {
		_, err := io.WriteString(cmd.Stdout, s)
		return executor.Result{}, err
	}
	return executor.Result{Stdout: []byte(s)}, nil
}

// noServer is a load box's shell as far as this lab has one: anything not
// answered by simHost fails loudly.
type noServer struct{ name string }

func (n noServer) Name() string { return n.name }
func (n noServer) Close() error { return nil }
func (n noServer) Run(_ context.Context, cmd executor.Command) (executor.Result, error) {
	return executor.Result{ExitCode: -1}, fmt.Errorf("load box %s: unexpected command %q", n.name, cmd.Script)
}
func (n noServer) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return errors.New("load box " + n.name + ": unexpected upload")
}
func (n noServer) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("load box " + n.name + ": unexpected download")
}

// debianFacts is what a Debian 12 host prints for the probe: a database
// host with MariaDB 10.11 and gdb, or a load box with the MariaDB client.
func debianFacts(db bool) string {
	common := `uid=0
os=Debian GNU/Linux 12 (bookworm)
kernel=Linux 6.1.0-28-amd64
boot_id=4c3a8f0e-8d1b-4c55-9d8a-0b6f3e9a1c22
btime=1733040000
cpus=8
mem_kb=16303428
cpu_model=Intel(R) Xeon(R) E-2288G CPU @ 3.70GHz
thp=always madvise [never]
disk_path=/var/lib/mysql
disk_free_kb=51200000
disk_device=/dev/sda1
disk_fs=ext4
disk_size_kb=102400000
`
	if db {
		return common + `mysqld_path=/usr/sbin/mariadbd
mysqld_version=/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)
stack_tool=gdb
plugin_file=ha_rocksdb.so
`
	}
	lb := strings.NewReplacer("uid=0", "uid=1000", "mem_kb=16303428", "mem_kb=2097152").Replace(common)
	return lb +
		"mysqlslap=/usr/bin/mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)\n"
}
