package lab

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// testSubnet differs from the default so a lab left up by hand does not
// get in the way (the state dir, and so every kernel name, differs too).
const testSubnet = "10.95.0.0/24"

// needLabRun skips a test that builds a real lab unless ORCH_LAB=1 asks
// for one (make test sets it); asked for as another user than root, the
// test fails rather than skip, so that a suite that meant to build labs
// never passes without having built them.
func needLabRun(t *testing.T) {
	t.Helper()
	if os.Getenv("ORCH_LAB") != "1" {
		t.Skip("set ORCH_LAB=1 (as root) to build the real lab")
	}
	if os.Geteuid() != 0 {
		t.Fatal("ORCH_LAB=1, but the lab needs root")
	}
}

// TestIntegrationLab builds the real lab and checks what every other
// integration test relies on. Run as root with ORCH_LAB=1:
//
//	ORCH_LAB=1 go test ./lab/ -run Integration -count=1 -v
func TestIntegrationLab(t *testing.T) {
	needLabRun(t)
	dir := t.TempDir()
	cfg := Config{
		StateDir:      filepath.Join(dir, "state"),
		Subnet:        testSubnet,
		InventoryPath: filepath.Join(dir, "inventories", "lab.yaml"),
		Out:           testLog{t},
	}.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := Down(context.Background(), cfg); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})

	start := time.Now()
	if err := Up(ctx, cfg); err != nil {
		t.Fatalf("up: %v", err)
	}
	t.Logf("lab up from scratch in %.1fs", time.Since(start).Seconds())
	st, err := readState(cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	ip := map[string]string{}
	for _, h := range st.Hosts {
		ip[h.Name] = h.IP
	}
	requireHealthy(t, ctx, cfg)

	keyPEM, err := os.ReadFile(cfg.path(clientKeyName))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	root := func(host string) *ssh.Client {
		return dial(t, cfg, ip[host], "root", ssh.PublicKeys(signer))
	}
	master, slave1 := root("master"), root("slave1")

	t.Run("root with the lab key", func(t *testing.T) {
		for name := range ip {
			c := root(name)
			if out := mustRun(t, c, "hostname; id -u", ""); out != name+"\n0\n" {
				t.Errorf("%s: hostname/uid = %q", name, out)
			}
		}
	})

	t.Run("bench with password and sudo", func(t *testing.T) {
		pw, err := readSecretFile(cfg.path(benchPassName))
		if err != nil {
			t.Fatal(err)
		}
		c := dial(t, cfg, ip["slave2"], benchUser, ssh.Password(pw))
		if out := mustRun(t, c, "id -un; echo $HOME; pwd", ""); out != "bench\n/home/bench\n/home/bench\n" {
			t.Errorf("bench identity = %q", out)
		}
		if _, err := run1(c, "sudo -n true", ""); err == nil {
			t.Error("sudo without a password succeeded; it must require one")
		}
		if out := mustRun(t, c, "sudo -S -p '' id -u", pw+"\n"); out != "0\n" {
			t.Errorf("sudo id -u = %q", out)
		}
		if _, err := dialErr(cfg, ip["slave2"], benchUser, ssh.Password("wrong")); err == nil {
			t.Error("a wrong password logged in")
		}
		if _, err := dialErr(cfg, ip["slave2"], "root", ssh.Password(pw)); err == nil {
			t.Error("root logged in with a password")
		}
	})

	t.Run("isolation", func(t *testing.T) {
		const probe = "/etc/mysql/orch-lab-isolation-probe"
		mustRun(t, master, "echo master > "+probe, "")
		if out, err := run1(slave1, "cat "+probe, ""); err == nil {
			t.Errorf("slave1 sees master's %s: %q", probe, out)
		}
		if _, err := os.Stat(probe); err == nil {
			t.Errorf("the control machine sees master's %s", probe)
		}
		pids := strings.Fields(mustRun(t, master, "pidof mariadbd", ""))
		pidFile := strings.TrimSpace(mustRun(t, master, "cat /run/mysqld/mysqld.pid", ""))
		if len(pids) != 1 || pids[0] != pidFile {
			t.Errorf("master: pidof mariadbd = %v, its pid file says %s", pids, pidFile)
		}
		if out := mustRun(t, master, "ps -e -o comm= | sort -u | tr '\\n' ' '", ""); strings.Contains(out, "unshare") {
			t.Errorf("master sees processes outside its PID namespace: %s", out)
		}
		if out, err := run1(master, "ping -c1 -W1 192.0.2.1 || ip route get 1.1.1.1", ""); err == nil {
			t.Errorf("master reaches beyond the subnet: %s", out)
		}
	})

	t.Run("orch account over ssh", func(t *testing.T) {
		pw, err := readSecretFile(cfg.path(mysqlPassName))
		if err != nil {
			t.Fatal(err)
		}
		mysql.RegisterDialContext("lab-master", func(_ context.Context, addr string) (net.Conn, error) {
			return master.Dial("tcp", addr)
		})
		db, err := sql.Open("mysql", "orch:"+pw+"@lab-master(127.0.0.1:3306)/")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var logBin, anon int
		var gtid, grant string
		row := db.QueryRowContext(ctx, `SELECT @@log_bin, @@gtid_binlog_pos,
			(SELECT COUNT(*) FROM mysql.user WHERE User = ''),
			(SELECT Grant_priv FROM mysql.user WHERE User = 'orch' AND Host = '%')`)
		if err := row.Scan(&logBin, &gtid, &anon, &grant); err != nil {
			t.Fatalf("query as orch: %v", err)
		}
		if logBin != 0 || gtid != "" || anon != 0 || grant != "Y" {
			t.Errorf("log_bin=%d gtid_binlog_pos=%q anonymous users=%d orch grant=%s", logBin, gtid, anon, grant)
		}
	})

	t.Run("link down and up", func(t *testing.T) {
		addr := net.JoinHostPort(ip["master"], "22")
		probe := "timeout 2 bash -c '</dev/tcp/" + ip["master"] + "/22'"
		if err := Fault(ctx, cfg, "master", FaultLinkDown); err != nil {
			t.Fatal(err)
		}
		if tcpReachable(ctx, addr, time.Second) {
			t.Error("master reachable from the control machine with its link down")
		}
		if _, err := run1(slave1, probe, ""); err == nil {
			t.Error("master reachable from slave1 with its link down")
		}
		if err := Fault(ctx, cfg, "master", FaultLinkUp); err != nil {
			t.Fatal(err)
		}
		if !eventually(5*time.Second, func() bool { return tcpReachable(ctx, addr, time.Second) }) {
			t.Error("master unreachable after link-up")
		}
		if _, err := run1(slave1, probe, ""); err != nil {
			t.Errorf("slave1 cannot reach master after link-up: %v", err)
		}
	})

	t.Run("kill-mysqld keeps the server down until started", func(t *testing.T) {
		if err := Fault(ctx, cfg, "slave1", FaultKillMysqld); err != nil {
			t.Fatal(err)
		}
		// mysqld_safe would restart a killed server within ~0.5s.
		time.Sleep(1500 * time.Millisecond)
		if out, err := run1(slave1, scriptStatus, ""); exitStatus(err) != 3 {
			t.Errorf("status after kill: %v %q, want exit 3", err, out)
		}
		if out, err := run1(slave1, "pidof mariadbd mysqld_safe", ""); err == nil {
			t.Errorf("still running after kill-mysqld: %s", out)
		}
		if hs, err := Status(ctx, cfg); err != nil || AllHealthy(hs) {
			t.Errorf("status healthy with slave1's server killed: %v", err)
		}
		mustRun(t, slave1, scriptStart, "")
		mustRun(t, slave1, scriptStatus, "")
		requireHealthy(t, ctx, cfg)
	})

	// An interrupted restart leaves a server that was asked to shut down
	// and has not exited yet: it refuses connections, so it looks stopped,
	// but mysqld_safe will not start beside it. orch's undo then runs
	// stop and start; both must wait for the old process.
	t.Run("stop and start wait for a server still shutting down", func(t *testing.T) {
		mustRun(t, slave1, "mariadb -e SHUTDOWN && "+scriptStop+" && ! pidof mariadbd", "")
		mustRun(t, slave1, scriptStart, "")
		before := mustRun(t, slave1, "pidof mariadbd", "")
		mustRun(t, slave1, "mariadb -e SHUTDOWN && "+scriptStart, "")
		mustRun(t, slave1, scriptStatus, "")
		if after := mustRun(t, slave1, "pidof mariadbd", ""); after == before {
			t.Errorf("start after SHUTDOWN kept the old server %s", before)
		}
		requireHealthy(t, ctx, cfg)
	})

	t.Run("up again keeps a healthy lab", func(t *testing.T) {
		before := strings.Fields(mustRun(t, master, "pidof mariadbd", ""))
		again := cfg
		again.Subnet = "" // means: wherever the lab already is
		if err := Up(ctx, again); err != nil {
			t.Fatal(err)
		}
		if after := strings.Fields(mustRun(t, master, "pidof mariadbd", "")); strings.Join(after, " ") != strings.Join(before, " ") {
			t.Errorf("second up restarted master's server: %v -> %v", before, after)
		}
		for _, p := range cfg.inventoryPaths() {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("inventory: %v", err)
			}
		}
	})

	master.Close()
	slave1.Close()

	// A test run killed mid-way leaves its lab's kernel objects and state
	// behind, with every host dead. The next run, from another state dir,
	// must not need a human: it clears that lab. A lab still running is
	// someone's, and is only named.
	t.Run("up clears a lab whose hosts died, and names one that runs", func(t *testing.T) {
		next := cfg
		next.StateDir = filepath.Join(dir, "next-state")
		next.InventoryPath = filepath.Join(dir, "next-inventories", "lab.yaml")
		err := Up(ctx, next)
		if err == nil || !strings.Contains(err.Error(), "in use by the orch lab in "+cfg.StateDir) ||
			!strings.Contains(err.Error(), "master") {
			t.Fatalf("up beside a running lab on its subnet: %v", err)
		}
		if _, err := os.Stat(next.StateDir); err == nil {
			t.Errorf("refused up made %s", next.StateDir)
		}
		killLab(t, st)
		var log bytes.Buffer
		next.Out = io.MultiWriter(&log, testLog{t})
		if err := Up(ctx, next); err != nil {
			t.Fatalf("up over a dead lab: %v", err)
		}
		t.Cleanup(func() { _ = Down(context.Background(), next) })
		if !strings.Contains(log.String(), "whose hosts are all gone") {
			t.Errorf("up did not say it cleared the dead lab:\n%s", log.String())
		}
		assertGone(t, cfg, st)
		requireHealthy(t, ctx, next)
		nst, err := readState(next.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		if err := Down(ctx, next); err != nil {
			t.Fatalf("down: %v", err)
		}
		assertGone(t, next, nst)
	})

	if err := Down(ctx, cfg); err != nil {
		t.Fatalf("down: %v", err)
	}
	assertGone(t, cfg, st)
	if err := Down(ctx, cfg); err != nil {
		t.Errorf("second down: %v", err)
	}
}

