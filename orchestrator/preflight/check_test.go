package preflight

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// connect makes a cluster of hosts on this machine: each host's executor
// is the one in exs (by name); a host without one cannot be dialled.
func connect(t *testing.T, inv *topology.Inventory, hosts []*topology.Host, exs map[string]executor.Executor) *cluster.Cluster {
	t.Helper()
	dial := func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		if ex, ok := exs[h.Name]; ok {
			return ex, nil
		}
		return nil, errors.New(h.String() + ": dial tcp " + h.Address + ":22: connect: connection timed out")
	}
	c := cluster.Connect(context.Background(), inv, hosts, cluster.Options{Dialer: dial})
	t.Cleanup(func() { c.Close() })
	return c
}

// kernelHere is `uname -sr` as the kernel reports it in /proc.
func kernelHere(t *testing.T) string {
	typ, err1 := os.ReadFile("/proc/sys/kernel/ostype")
	rel, err2 := os.ReadFile("/proc/sys/kernel/osrelease")
	if err1 != nil || err2 != nil {
		t.Skip("no /proc/sys/kernel here")
	}
	return strings.TrimSpace(string(typ)) + " " + strings.TrimSpace(string(rel))
}

// memTotalKB is /proc/meminfo's MemTotal (proc(5)).
func memTotalKB(t *testing.T) int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Skip("no /proc/meminfo here")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) >= 2 && fs[0] == "MemTotal:" {
			n, _ := strconv.ParseInt(fs[1], 10, 64)
			return n
		}
	}
	t.Skip("no MemTotal")
	return 0
}

// TestCheckKeepsARowPerHost: every host of the cluster gets its row, in
// host order, whether it was reached or not; a reached host's facts are
// this machine's, read by the real probe.
func TestCheckKeepsARowPerHost(t *testing.T) {
	need(t, "awk", "df", "bash", "date")
	datadir := t.TempDir()
	master := &topology.Host{Name: "master", Role: topology.RoleMaster, Address: "127.0.0.1",
		MySQL: topology.MySQLConfig{Datadir: datadir, Port: closedPort(t), User: "admin", Password: topology.InlineSecret("pw")}}
	slave := &topology.Host{Name: "slave1", Role: topology.RoleSlave, Address: "10.0.0.3"}
	lb := &topology.Host{Name: "lb", Role: topology.RoleLoadBox, Address: "127.0.0.2"}
	hosts := []*topology.Host{master, slave, lb}
	inv := &topology.Inventory{Hosts: hosts}
	c := connect(t, inv, hosts, map[string]executor.Executor{
		"master": newToolHost("master", toolDir(t, map[string]string{
			"mariadbd": "echo '/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)'",
		})),
		"lb": newToolHost("lb", toolDir(t, map[string]string{"sysbench": "echo 'sysbench 1.0.20'"})),
	})
	facts := Check(context.Background(), c)
	if len(facts) != 3 {
		t.Fatalf("%d rows for 3 hosts", len(facts))
	}
	for i, h := range hosts {
		if f := facts[i]; f.Host != h.Name || f.Role != string(h.Role) || f.Address != h.Address {
			t.Errorf("row %d is %s/%s/%s, want %s", i, f.Host, f.Role, f.Address, h)
		}
	}

	m, s, l := facts[0], facts[1], facts[2]
	if s.SSH != "FAILED" || s.OS != "" {
		t.Errorf("unreachable slave: ssh %q, os %q", s.SSH, s.OS)
	}
	wantProblem(t, s, true, "slave1 10.0.0.3", "connection timed out")

	for _, f := range []*Facts{m, l} {
		if !strings.HasPrefix(f.SSH, "ok (") {
			t.Errorf("%s: ssh %q", f.Host, f.SSH)
		}
		if want := kernelHere(t); f.Kernel != want {
			t.Errorf("%s: kernel %q, want %q", f.Host, f.Kernel, want)
		}
		if want := memTotalKB(t) / 1024; f.MemoryMB != want {
			t.Errorf("%s: memory %d MB, want %d", f.Host, f.MemoryMB, want)
		}
	}
	if m.KernelID == "" || m.KernelID != l.KernelID {
		t.Errorf("two hosts on one kernel: kernel ids %q, %q", m.KernelID, l.KernelID)
	}
	if m.DiskPath != datadir || m.Server != "MariaDB 10.11.19" {
		t.Errorf("master: datadir %q, server %q", m.DiskPath, m.Server)
	}
	if m.MySQL != "FAILED" {
		t.Errorf("master's server is not running, yet %q", m.MySQL)
	}
	wantProblem(t, m, true, "master 127.0.0.1", "running")
	wantProblem(t, m, false, "master 127.0.0.1", "gdb")

	if l.Clients["sysbench"] != "sysbench 1.0.20" || l.Clients["mysqlslap"] != "" {
		t.Errorf("load box clients %q, %q", l.Clients["sysbench"], l.Clients["mysqlslap"])
	}
	wantProblem(t, l, false, "lb 127.0.0.2", "mysqlslap")
	// A refused connect is a round trip too.
	if l.RTTToMasterMs <= 0 {
		t.Errorf("load box RTT %v ms", l.RTTToMasterMs)
	}
	if p, ok := problemWith(l, "round trip"); ok {
		t.Errorf("RTT: %s", p.Msg)
	}
	if m.RTTToMasterMs != 0 {
		t.Errorf("RTT measured from the master: %v", m.RTTToMasterMs)
	}
}

