package preflight

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

func dbHost(role topology.Role) *topology.Host {
	return &topology.Host{Name: "db1", Role: role, Address: "10.0.0.5",
		MySQL: topology.MySQLConfig{Datadir: "/var/lib/mysql"}}
}

func probeFacts(h *topology.Host, ex executor.Executor) *Facts {
	f := &Facts{Host: h.Name, Role: string(h.Role), Address: h.Address}
	probeHost(context.Background(), h, ex, f, nil)
	return f
}

// edit replaces old, which must be in s, by new.
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in the probe output", old)
	}
	return strings.Replace(s, old, new, 1)
}

// problemWith returns the problem whose message holds every part.
func problemWith(f *Facts, parts ...string) (Problem, bool) {
	for _, p := range f.Problems {
		ok := true
		for _, s := range parts {
			ok = ok && strings.Contains(p.Msg, s)
		}
		if ok {
			return p, true
		}
	}
	return Problem{}, false
}

// wantProblem fails unless one problem names all parts and blocks (or not).
func wantProblem(t *testing.T, f *Facts, blocking bool, parts ...string) {
	t.Helper()
	p, ok := problemWith(f, parts...)
	switch {
	case !ok:
		t.Errorf("no problem naming %q in %+v", parts, f.Problems)
	case p.Blocking != blocking:
		t.Errorf("problem %q: blocking %v, want %v", p.Msg, p.Blocking, blocking)
	}
}

func TestProbeHostReadsADebianDatabaseHost(t *testing.T) {
	h := dbHost(topology.RoleMaster)
	ex := newCannedHost("db1", debianDB)
	f := probeFacts(h, ex)
	if f.OS != "Debian GNU/Linux 12 (bookworm)" || f.Kernel != "Linux 6.18.44-fc-v1045" || f.CPUs != 2 || f.CPUModel != "AMD EPYC" {
		t.Errorf("system: %+v", f)
	}
	// kB as the kernel and df count them, in MiB.
	if f.MemoryMB != 24105 || f.DiskFreeMB != 72759 || f.DiskSizeMB != 258019 {
		t.Errorf("sizes: memory %d, free %d, size %d MB", f.MemoryMB, f.DiskFreeMB, f.DiskSizeMB)
	}
	if f.DiskPath != "/var/lib/mysql" || f.DiskDevice != "/dev/vda" || f.DiskFS != "ext4" || f.DiskModel != "" || f.DiskKind != "rotational" {
		t.Errorf("disk: %+v", f)
	}
	if f.THP != "madvise" || f.Server != "MariaDB 10.11.19" || !slices.Equal(f.StackTools, []string{"gdb", "perf"}) {
		t.Errorf("THP %q, server %q, stack tools %q", f.THP, f.Server, f.StackTools)
	}
	if f.Sudo != "root" {
		t.Errorf("uid 0: sudo %q", f.Sudo)
	}
	// No tunnel to log in through.
	if f.MySQL != "no tunnel" {
		t.Errorf("server: %q", f.MySQL)
	}
	if f.Blocking() {
		t.Errorf("a sound host is blocked: %+v", f.Problems)
	}
	for _, word := range []string{"huge pages", "MB free", "gdb", "mysqld"} {
		if p, ok := problemWith(f, word); ok {
			t.Errorf("unexpected problem: %s", p.Msg)
		}
	}
	if !ex.ran("date +%s.%N") {
		t.Error("the host's clock was not read")
	}
}

// Containers on one kernel have their own boot ids but the same release
// and boot time; hosts on other kernels differ in one of them.
func TestKernelIDTellsSharedKernels(t *testing.T) {
	h := dbHost(topology.RoleSlave)
	a := probeFacts(h, newCannedHost("db1", debianDB))
	b := probeFacts(h, newCannedHost("db2", edit(t, debianDB, "boot_id=1b722b42-fff9-415d-b032-05d305546ad4", "boot_id=9f0c6d1e-2a47-4b8e-a0b5-6c3d2e1f0a98")))
	c := probeFacts(h, newCannedHost("db3", edit(t, debianDB, "btime=1796180946", "btime=1796099999")))
	if a.KernelID == "" || a.KernelID != b.KernelID {
		t.Errorf("one kernel, two containers: %q vs %q", a.KernelID, b.KernelID)
	}
	if a.BootID == b.BootID {
		t.Errorf("boot ids not read: %q", a.BootID)
	}
	if c.KernelID == a.KernelID {
		t.Errorf("another boot of the kernel has the same id %q", c.KernelID)
	}
	noBtime := probeFacts(h, newCannedHost("db4", edit(t, debianDB, "btime=1796180946\n", "")))
	if noBtime.KernelID != "" {
		t.Errorf("no boot time, yet kernel id %q", noBtime.KernelID)
	}
}

