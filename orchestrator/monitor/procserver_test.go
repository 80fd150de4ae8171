package monitor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// srvText is a sample with the server and load box sections as the
// session's script prints them (written by hand from proc(5)'s layouts).
func srvText(hz bool, pid, utime, stime, cs, readB, writeB, boxAll, boxClient uint64) string {
	var b strings.Builder
	if hz {
		b.WriteString("@hz\n100\n")
	}
	b.WriteString("@stat\ncpu  100 0 100 1000 0 0 0 0 0 0\ncpu0 50 0 50 500 0 0 0 0 0 0\ncpu1 50 0 50 500 0 0 0 0 0 0\n")
	b.WriteString("@load\n0.50 0.40 0.30 2/300 999\n@srv\n")
	fmt.Fprintf(&b, "pid %d\n", pid)
	// comm with a space and a parenthesis, as a thread name may have.
	fmt.Fprintf(&b, "stat %d (my sql) d) S 1 1 1 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 30 0 5000 1000 500\n", pid, utime, stime)
	fmt.Fprintf(&b, "io rchar: 1\nio wchar: 2\nio syscr: %d\nio syscw: %d\nio read_bytes: %d\nio write_bytes: %d\nio cancelled_write_bytes: 0\n",
		readB/10, writeB/100, readB, writeB)
	fmt.Fprintf(&b, "threads 30\nrun 3\ncs %d\n", cs)
	fmt.Fprintf(&b, "@box\nbox %d %d 5\n", boxAll, boxClient)
	// The sampler shell: utime 7, stime 3, and its reaped children's
	// 20 + 10, growing by a tenth of the box's ticks.
	fmt.Fprintf(&b, "@self\n4242 (sh) S 1 4242 4242 0 -1 4194304 100 0 0 0 7 3 %d 10 20 0 1 0 5000 1000 500\n", 20+boxAll/10)
	return b.String()
}

func TestServerAndBoxColumns(t *testing.T) {
	h := newHarness(t, Config{})
	c, err := createCSV(h.dir+"/timeseries/master-os.csv", OSColumns)
	if err != nil {
		t.Fatal(err)
	}
	p := &osProc{m: h.m, host: "master"}
	feed := func(sec float64, text string) {
		t.Helper()
		if err := p.handle(text, h.at(sec), c); err != nil {
			t.Fatal(err)
		}
	}
	feed(0, srvText(true, 42, 1000, 500, 12000, 4096, 81920, 7000, 3000))
	// One second later: 80 ticks = 0.8 s of CPU, 600 switches,
	// 8 KiB read, 1 MiB written; the box used 150 ticks, the client 120.
	feed(1, srvText(false, 42, 1060, 520, 12600, 4096+8192, 81920+1048576, 7150, 3120))
	// A restarted server: a new pid leaves its rates empty.
	feed(2, srvText(false, 77, 5, 5, 20, 0, 0, 7300, 3240))
	rows := csvRows(t, h.dir+"/timeseries/master-os.csv", OSColumns)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0]["server_cpu_us_ps"] != "" || rows[0]["sampler_cpu_us_ps"] != "" || rows[0]["server_pid"] != "42" || rows[0]["ncpu"] != "2" || rows[0]["box_tasks_runnable"] != "5" {
		t.Errorf("first row %v", rows[0])
	}
	want := map[string]string{"ncpu": "2", "server_pid": "42", "server_cpu_us_ps": "800000", "server_cs_ps": "600.0",
		"server_read_bps": "8192", "server_write_bps": "1048576", "server_syscr_ps": "819.0",
		"server_syscw_ps": "10485.0", "server_threads": "30", "server_threads_runnable": "3",
		"client_cpu_us_ps": "1200000", "box_cpu_us_ps": "1500000", "box_tasks_runnable": "5", "sampler_cpu_us_ps": "150000"}
	for col, v := range want {
		if rows[1][col] != v {
			t.Errorf("row 1 %s = %q, want %q", col, rows[1][col], v)
		}
	}
	for _, col := range []string{"server_cpu_us_ps", "server_cs_ps", "server_read_bps"} {
		if rows[2][col] != "" {
			t.Errorf("after a restart %s = %q, want empty", col, rows[2][col])
		}
	}
	if rows[2]["server_pid"] != "77" || rows[2]["box_cpu_us_ps"] != "1500000" {
		t.Errorf("row 2 %v", rows[2])
	}
}