// Without a master there is nothing to time; a load box not among the
// command's hosts is not timed either.
func TestCheckWithoutMaster(t *testing.T) {
	lb := &topology.Host{Name: "lb", Role: topology.RoleLoadBox, Address: "127.0.0.2"}
	inv := &topology.Inventory{Hosts: []*topology.Host{lb}}
	c := connect(t, inv, inv.Hosts, map[string]executor.Executor{"lb": newToolHost("lb", toolDir(t, nil))})
	facts := Check(context.Background(), c)
	if len(facts) != 1 || facts[0].RTTToMasterMs != 0 {
		t.Fatalf("facts %+v", facts)
	}
	if p, ok := problemWith(facts[0], "round trip"); ok {
		t.Errorf("timed a master that does not exist: %s", p.Msg)
	}
}

// A load box without bash cannot time the connect: a warning naming the
// load box and where it tried to go.
func TestMeasureRTTWithoutBash(t *testing.T) {
	dir := toolDir(t, nil)
	if err := os.Remove(filepath.Join(dir, "bash")); err != nil {
		t.Skip("no bash on this machine:", err)
	}
	// The master's server on MySQL's default port, 3306, unless the
	// inventory names another.
	for port, want := range map[int]string{0: "3306", 3307: "3307"} {
		master := &topology.Host{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1", NetAddress: "10.99.0.11", MySQL: topology.MySQLConfig{Port: port}}
		f := &Facts{}
		measureRTT(context.Background(), newToolHost("lb", dir), master, f)
		if f.RTTToMasterMs != 0 {
			t.Errorf("RTT %v without a measurement", f.RTTToMasterMs)
		}
		wantProblem(t, f, false, "lb localhost", "10.99.0.11", want)
	}
}

// A timing that ran but printed no usable time (here a negative one: the
// clock stepped back) is said as that, with what it printed.
func TestMeasureRTTUnreadable(t *testing.T) {
	dir := toolDir(t, map[string]string{"bash": `echo "tcp_us=-1500"`})
	master := &topology.Host{Name: "master", Role: topology.RoleMaster, Address: "10.0.0.1", NetAddress: "10.99.0.11"}
	f := &Facts{}
	measureRTT(context.Background(), newToolHost("lb", dir), master, f)
	if f.RTTToMasterMs != 0 {
		t.Errorf("RTT %v from a negative timing", f.RTTToMasterMs)
	}
	wantProblem(t, f, false, "lb localhost", `unreadable output "tcp_us=-1500"`)
	if p, ok := problemWith(f, "<nil>"); ok {
		t.Errorf("the warning ends in a Go nil: %s", p.Msg)
	}
}

// A datadir the inventory names and the host lacks is reported (the
// review's check said nothing and showed the disk of "/"), and an existing
// one is not.
func TestCheckReportsMissingDatadir(t *testing.T) {
	need(t, "awk", "df", "bash", "date")
	for _, missing := range []bool{true, false} {
		datadir := t.TempDir()
		if missing {
			datadir += "/mysql"
		}
		master := &topology.Host{Name: "master", Role: topology.RoleMaster, Address: "127.0.0.1",
			MySQL: topology.MySQLConfig{Datadir: datadir, Port: closedPort(t), User: "admin", Password: topology.InlineSecret("pw")}}
		inv := &topology.Inventory{Hosts: []*topology.Host{master}}
		c := connect(t, inv, inv.Hosts, map[string]executor.Executor{"master": newToolHost("master", toolDir(t, nil))})
		m := Check(context.Background(), c)[0]
		found := false
		for _, p := range m.Problems {
			if strings.Contains(p.Msg, "datadir "+datadir+" does not exist") {
				found = true
			}
		}
		if found != missing {
			t.Errorf("datadir %s (missing %v): problems %+v", datadir, missing, m.Problems)
		}
	}
}