func TestProbeHostDecisions(t *testing.T) {
	h := dbHost(topology.RoleSlave)
	t.Run("THP always", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB, "thp=always [madvise] never", "thp=[always] madvise never")))
		if f.THP != "always" {
			t.Errorf("THP %q", f.THP)
		}
		wantProblem(t, f, false, "db1 10.0.0.5", "TokuDB", "/sys/kernel/mm/transparent_hugepage/enabled")
	})
	t.Run("little disk", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB, "disk_free_kb=74505688", "disk_free_kb=1048576")))
		wantProblem(t, f, false, "db1 10.0.0.5", "1024 MB", "/var/lib/mysql")
	})
	// df prints 0 for a full filesystem and 512 for half a megabyte: both
	// are known and short, not unknown.
	for _, kb := range []string{"0", "512"} {
		t.Run("full disk "+kb+" kB", func(t *testing.T) {
			f := probeFacts(h, newCannedHost("db1", edit(t, debianDB, "disk_free_kb=74505688", "disk_free_kb="+kb)))
			wantProblem(t, f, false, "db1 10.0.0.5", "only 0 MB free", "/var/lib/mysql")
		})
	}
	t.Run("unknown free space", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB, "disk_free_kb=74505688", "disk_free_kb=")))
		if p, ok := problemWith(f, "free"); ok {
			t.Errorf("warned of space it does not know: %s", p.Msg)
		}
	})
	t.Run("no stack sampler", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB, "stack_tool=gdb\nstack_tool=perf\n", "")))
		wantProblem(t, f, false, "db1 10.0.0.5", "gdb", "perf")
		if f.Blocking() {
			t.Errorf("no stack samples blocks the host: %+v", f.Problems)
		}
	})
	t.Run("no server binary", func(t *testing.T) {
		out := edit(t, debianDB, "mysqld_path=/usr/sbin/mariadbd\n", "")
		out = edit(t, out, "mysqld_version=/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)\n", "")
		f := probeFacts(h, newCannedHost("db1", out))
		wantProblem(t, f, true, "db1 10.0.0.5", "mysqld")
		if f.Server != "" {
			t.Errorf("server %q without a binary", f.Server)
		}
	})
	// The probe found the binary, but it printed no version (what a
	// binary missing a shared library does): said as that, not as no
	// binary.
	t.Run("server binary that does not run", func(t *testing.T) {
		out := edit(t, debianDB, "mysqld_version=/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)\n", "mysqld_version=\n")
		f := probeFacts(h, newCannedHost("db1", out))
		wantProblem(t, f, true, "db1 10.0.0.5", "/usr/sbin/mariadbd --version printed nothing")
		if p, ok := problemWith(f, "no mysqld/mariadbd binary"); ok {
			t.Errorf("said there is no binary: %s", p.Msg)
		}
	})
	t.Run("server too old", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB,
			"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)",
			"/usr/sbin/mysqld  Ver 5.6.51 for Linux on x86_64 (MySQL Community Server (GPL))")))
		wantProblem(t, f, true, "db1 10.0.0.5", "5.6.51")
		if f.Server != "" {
			t.Errorf("unsupported server recorded as %q", f.Server)
		}
	})
	t.Run("Percona", func(t *testing.T) {
		f := probeFacts(h, newCannedHost("db1", edit(t, debianDB,
			"/usr/sbin/mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu on x86_64 (Debian 12)",
			"/usr/sbin/mysqld  Ver 8.0.36-28 for Linux on x86_64 (Percona Server (GPL), Release 28, Revision 47601f19)")))
		if f.Server != "Percona Server 8.0.36" || f.Blocking() {
			t.Errorf("server %q, problems %+v", f.Server, f.Problems)
		}
	})
}

