package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

func number(t *testing.T, s string) bench.Number {
	t.Helper()
	n, err := bench.ParseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestProgressLines: off a terminal, a line every Every with elapsed of
// total, tps (qps only when it differs: sysbench's oltp_insert runs one
// query a transaction), the latency named by its percentile and errors as
// the tool printed them; on a terminal one redrawn line, ended by Done.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := &Progress{W: &b, Total: time.Minute, Every: 10 * time.Second}
	p.SetPercentile(95)
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	p.Start(t0)
	iv := bench.Interval{T: 5, TPS: number(t, "7308.98"), QPS: number(t, "7308.98"), LatMS: number(t, "2.11")}
	p.Interval(iv, t0.Add(5*time.Second)) // not due yet
	iv.T, iv.Errors = 15, number(t, "0.50")
	p.Interval(iv, t0.Add(15*time.Second))
	p.Done()
	want := "run: 15s / 1m0s (25%)  tps 7308.98  p95 2.11 ms  err/s 0.50\n"
	if b.String() != want {
		t.Errorf("progress %q, want %q", b.String(), want)
	}

	b.Reset()
	p = &Progress{W: &b, Terminal: true}
	p.Start(t0)
	p.Interval(bench.Interval{TPS: number(t, "12")}, t0.Add(3*time.Second))
	p.Done()
	if want := "\r\033[Krun: 3s  tps 12  qps -\n"; b.String() != want {
		t.Errorf("terminal progress %q, want %q", b.String(), want)
	}
}
