package lab

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// systemdTestSubnet differs from the namespace lab's test subnet and the
// default, so the tests can run next to a lab left up by hand.
const systemdTestSubnet = "10.94.0.0/24"

// TestIntegrationSystemdLab builds (or reuses the cached) Debian base tree,
// boots the systemd lab and checks that each host is a stock Debian 12
// server: systemd as PID 1, mariadb.service active with errors in the
// journal, root on the unix socket only, nothing orch-made. Then it tears
// the lab down and checks that only the cached tree is left. Run as root
// with ORCH_LAB=1 (debootstrap and systemd-container installed):
//
//	ORCH_LAB=1 go test ./lab/ -run IntegrationSystemd -count=1 -v
func TestIntegrationSystemdLab(t *testing.T) {
	needLabRun(t)
	dir := t.TempDir()
	cfg := Config{
		StateDir:      filepath.Join(dir, "state"),
		Subnet:        systemdTestSubnet,
		InventoryPath: filepath.Join(dir, "inventories", "lab.yaml"),
		Systemd:       true,
		Out:           testLog{t},
	}.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	t.Cleanup(func() {
		if err := Down(context.Background(), cfg); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})

	start := time.Now()
	base, err := baseTree(ctx, cfg.CacheDir, newProgress(testLog{t}))
	if err != nil {
		t.Fatalf("base tree: %v", err)
	}
	stamp, err := readBaseStamp(base, bookwormTree.probe)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("base tree %s: ready in %.1fs here (debootstrap took %.1fs on %s, %.2f GB)", base,
		time.Since(start).Seconds(), stamp.Seconds, stamp.Built.Format(time.RFC3339), float64(stamp.Bytes)/1e9)
	start = time.Now()
	if err := Up(ctx, cfg); err != nil {
		t.Fatalf("up: %v", err)
	}
	t.Logf("systemd lab booted in %.1fs (base tree cached)", time.Since(start).Seconds())
	st, err := readState(cfg.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	requireHealthy(t, ctx, cfg)
	if st.Kind != KindSystemd || st.BaseTree != base {
		t.Fatalf("state kind %q base %q", st.Kind, st.BaseTree)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg.InventoryPath), passwordInventoryName)); err == nil {
		t.Error("the systemd lab wrote a password inventory: it makes no account")
	}

	keyPEM, err := os.ReadFile(cfg.path(clientKeyName))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	clients := map[string]*ssh.Client{}
	for _, h := range st.Hosts {
		clients[h.Name] = dial(t, cfg, h.IP, "root", ssh.PublicKeys(signer))
	}

	for _, h := range st.Hosts {
		c := clients[h.Name]
		t.Run(h.Name+" is a systemd host", func(t *testing.T) {
			if out := mustRun(t, c, "hostname; ps -p 1 -o comm=", ""); out != h.Name+"\nsystemd\n" {
				t.Errorf("hostname and PID 1 = %q", out)
			}
			if out, _ := run1(c, "systemctl is-system-running", ""); out != "running\n" && out != "degraded\n" {
				t.Errorf("systemctl is-system-running = %q", out)
			}
			if out := mustRun(t, c, "systemctl is-active ssh.service", ""); out != "active\n" {
				t.Errorf("ssh.service %q", out)
			}
		})
		if !h.IsDB() {
			t.Run(h.Name+" has the clients, not a server", func(t *testing.T) {
				if out := mustRun(t, c, "sysbench --version", ""); !strings.HasPrefix(out, "sysbench 1.0") {
					t.Errorf("sysbench --version = %q", out)
				}
				if out, _ := run1(c, "systemctl is-enabled mariadb.service", ""); out != "masked\n" {
					t.Errorf("load box mariadb.service is %q, want masked", out)
				}
				mustRun(t, c, "command -v mariadb", "")
			})
			continue
		}
		t.Run(h.Name+" runs the stock server", func(t *testing.T) {
			if out := mustRun(t, c, "systemctl is-active mariadb.service", ""); out != "active\n" {
				t.Errorf("mariadb.service %q", out)
			}
			// Root by unix socket, as Debian's package sets it up.
			if out := mustRun(t, c, "mariadb -N -e 'select 1'", ""); out != "1\n" {
				t.Errorf("root over the socket: %q", out)
			}
			// ...and not over TCP: unix_socket authentication refuses it.
			out, err := run1(c, "mariadb -h 127.0.0.1 -P 3306 -u root -N -e 'select 1'", "")
			if err == nil || !strings.Contains(err.Error(), "1698") {
				t.Errorf("root over TCP: %q %v, want error 1698 (Access denied)", out, err)
			}
			// No account but the package's own.
			users := mustRun(t, c, "mariadb -N -e \"select group_concat(user order by user) from mysql.user\"", "")
			if users != "mariadb.sys,mysql,root\n" {
				t.Errorf("accounts: %q, want only the package's", users)
			}
			// No log_error: the server logs to the journal.
			if out := mustRun(t, c, "mariadb -N -e 'select @@log_error'", ""); out != "\n" {
				t.Errorf("log_error = %q, want unset", out)
			}
			journal := mustRun(t, c, "journalctl -u mariadb.service --no-pager -o cat", "")
			if !strings.Contains(journal, "ready for connections") {
				t.Errorf("mariadb.service's journal has no start line:\n%s", journal)
			}
		})
	}

	t.Run("hosts are isolated from each other and from the base tree", func(t *testing.T) {
		const probe = "/etc/mysql/orch-lab-isolation-probe"
		mustRun(t, clients["master"], "echo master > "+probe, "")
		if out, err := run1(clients["slave1"], "cat "+probe, ""); err == nil {
			t.Errorf("slave1 sees master's %s: %q", probe, out)
		}
		if _, err := os.Stat(filepath.Join(base, probe)); err == nil {
			t.Errorf("the base tree got master's %s", probe)
		}
		keys := map[string]string{}
		for name, c := range clients {
			k := mustRun(t, c, "cat /etc/ssh/ssh_host_ed25519_key.pub /etc/machine-id", "")
			for other, ok := range keys {
				if ok == k {
					t.Errorf("%s and %s share host key or machine id", name, other)
				}
			}
			keys[name] = k
		}
		if out, err := run1(clients["master"], "timeout 2 bash -c '</dev/tcp/192.0.2.1/22' || ip route get 1.1.1.1", ""); err == nil {
			t.Errorf("master reaches beyond the subnet: %s", out)
		}
	})

	t.Run("faults", func(t *testing.T) {
		probe := "timeout 2 bash -c '</dev/tcp/" + hostIP(st, "master") + "/22'"
		if err := Fault(ctx, cfg, "master", FaultLinkDown); err != nil {
			t.Fatal(err)
		}
		if _, err := run1(clients["slave1"], probe, ""); err == nil {
			t.Error("master reachable from slave1 with its link down")
		}
		if err := Fault(ctx, cfg, "master", FaultLinkUp); err != nil {
			t.Fatal(err)
		}
		if !eventually(5*time.Second, func() bool { _, err := run1(clients["slave1"], probe, ""); return err == nil }) {
			t.Error("master unreachable from slave1 after link-up")
		}

		before := mustRun(t, clients["slave2"], "systemctl show -p MainPID --value mariadb.service", "")
		if err := Fault(ctx, cfg, "slave2", FaultKillMysqld); err != nil {
			t.Fatal(err)
		}
		// The kill lands within moments, and the unit waits 5 s before a
		// restart: status must see the server gone in that window.
		if !eventually(4*time.Second, func() bool {
			hs, err := Status(ctx, cfg)
			return err == nil && !AllHealthy(hs)
		}) {
			t.Error("status stayed healthy after slave2's server was killed")
		}
		// The stock unit restarts an aborted server (Restart=on-abort,
		// RestartSec=5s), as on a real host.
		if !eventually(30*time.Second, func() bool {
			hs, err := Status(ctx, cfg)
			return err == nil && AllHealthy(hs)
		}) {
			t.Fatal("systemd did not restart slave2's killed server")
		}
		if after := mustRun(t, clients["slave2"], "systemctl show -p MainPID --value mariadb.service", ""); after == before {
			t.Errorf("slave2's server was not restarted (main PID %s)", strings.TrimSpace(after))
		}
	})

	t.Run("a server that fails its start at boot is started once more, not twice", func(t *testing.T) {
		// A runtime drop-in (in /run, gone at the next boot) makes the
		// stock unit's start fail the way a cgroup error does: its control
		// process exits 1. Once: the second start passes; always: an error.
		c := clients["slave1"]
		hp, _ := st.host("slave1")
		h := *hp
		pid1, err := containerPID1(h)
		if err != nil {
			t.Fatal(err)
		}
		dropIn := "/run/systemd/system/mariadb.service.d"
		failStart := func(pre string) {
			mustRun(t, c, "mkdir -p "+dropIn+" && printf '[Service]\\nExecStartPre=%s\\n' \""+pre+"\" > "+dropIn+"/zz-test.conf"+
				" && systemctl daemon-reload && systemctl stop mariadb.service && rm -f /run/mysqld/orch-lab-test-once", "")
			if out, err := run1(c, "systemctl start mariadb.service", ""); err == nil {
				t.Fatalf("the failing start passed: %s", out)
			}
		}
		defer mustRun(t, c, "rm -rf "+dropIn+" /run/mysqld/orch-lab-test-once && systemctl daemon-reload && systemctl reset-failed mariadb.service; systemctl start mariadb.service", "")

		failStart("/bin/sh -c 'test -e /run/mysqld/orch-lab-test-once || { touch /run/mysqld/orch-lab-test-once; echo orch-lab-test: first start fails >&2; exit 1; }'")
		var out bytes.Buffer
		if err := ensureActive(ctx, pid1, h, "mariadb.service", newProgress(&out)); err != nil {
			t.Fatalf("a unit that fails once: %v", err)
		}
		if got := out.String(); !strings.Contains(got, "mariadb.service failed at boot; starting it again") ||
			!strings.Contains(got, "orch-lab-test: first start fails") || !strings.Contains(got, "active on its second start") {
			t.Errorf("progress does not say what failed and that it was started again:\n%s", got)
		}
		if got := mustRun(t, c, "systemctl is-active mariadb.service", ""); got != "active\n" {
			t.Errorf("mariadb.service %q after its second start", got)
		}

		failStart("/bin/sh -c 'echo orch-lab-test: every start fails >&2; exit 1'")
		err = ensureActive(ctx, pid1, h, "mariadb.service", newProgress(io.Discard))
		if err == nil || !strings.Contains(err.Error(), "nor after a second start") || !strings.Contains(err.Error(), "every start fails") {
			t.Errorf("a unit that always fails: %v", err)
		}
	})

	t.Run("up again keeps a healthy lab", func(t *testing.T) {
		before := mustRun(t, clients["master"], "systemctl show -p MainPID --value mariadb.service", "")
		again := cfg
		again.Subnet = ""
		if err := Up(ctx, again); err != nil {
			t.Fatal(err)
		}
		if after := mustRun(t, clients["master"], "systemctl show -p MainPID --value mariadb.service", ""); after != before {
			t.Errorf("second up restarted master's server: %s -> %s", before, after)
		}
	})

	for _, c := range clients {
		c.Close()
	}
	start = time.Now()
	if err := Down(ctx, cfg); err != nil {
		t.Fatalf("down: %v", err)
	}
	t.Logf("systemd lab down in %.1fs", time.Since(start).Seconds())
	assertGone(t, cfg, st)
	for _, h := range st.Hosts {
		if isMountPoint(h.Mount) {
			t.Errorf("%s: overlay %s still mounted", h.Name, h.Mount)
		}
	}
	if _, err := readBaseStamp(base, bookwormTree.probe); err != nil {
		t.Errorf("down removed the cached base tree: %v", err)
	}
	if err := Down(ctx, cfg); err != nil {
		t.Errorf("second down: %v", err)
	}
}

func hostIP(st *State, name string) string {
	h, _ := st.host(name)
	return h.IP
}