func TestProbeHostLoadBox(t *testing.T) {
	h := &topology.Host{Name: "lb1", Role: topology.RoleLoadBox, Address: "10.0.0.9"}
	f := probeFacts(h, newCannedHost("lb1", debianLoadBox))
	if f.Clients["sysbench"] != "sysbench 1.0.20" || !strings.Contains(f.Clients["mysqlslap"], "mariadb-slap") {
		t.Errorf("clients: %q, %q", f.Clients["sysbench"], f.Clients["mysqlslap"])
	}
	// A load box runs no server: none of the database checks apply.
	if f.Blocking() || f.MySQL != "" || f.Mysqld != "" {
		t.Errorf("load box checked as a database host: %+v", f)
	}
	if _, ok := problemWith(f, "gdb"); ok {
		t.Errorf("a load box needs no stack sampler: %+v", f.Problems)
	}

	noSysbench := edit(t, debianLoadBox, "sysbench=sysbench 1.0.20\n", "")
	f = probeFacts(h, newCannedHost("lb1", noSysbench))
	wantProblem(t, f, false, "lb1 10.0.0.9", "sysbench")

	noSlap := edit(t, debianLoadBox, "mysqlslap=/usr/bin/mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)\n", "")
	f = probeFacts(h, newCannedHost("lb1", noSlap))
	wantProblem(t, f, false, "lb1 10.0.0.9", "mysqlslap")

	f = probeFacts(h, newCannedHost("lb1", edit(t, noSlap, "sysbench=sysbench 1.0.20\n", "")))
	wantProblem(t, f, true, "lb1 10.0.0.9", "sysbench", "mysqlslap")
}

func TestProbeFailureNamesHostAndStops(t *testing.T) {
	h := dbHost(topology.RoleMaster)
	ex := newCannedHost("db1", "")
	ex.probeErr = errors.New("db1 10.0.0.5: command timed out after 30s: context deadline exceeded")
	f := probeFacts(h, ex)
	wantProblem(t, f, true, "db1 10.0.0.5", "probe", "timed out")
	if len(ex.scripts) != 1 || f.OS != "" || f.Sudo != "" {
		t.Errorf("went on after a failed probe: ran %d commands, %+v", len(ex.scripts), f)
	}
}

func TestSudo(t *testing.T) {
	user := edit(t, debianDB, "uid=0\n", "uid=1000\n")
	h := dbHost(topology.RoleMaster)
	if f := probeFacts(h, newCannedHost("db1", user)); f.Sudo != "not used" {
		t.Errorf("no sudo configured: %q", f.Sudo)
	}
	h.SSH.Sudo = true
	ex := newCannedHost("db1", user)
	if f := probeFacts(h, ex); f.Sudo != "ok" || !ex.ran("true") {
		t.Errorf("working sudo: %q", f.Sudo)
	}
	ex = newCannedHost("db1", user)
	ex.sudoErr = &executor.ExitError{Host: "db1 10.0.0.5", Script: "true", ExitCode: 1, Stderr: "sudo: a password is required"}
	f := probeFacts(h, ex)
	if f.Sudo != "FAILED" {
		t.Errorf("sudo refused: %q", f.Sudo)
	}
	wantProblem(t, f, true, "db1 10.0.0.5", "a password is required")
	// Root needs no sudo, whatever the inventory says.
	if f := probeFacts(h, newCannedHost("db1", debianDB)); f.Sudo != "root" {
		t.Errorf("root: %q", f.Sudo)
	}
}

func TestClock(t *testing.T) {
	h := dbHost(topology.RoleMaster)
	for _, skew := range []time.Duration{90 * time.Second, -90 * time.Second} {
		ex := newCannedHost("db1", debianDB)
		ex.clock = func(int) string { return dateAt(time.Now().Add(skew)) }
		f := probeFacts(h, ex)
		if off := time.Duration(f.ClockOffsetMs * float64(time.Millisecond)); off < skew-30*time.Second || off > skew+30*time.Second {
			t.Errorf("clock %v off: measured %v", skew, off)
		}
		wantProblem(t, f, false, "db1 10.0.0.5", "ms off")
	}

	// date without %N (BSD, busybox builds) prints the letter.
	ex := newCannedHost("db1", debianDB)
	ex.clock = func(int) string { return "1796180946.N" }
	f := probeFacts(h, ex)
	wantProblem(t, f, false, "db1 10.0.0.5", "clock", "1796180946.N")

	// A shell that hangs up after the first line.
	ex = newCannedHost("db1", debianDB)
	ex.clock = func(int) string { return "" }
	f = probeFacts(h, ex)
	wantProblem(t, f, false, "db1 10.0.0.5", "clock", "no answer")
	if f.Blocking() {
		t.Errorf("a clock it cannot read blocks the host: %+v", f.Problems)
	}
}

func TestFactsBlocking(t *testing.T) {
	f := &Facts{}
	if f.Blocking() {
		t.Error("no problems, blocking")
	}
	f.problem(false, "%s: only %d MB free", "db1", 10)
	if f.Blocking() {
		t.Error("a warning blocks")
	}
	f.problem(true, "%v", errors.New("db1: probe: broken pipe"))
	if !f.Blocking() || len(f.Problems) != 2 || f.Problems[1].Msg != "db1: probe: broken pipe" {
		t.Errorf("problems %+v", f.Problems)
	}
}
