package monitor

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkLabMonitorOverhead measures what the monitors cost the
// benchmark: the same sysbench oltp_insert with monitors off and on, in
// ABBA order (off, on, on, off, ...) so that drift on a shared machine
// cancels out. Target: tps on / tps off >= 0.98. Needs a lab (see
// labenv_test.go); run with
//
//	ORCH_TEST_LAB_INVENTORY=/tmp/lab-mon/lab.yaml go test -run '^$' \
//	  -bench LabMonitorOverhead -benchtime 1x ./orchestrator/monitor
//
// ORCH_BENCH_SECONDS (default 15) and ORCH_BENCH_ROUNDS (default 2 ABBA
// blocks) size it; ORCH_BENCH_THREADS (default 4) sets sysbench threads.
func BenchmarkLabMonitorOverhead(b *testing.B) {
	env := needLab(b)
	seconds, rounds, threads := envInt(b, "ORCH_BENCH_SECONDS", 15), envInt(b, "ORCH_BENCH_ROUNDS", 2), envInt(b, "ORCH_BENCH_THREADS", 4)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(4*rounds*seconds)*time.Second+5*time.Minute)
	defer cancel()
	if out, err := env.sysbench(ctx, "prepare", 2, 10); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	// Warm the buffer pool and binlog first: a fresh table runs slower.
	if out, err := env.sysbench(ctx, "run", threads, seconds); err != nil {
		b.Fatalf("%v\n%s", err, out)
	}
	// cpu is this process's CPU time per second of benchmark, by mode: the
	// monitors' cost on the control machine (here it shares the cores).
	var cpu [2]time.Duration
	run := func(monitored bool) float64 {
		before := processCPU(b)
		var m *Monitor
		if monitored {
			var err error
			if m, err = Start(ctx, Config{Dir: b.TempDir()}, env.dbs, nil); err != nil {
				b.Fatal(err)
			}
			m.SetLoadActive(true)
		}
		out, err := env.sysbench(ctx, "run", threads, seconds)
		if err != nil {
			b.Fatalf("%v\n%s", err, out)
		}
		tps := env.tps(b, out)
		if m != nil {
			m.SetLoadActive(false)
			sum, err := m.Stop()
			if err != nil {
				b.Fatal(err)
			}
			if len(sum.Stalls) > 0 || sum.SkippedTicks > 0 {
				b.Logf("monitored run: %d stalls, %d skipped ticks", len(sum.Stalls), sum.SkippedTicks)
			}
		}
		used := processCPU(b) - before
		mode := map[bool]int{false: 0, true: 1}[monitored]
		cpu[mode] += used
		fmt.Printf("monitors %-3s %8.1f tps, orch CPU %4dms\n", map[bool]string{true: "on", false: "off"}[monitored], tps, used.Milliseconds())
		return tps
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var off, on float64
		for r := 0; r < rounds; r++ {
			// ABBA: off, on, on, off.
			off += run(false)
			on += run(true)
			on += run(true)
			off += run(false)
		}
		off, on = off/float64(2*rounds), on/float64(2*rounds)
		perSec := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(2*rounds*seconds) }
		fmt.Printf("tps off %.1f, tps on %.1f, ratio %.3f (target >= 0.98); orch CPU %.1f ms/s off, %.1f ms/s on\n",
			off, on, on/off, perSec(cpu[0]), perSec(cpu[1]))
		b.ReportMetric(off, "tps_off")
		b.ReportMetric(on, "tps_on")
		b.ReportMetric(on/off, "ratio")
		b.ReportMetric(perSec(cpu[1]-cpu[0]), "monitor_cpu_ms/s")
	}
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}
