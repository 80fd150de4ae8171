package integration

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkStackSampling measures what stack sampling costs a run: the
// same short workload with --stacks=off, gdb and perf, one after the other
// in one invocation, each run's steady-state TPS against the off run's,
// the longest server pause a gdb snapshot caused (gdb's own duration: the
// server is stopped for at most that), and the lowest one-second TPS
// (where the pause shows). It prints figures; it asserts nothing about
// speed.
//
//	ORCH_LAB_INVENTORY=$PWD/inventories/lab.yaml ORCH_BIN=$PWD/bin/orch \
//	  go test -run '^$' -bench StackSampling -benchtime 1x ./integration/
func BenchmarkStackSampling(b *testing.B) {
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		b.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN")
	}
	l := &lab{inventory: inv, bin: bin}
	t := &testing.T{}
	const warmup = 4.0
	fmt.Printf("%6s %6s %10s %8s %14s %12s %10s\n", "rep", "stacks", "tps", "vs off", "max pause ms", "min 1s tps", "samples")
	ratios := map[string][]float64{}
	for i := 0; i < b.N; i++ {
		offTPS := math.NaN()
		for _, mode := range []string{"off", "gdb", "perf"} {
			runs := b.TempDir()
			r := l.orch(t, "run", "-i", inv, "--workload", "pure-random-writes", "--tables", "2", "--threads", "4", "--time", "20",
				"--table-size", "10000", "--stacks", mode, "--runs", runs)
			if r.code != 0 {
				b.Fatalf("run --stacks %s: exit %d: %s", mode, r.code, r.stderr)
			}
			dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
			var res struct {
				Benchmark struct {
					Intervals []struct{ T, TPS float64 } `json:"intervals"`
				} `json:"benchmark"`
				Monitor struct {
					Stacks []struct {
						Samples    int      `json:"samples"`
						MaxPauseMs *float64 `json:"max_pause_ms"`
					} `json:"stacks"`
				} `json:"monitor"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "results.json"))
			if err != nil {
				b.Fatal(err)
			}
			if err := json.Unmarshal(raw, &res); err != nil {
				b.Fatal(err)
			}
			sum, n, low := 0.0, 0, math.Inf(1)
			for _, iv := range res.Benchmark.Intervals {
				if iv.T > warmup {
					sum, n, low = sum+iv.TPS, n+1, math.Min(low, iv.TPS)
				}
			}
			tps := sum / float64(n)
			pause, samples := math.NaN(), 0
			for _, p := range res.Monitor.Stacks {
				samples += p.Samples
				if p.MaxPauseMs != nil && (math.IsNaN(pause) || *p.MaxPauseMs > pause) {
					pause = *p.MaxPauseMs
				}
			}
			vs := ""
			if mode == "off" {
				offTPS = tps
			} else {
				ratios[mode] = append(ratios[mode], tps/offTPS)
				vs = fmt.Sprintf("%.3fx", tps/offTPS)
			}
			fmt.Printf("%6d %6s %10.1f %8s %14.0f %12.1f %10d\n", i+1, mode, tps, vs, pause, low, samples)
			if mode == "gdb" && !math.IsNaN(pause) {
				b.ReportMetric(pause, "max-pause-ms")
			}
		}
	}
	for mode, rs := range ratios {
		sum := 0.0
		for _, r := range rs {
			sum += r
		}
		b.ReportMetric(sum/float64(len(rs)), mode+"-tps-vs-off")
	}
}
