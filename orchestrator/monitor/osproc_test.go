package monitor

import (
	"fmt"
	"strings"
	"testing"
)

// procText is what procScript prints, with one disk vda (254:0) holding
// the datadir.
func procText(cpu [nCPU]uint64, sectorsWritten, writes, ioTicks uint64) string {
	var b strings.Builder
	b.WriteString("@dev\n65024\n@stat\ncpu ")
	for _, v := range cpu {
		fmt.Fprintf(&b, " %d", v)
	}
	b.WriteString(" 0 0\n@load\n1.50 0.75 0.25 3/210 4242\n@disk\n")
	fmt.Fprintf(&b, "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n")
	// Kernel 5.5+ lines: the 16th field after the name counts flush
	// requests (one per 4 writes here).
	fmt.Fprintf(&b, " 254       0 vda 500 0 9000 10 %d 0 %d 99 0 %d 0 0 0 0 0 %d 0\n", writes, sectorsWritten, ioTicks, writes/4)
	b.WriteString("@mem\n2048000\n")
	return b.String()
}

func TestOSRows(t *testing.T) {
	h := newHarness(t, Config{})
	c, err := createCSV(h.dir+"/timeseries/master-os.csv", OSColumns)
	if err != nil {
		t.Fatal(err)
	}
	p := &osProc{m: h.m, host: "master", datadir: "/var/lib/mysql"}
	cpu := [nCPU]uint64{10000, 500, 3000, 80000, 400, 10, 90, 0}
	feed := func(sec float64) {
		t.Helper()
		if err := p.handle(procText(cpu, 2000*uint64(sec), 100*uint64(sec), 250*uint64(sec)), h.at(sec), c); err != nil {
			t.Fatal(err)
		}
	}
	feed(0)
	if !p.picked {
		t.Error("no disk picked after the first sample")
	}
	for i, d := range [nCPU]uint64{100, 0, 40, 800, 40, 5, 5, 10} {
		cpu[i] += d
	}
	feed(1)
	cpu[cpuUser] = 5 // the host rebooted
	feed(2)
	rows := csvRows(t, h.dir+"/timeseries/master-os.csv", OSColumns)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	if rows[0]["cpu_user_pct"] != "" || rows[0]["disk_write_mbps"] != "" || rows[0]["disk"] != "vda" || rows[0]["load1"] != "1.50" {
		t.Errorf("first row %v", rows[0])
	}
	want := map[string]string{"interval_s": "1.000", "cpu_user_pct": "10.0", "cpu_sys_pct": "5.0", "cpu_iowait_pct": "4.0",
		"cpu_idle_pct": "80.0", "cpu_steal_pct": "1.0", "load5": "0.75", "load15": "0.25", "procs_running": "3",
		"disk": "vda", "disk_read_mbps": "0.000", "disk_write_mbps": "1.024", "disk_reads_ps": "0.0", "disk_writes_ps": "100.0",
		"disk_util_pct": "25.0", "disk_flushes_ps": "25.0", "mem_available_mb": "2000.0"}
	for col, v := range want {
		if rows[1][col] != v {
			t.Errorf("%s = %q, want %q", col, rows[1][col], v)
		}
	}
	if rows[2]["cpu_user_pct"] != "" || rows[2]["disk_write_mbps"] != "1.024" {
		t.Errorf("after a reboot: cpu %q disk %q", rows[2]["cpu_user_pct"], rows[2]["disk_write_mbps"])
	}
	if resets := eventsOf(h.events(), "master", KindCounterReset); len(resets) != 1 || p.resets != 1 {
		t.Errorf("reset events %v, counted %d", resets, p.resets)
	}
}