func TestServerScriptQuotesPidFile(t *testing.T) {
	s := procLoopFor("", "/run/my sql/$(reboot).pid", true)
	if !strings.Contains(s, `'/run/my sql/$(reboot).pid'`) {
		t.Errorf("pid file not quoted:\n%s", s)
	}
	for _, want := range []string{"@hz", "@srv", "@box", "$t/schedstat", "/proc/[0-9]*/task/[0-9]*/stat"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q", want)
		}
	}
	if plain := procLoop(""); strings.Contains(plain, "@srv") || strings.Contains(plain, "@box") {
		t.Error("a session without a pid file or box samples processes")
	}
}

// The script runs here against this test's own process, under the host's
// sh and under dash (Debian's sh, which reads byte by byte):
// the shell text must work on a real /proc, not only parse. Its thread
// count and context switches are held to what /proc/PID/task/*/status
// says around the sample.
func TestServerScriptOnThisHost(t *testing.T) {
	if _, err := os.Stat("/proc/self/io"); err != nil {
		t.Fatal("no /proc/PID/io here: the monitors need Linux's /proc")
	}
	pf := filepath.Join(t.TempDir(), "test.pid")
	if err := os.WriteFile(pf, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, sh := range [][]string{{"/bin/sh", "-c", procLoopFor("", pf, true)}, {"dash", "-c", procLoopBody("", pf, true)}} {
		t.Run(sh[0], func(t *testing.T) {
			if _, err := exec.LookPath(sh[0]); err != nil {
				t.Fatalf("%s: %v (Debian has both bash and dash)", sh[0], err)
			}
			before := statusSwitches(t)
			cmd := exec.Command(sh[0], sh[1:]...)
			cmd.Stdin = strings.NewReader("\n")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			after := statusSwitches(t)
			text, _, _ := strings.Cut(string(out), "\n"+procEnd+"\n")
			s, err := parseProc(text)
			if err != nil {
				t.Fatal(err)
			}
			if !s.srv.ok || s.srv.pid != int64(os.Getpid()) || s.srv.threads < 1 || !s.srv.hasCS || !s.srv.hasIO {
				t.Errorf("server section %+v from:\n%s", s.srv, text)
			}
			// Threads may come and go in a Go process; the switches only grow.
			if s.srv.cs < before || s.srv.cs > after {
				t.Errorf("context switches %d, want between %d and %d (the status files' sums before and after)", s.srv.cs, before, after)
			}
			if !s.self.ok || s.self.pid == int64(os.Getpid()) {
				t.Errorf("sampler section %+v: want the shell's own pid", s.self)
			}
			if !s.box.ok || s.box.allTicks == 0 || s.hz == 0 || s.ncpu < 1 {
				t.Errorf("box %+v hz %d ncpu %d from:\n%s", s.box, s.hz, s.ncpu, text)
			}
		})
	}
}

// statusSwitches sums this process's threads' voluntary and involuntary
// context switches from /proc/self/task/*/status.
func statusSwitches(t *testing.T) uint64 {
	t.Helper()
	files, _ := filepath.Glob("/proc/self/task/*/status")
	var sum uint64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				sum += n
			}
		}
	}
	return sum
}

// A short or empty io line (a /proc file read back after a seek is
// generated anew) is an error of the sample, never a panic of orch.
func TestServerLineShort(t *testing.T) {
	for _, line := range []string{"io", "io read_bytes:", "threads", "cs"} {
		var s serverSnap
		if err := parseServerLine(&s, strings.Fields(line)); err == nil {
			t.Errorf("%q: no error", line)
		}
	}
}