// killLab kills every process of a lab's hosts, as a killed test run's
// cgroup teardown does, and leaves its state and kernel objects.
func killLab(t *testing.T, st *State) {
	t.Helper()
	for _, h := range st.Hosts {
		out, err := exec.Command("ip", "netns", "pids", h.Netns).Output()
		if err != nil {
			t.Fatalf("%s: ip netns pids: %v", h.Name, err)
		}
		for _, f := range append(strings.Fields(string(out)), strconv.Itoa(h.PID)) {
			if pid, err := strconv.Atoi(f); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
	for _, h := range st.Hosts {
		if !eventually(5*time.Second, func() bool { return !alive(h.PID, h.PIDStart) }) {
			t.Fatalf("%s: process %d survived SIGKILL", h.Name, h.PID)
		}
	}
}

// assertGone checks that nothing the lab made is left.
func assertGone(t *testing.T, cfg Config, st *State) {
	t.Helper()
	if linkExists(st.Bridge) {
		t.Errorf("bridge %s left", st.Bridge)
	}
	for _, h := range st.Hosts {
		if netnsExists(h.Netns) || linkExists(h.Veth) {
			t.Errorf("%s: namespace %s or veth %s left", h.Name, h.Netns, h.Veth)
		}
		if alive(h.PID, h.PIDStart) {
			t.Errorf("%s: process %d left", h.Name, h.PID)
		}
	}
	for _, p := range append(cfg.inventoryPaths(), cfg.StateDir, filepath.Dir(cfg.InventoryPath)) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left", p)
		}
	}
}

