package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/up"
)

// BenchmarkUpCriticalPath measures `orch up` from a torn-down cluster against
// its critical path: the slowest host's restart plus the replica connect
// (replication setup). Target: total <= 1.2x the critical path, which holds
// only if hosts are configured in parallel. It prints figures; it asserts
// nothing about speed.
//
//	make lab-up && ORCH_LAB_INVENTORY=$PWD/inventories/lab.yaml ORCH_BIN=$PWD/bin/orch \
//	  go test -run '^$' -bench UpCriticalPath -benchtime 3x ./integration/
func BenchmarkUpCriticalPath(b *testing.B) {
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		b.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN")
	}
	l := &lab{inventory: inv, bin: bin}
	t := &testing.T{}
	fmt.Printf("%8s %10s %12s %12s %8s\n", "run", "total", "slowest-rst", "repl-setup", "ratio")
	var sum float64
	for i := 0; i < b.N; i++ {
		if r := l.orch(t, "down", "-i", inv); r.code != 0 {
			b.Fatalf("down: %s", r.stderr)
		}
		r := l.orch(t, "up", "-i", inv, "--json")
		if r.code != 0 {
			b.Fatalf("up: %s", r.stderr)
		}
		var rep up.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			b.Fatal(err)
		}
		var slowest, setup time.Duration
		for _, tm := range rep.Timings {
			switch {
			case tm.Step == "restart" && tm.Took > slowest:
				slowest = tm.Took
			case tm.Host == "cluster" && strings.HasPrefix(tm.Step, "replication setup"):
				setup = tm.Took
			}
		}
		critical := slowest + setup
		ratio := float64(rep.Total) / float64(critical)
		sum += ratio
		fmt.Printf("%8d %10s %12s %12s %7.2fx\n", i+1, rep.Total.Round(time.Millisecond), slowest.Round(time.Millisecond), setup.Round(time.Millisecond), ratio)
	}
	b.ReportMetric(sum/float64(b.N), "x-critical-path")
	fmt.Println("target: total <= 1.2x critical path (slowest restart + replica connect)")
}

// BenchmarkMatrixCellOverhead runs a small matrix (one engine, two knob
// values, two repetitions, 10 s runs) and prints, per cell, the wall time
// orch spent beyond the benchmark's own run (target <= 15 s), the first
// cell's overhead beside up (its restarts), prepare and the profiling
// tail, from the cell's
// phases_s (target <= 3 s), and orch's peak resident memory (target
// < 100 MB). It asserts nothing about speed.
//
//	make lab-up && ORCH_LAB_INVENTORY=$PWD/inventories/lab.yaml ORCH_BIN=$PWD/bin/orch \
//	  go test -run '^$' -bench MatrixCellOverhead -benchtime 1x ./integration/
func BenchmarkMatrixCellOverhead(b *testing.B) {
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		b.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN")
	}
	for i := 0; i < b.N; i++ {
		runs := b.TempDir()
		cmd := exec.Command(bin, "matrix", "-i", inv, "--engines=innodb", "--knobs=sync_binlog=0,1", "--repeat", "2",
			"--runs", runs, "--workload", "pure-random-writes", "--tables", "2", "--threads", "4", "--time", "10", "--table-size", "10000")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("matrix: %v\n%s", err, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
		var m struct {
			Cells []struct {
				ID, Dir        string
				Started, Ended time.Time
			}
		}
		if err := json.Unmarshal(mustReadB(b, filepath.Join(dir, "matrix.json")), &m); err != nil {
			b.Fatal(err)
		}
		// "other" is orch's time beyond the benchmark, up (its restarts),
		// prepare and the profiling tail (stack samples after the run, a
		// few seconds of load on purpose): connects, snapshots, checks,
		// collect.
		fmt.Printf("%-34s %8s %10s %8s %8s %8s %9s %8s\n", "cell", "wall", "benchmark", "up", "prepare", "profile", "overhead", "other")
		var worst, firstOther time.Duration
		for i, c := range m.Cells {
			var res struct {
				Benchmark struct {
					DurationS float64 `json:"duration_s"`
				} `json:"benchmark"`
				Phases map[string]float64 `json:"phases_s"`
			}
			json.Unmarshal(mustReadB(b, filepath.Join(dir, c.Dir, "results.json")), &res)
			sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
			wall := c.Ended.Sub(c.Started)
			bench := sec(res.Benchmark.DurationS)
			upT, prep, tail := sec(res.Phases["up"]), sec(res.Phases["prepare"]), sec(res.Phases["profile"])
			over := wall - bench
			other := over - upT - prep - tail
			if i == 0 {
				firstOther = other
			}
			worst = max(worst, over)
			r := func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
			fmt.Printf("%-34s %8s %10s %8s %8s %8s %9s %8s\n", c.ID, wall.Round(time.Second), r(bench), r(upT), r(prep), r(tail), r(over), r(other))
		}
		fmt.Printf("worst per-cell overhead %s (target <= 15s); first cell's overhead beside up and prepare %s (target <= 3s); orch peak RSS %.1f MB (target < 100 MB)\n",
			worst.Round(100*time.Millisecond), firstOther.Round(100*time.Millisecond), float64(rss)/1024)
		b.ReportMetric(firstOther.Seconds(), "s-first-cell-other")
		b.ReportMetric(worst.Seconds(), "s-overhead/cell")
		b.ReportMetric(float64(rss)/1024, "MB-rss")
	}
}

func mustReadB(b *testing.B, p string) []byte {
	b.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return data
}
