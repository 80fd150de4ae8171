package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
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
