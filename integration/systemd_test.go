package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// systemdSubnet is this test's own systemd lab, apart from the namespace lab
// the other tests share and from lab/'s own tests.
const systemdSubnet = "10.93.0.0/24"

// TestSystemdServiceControl runs orch on stock Debian 12 hosts (the systemd
// lab, built by this test on its own subnet) whose only change is an admin
// account made through root's unix socket (package account): up, status, a
// short run and down must restart each server through its systemd unit
// (mariadb.service), never around it. After up, a benchmark account for
// the load box is made the same way and must not replicate. It needs root and ORCH_BIN; the base tree is built
// once per machine (about 2 minutes) and cached.
func TestSystemdServiceControl(t *testing.T) {
	l, state := newSystemdLab(t, systemdSubnet)
	dir := t.TempDir()
	doc := l.inventoryDoc(t, "lab.yaml")

	// What up does not do yet on a stock host (issue 11, item 2): orch's
	// admin account, made through root's unix socket by the account
	// package, binlog off, the password in a 0600 file.
	pwFile := filepath.Join(dir, "state", "admin-password")
	pw, err := account.PasswordFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	stock, err := topology.Load(l.inventory, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dial := executor.DialConfig{KnownHostsFile: filepath.Join(state, "known_hosts"), SSHConfigFile: "none"}
	hostExec := map[string]executor.Executor{}
	for _, h := range stock.Hosts {
		ex, err := executor.Dial(context.Background(), h, dial)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		hostExec[h.Name] = ex
	}
	hosts := map[string]*ssh.Client{}
	for _, name := range []string{"master", "slave1", "slave2"} {
		hosts[name] = rootSSH(t, state, hostAddress(t, doc, name))
		if err := account.EnsureBySocket(context.Background(), hostExec[name],
			account.Account{User: "orch", Host: "%", Password: pw, Admin: true}); err != nil {
			t.Fatal(err)
		}
	}
	mysql := doc["defaults"].(map[string]any)["mysql"].(map[string]any)
	mysql["user"], mysql["password"] = "orch", map[string]any{"file": pwFile}
	admin := filepath.Join(dir, "lab-admin.yaml")
	writeYAML(t, admin, doc)

	mainPIDs := func() map[string]string {
		pids := map[string]string{}
		for name, c := range hosts {
			if out := sshRun(t, c, "systemctl is-active mariadb.service", ""); out != "active\n" {
				t.Fatalf("%s: mariadb.service %q", name, out)
			}
			main := sshRun(t, c, "systemctl show -p MainPID --value mariadb.service", "")
			if running := sshRun(t, c, "pidof mariadbd", ""); running != main {
				t.Fatalf("%s: mariadbd %q is not the unit's main process %q: orch went around systemd", name, running, main)
			}
			pids[name] = main
		}
		return pids
	}
	restarted := func(step string, before, after map[string]string) {
		for name := range hosts {
			t.Logf("%s: %s: mariadb.service main PID %s -> %s", name, step, strings.TrimSpace(before[name]), strings.TrimSpace(after[name]))
			if before[name] == after[name] {
				t.Errorf("%s: %s did not restart mariadb.service (main PID %s)", name, step, strings.TrimSpace(after[name]))
			}
		}
	}

	booted := mainPIDs()
	l.mustOK(t, "check", "-i", admin)
	l.mustOK(t, "up", "-i", admin, "--engine", "innodb")
	afterUp := mainPIDs()
	restarted("up", booted, afterUp)

	var st struct {
		Slaves []struct {
			Name    string `json:"name"`
			Replica struct {
				IO  string `json:"io_running"`
				SQL string `json:"sql_running"`
			} `json:"replica"`
		} `json:"slaves"`
	}
	if err := json.Unmarshal([]byte(l.mustOK(t, "status", "-i", admin, "--json").stdout), &st); err != nil {
		t.Fatal(err)
	}
	if len(st.Slaves) != 2 {
		t.Fatalf("status: %d slaves", len(st.Slaves))
	}
	for _, s := range st.Slaves {
		if s.Replica.IO != "Yes" || s.Replica.SQL != "Yes" {
			t.Errorf("%s: IO %q SQL %q after up", s.Name, s.Replica.IO, s.Replica.SQL)
		}
	}

	t.Run("a benchmark account for the load box, never replicated", func(t *testing.T) {
		loadbox := hostAddress(t, doc, "loadbox")
		gtid := "mariadb -N -e 'select @@gtid_binlog_pos'"
		before := sshRun(t, hosts["master"], gtid, "")
		bench := account.Account{User: "sbtest", Host: loadbox, Password: pw, Grants: "ALL PRIVILEGES ON sbtest.*"}
		if err := account.EnsureBySocket(context.Background(), hostExec["master"], bench); err != nil {
			t.Fatal(err)
		}
		if after := sshRun(t, hosts["master"], gtid, ""); after != before {
			t.Errorf("making the account wrote the binlog: gtid_binlog_pos %q -> %q", before, after)
		}
		count := "mariadb -N -e \"select count(*) from mysql.user where user = 'sbtest'\""
		if n := sshRun(t, hosts["slave1"], count, ""); n != "0\n" {
			t.Errorf("slave1 got the master's benchmark account (%q)", n)
		}
		// The load box logs in to the master's port with it; the password
		// reaches the client on stdin only.
		res, err := hostExec["loadbox"].Run(context.Background(), executor.Command{
			Script: "mariadb --defaults-extra-file=/dev/stdin -h " + hostAddress(t, doc, "master") +
				" -u sbtest -N -e 'select current_user()'",
			Stdin: strings.NewReader("[client]\npassword=" + pw + "\n"),
		})
		if err != nil || string(res.Stdout) != "sbtest@"+loadbox+"\n" {
			t.Errorf("load box login as sbtest: %q, %v", res.Stdout, err)
		}
	})

	r := l.mustOK(t, "run", "-i", admin, "--workload", "pure-random-writes", "--runs", filepath.Join(dir, "runs"),
		"--tables", "1", "--threads", "2", "--time", "3", "--table-size", "500")
	if !strings.Contains(r.stdout+r.stderr, "consistency: ok") {
		t.Errorf("run did not report consistent servers:\n%s", r.stdout)
	}

	l.mustOK(t, "down", "-i", admin)
	restarted("down", afterUp, mainPIDs())
	for name, c := range hosts {
		if out := sshRun(t, c, "mariadb -N -e 'select @@log_bin'", ""); out != "0\n" {
			t.Errorf("%s: log_bin %q after down, want the stock 0", name, out)
		}
	}
}

// newSystemdLab builds a systemd lab of the test's own on subnet (each
// test a different one) with `orch lab up --systemd`, torn down when the
// test ends, and returns it (l.inventory is its lab.yaml) and its state
// dir. It needs root and ORCH_BIN.
func newSystemdLab(t *testing.T, subnet string) (*lab, string) {
	t.Helper()
	bin := os.Getenv("ORCH_BIN")
	if bin == "" || os.Geteuid() != 0 {
		if os.Getenv("ORCH_REQUIRE_LAB") != "" {
			t.Fatal("ORCH_REQUIRE_LAB is set but ORCH_BIN is not, or not running as root")
		}
		t.Skip("needs root and ORCH_BIN (make test sets it)")
	}
	dir := t.TempDir()
	l := &lab{bin: bin, inventory: filepath.Join(dir, "inv", "lab.yaml")}
	state := filepath.Join(dir, "state")
	start := time.Now()
	l.mustOK(t, "lab", "up", "--systemd", "--subnet", subnet, "--state-dir", state, "-i", l.inventory)
	t.Logf("systemd lab up in %.1fs", time.Since(start).Seconds())
	t.Cleanup(func() { l.orch(t, "lab", "down", "--state-dir", state, "-i", l.inventory) })
	return l, state
}

// rootSSH logs in to a systemd lab host as root with the lab's key,
// verifying its host key against the lab's known_hosts.
func rootSSH(t *testing.T, state, ip string) *ssh.Client {
	t.Helper()
	keyPEM, err := os.ReadFile(filepath.Join(state, "id_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	hostKeys, err := knownhosts.New(filepath.Join(state, "known_hosts"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", net.JoinHostPort(ip, "22"), &ssh.ClientConfig{
		User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: hostKeys, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh root@%s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sshRun runs cmd with stdin (where secrets go) and returns its stdout.
func sshRun(t *testing.T, c *ssh.Client, cmd, stdin string) string {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &out, &errb, strings.NewReader(stdin)
	if err := s.Run(cmd); err != nil {
		t.Fatalf("%s: %v: %s", cmd, err, strings.TrimSpace(errb.String()))
	}
	return out.String()
}
