package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// BenchmarkTimeToDecision runs `orch matrix --precision 10% --max-repeat
// 6` on the lab for a real difference (innodb_flush_log_at_trx_commit=1
// vs 2) and for an A/A, and prints for each the wall time to its decision,
// the rounds used and the fixed --repeat that would have reached the same
// precision given the runs' measured CV (stats.ExpectedRounds). It asserts
// nothing about speed.
func BenchmarkTimeToDecision(b *testing.B) {
	inv, bin := os.Getenv("ORCH_LAB_INVENTORY"), os.Getenv("ORCH_BIN")
	if inv == "" || bin == "" {
		b.Skip("no lab: set ORCH_LAB_INVENTORY and ORCH_BIN")
	}
	// One client thread: each commit waits for its own fsync, so the
	// difference does not hinge on how fast the disk syncs (see
	// TestWhyFlushLogFsyncs).
	short := []string{"--workload", "pure-random-writes", "--tables", "2", "--threads", "1", "--time", "5", "--table-size", "10000", "--warmup", "1"}
	cases := []struct {
		name string
		args []string
	}{
		{"flush=1 vs 2", []string{"--engines=innodb", "--knobs=innodb_flush_log_at_trx_commit=1,2"}},
		{"A/A", []string{"--engines=innodb", "--aa"}},
	}
	fmt.Printf("\n%-14s %6s %9s %-60s %s\n", "matrix", "rounds", "wall", "verdict's end", "fixed --repeat for ±10%")
	for i := 0; i < b.N; i++ {
		for _, c := range cases {
			runs := b.TempDir()
			args := append(append([]string{"matrix", "-i", inv, "--precision", "10%", "--max-repeat", "6", "--runs", runs}, c.args...), short...)
			t0 := time.Now()
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				b.Fatalf("%s: %v\n%s", c.name, err, out)
			}
			wall := time.Since(t0)
			dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
			var m struct {
				Until struct {
					Judged int    `json:"rounds_judged"`
					Why    string `json:"why"`
				} `json:"until"`
			}
			if err := json.Unmarshal(mustReadB(b, filepath.Join(dir, "matrix.json")), &m); err != nil {
				b.Fatal(err)
			}
			fixed := "n/a"
			if cv, err := judge.NoiseCV(dir); err == nil {
				n, ok := stats.ExpectedRounds(cv, 0.10, 2, 50)
				fixed = fmt.Sprintf("%d (CV %.1f%%)", n, 100*cv)
				if !ok {
					fixed = fmt.Sprintf("> 50 (CV %.1f%%)", 100*cv)
				}
			}
			fmt.Printf("%-14s %6d %9s %-60s %s\n", c.name, m.Until.Judged, wall.Round(time.Second), m.Until.Why, fixed)
			b.ReportMetric(wall.Seconds(), "s-"+map[bool]string{true: "aa", false: "diff"}[c.name == "A/A"])
		}
	}
}