func requireHealthy(t *testing.T, ctx context.Context, cfg Config) {
	t.Helper()
	hs, err := Status(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !AllHealthy(hs) || len(hs) != 4 {
		var b bytes.Buffer
		WriteStatusTable(&b, hs)
		t.Fatalf("lab not healthy:\n%s", b.String())
	}
}

// dial logs in over SSH, verifying the host key against the lab's
// known_hosts.
func dial(t *testing.T, cfg Config, ip, user string, auth ssh.AuthMethod) *ssh.Client {
	t.Helper()
	c, err := dialErr(cfg, ip, user, auth)
	if err != nil {
		t.Fatalf("ssh %s@%s: %v", user, ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func dialErr(cfg Config, ip, user string, auth ssh.AuthMethod) (*ssh.Client, error) {
	hostKeys, err := knownhosts.New(cfg.path(knownHostsName))
	if err != nil {
		return nil, err
	}
	return ssh.Dial("tcp", net.JoinHostPort(ip, "22"), &ssh.ClientConfig{
		User: user, Auth: []ssh.AuthMethod{auth}, HostKeyCallback: hostKeys, Timeout: 5 * time.Second,
	})
}

// run1 runs one command in a new session, with stdin.
func run1(c *ssh.Client, cmd, stdin string) (string, error) {
	s, err := c.NewSession()
	if err != nil {
		return "", err
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &out, &errb, strings.NewReader(stdin)
	if err := s.Run(cmd); err != nil {
		return out.String(), fmt.Errorf("%s: %w: %s", cmd, err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

func mustRun(t *testing.T, c *ssh.Client, cmd, stdin string) string {
	t.Helper()
	out, err := run1(c, cmd, stdin)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func exitStatus(err error) int {
	var ee *ssh.ExitError
	if errors.As(err, &ee) {
		return ee.ExitStatus()
	}
	return -1
}

func eventually(d time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// testLog sends the lab's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
