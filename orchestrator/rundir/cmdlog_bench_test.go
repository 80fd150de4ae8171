package rundir

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// BenchmarkCommandLogLine prints what the command log adds to each thing
// orch sends: redacting one line and writing it to a run directory, for a
// statement and for a 1 KiB script, beside the cheapest command orch sends
// (a local `true`; over SSH a command costs more). It asserts nothing:
//
//	go test -run '^$' -bench CommandLogLine -benchtime 1x ./orchestrator/rundir/
func BenchmarkCommandLogLine(b *testing.B) {
	d, err := Create(b.TempDir(), "bench", time.Now())
	if err != nil {
		b.Fatal(err)
	}
	l := d.CommandLog("a-long-inventory-secret")
	defer l.Close()
	stmt := "CHANGE MASTER TO MASTER_HOST='10.0.0.1', MASTER_PORT=3306, MASTER_USER='repl', MASTER_PASSWORD='an0ther-s3cret', MASTER_USE_GTID=slave_pos"
	script := strings.Repeat("for f in /proc/[0-9]*/environ; do grep -lzxF -e \"$k\" \"$f\"; done\n", 16)
	zero := 0
	const n = 2000
	start := time.Now()
	for i := 0; i < n; i++ {
		l.Record(executor.Record{Start: time.Now(), Host: "master", Kind: executor.KindSQL, Text: stmt, Duration: time.Millisecond})
		l.Record(executor.Record{Start: time.Now(), Host: "master", Kind: executor.KindShell, Text: script, Exit: &zero,
			Env: map[string]string{"LC_ALL": "C"}, Secrets: []string{"stdin-secret"}})
	}
	perLine := time.Since(start) / (2 * n)
	local := executor.NewLocal("bench")
	const m = 50
	start = time.Now()
	for i := 0; i < m; i++ {
		if _, err := local.Run(context.Background(), executor.Command{Script: "true"}); err != nil {
			b.Fatal(err)
		}
	}
	perCommand := time.Since(start) / m
	fmt.Printf("command log: %.1f µs per line (redacted and written), %.1f%% of a local `true` (%.0f µs)\n",
		float64(perLine.Nanoseconds())/1e3, 100*float64(perLine)/float64(perCommand), float64(perCommand.Nanoseconds())/1e3)
	b.ReportMetric(float64(perLine.Nanoseconds())/1e3, "µs/line")
}
