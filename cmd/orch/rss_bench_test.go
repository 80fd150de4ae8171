package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/orch-bench/orch/internal/biglog"
)

// BenchmarkHugeLogRSS runs the built orch (bin/orch, `make bench` builds
// it) on 100 MiB of sysbench output, `orch parse` and `orch report`, and
// prints each one's peak resident memory (the target: under 200 MB) and
// time. The figure is the kernel's maxrss of the child process.
func BenchmarkHugeLogRSS(b *testing.B) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "bin", "orch"))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		b.Fatalf("%v: run make build first", err)
	}
	dir := b.TempDir()
	log := filepath.Join(dir, "day-long.txt")
	f, err := os.Create(log)
	if err != nil {
		b.Fatal(err)
	}
	if err := biglog.Sysbench(f, 870_000); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(log)
	for b.Loop() {
		for _, args := range [][]string{{"parse", log}, {"report", log, "--out", filepath.Join(dir, "report")}} {
			cmd := exec.Command(bin, args...)
			cmd.Stdout, cmd.Stderr = nil, nil
			start := time.Now()
			if err := cmd.Run(); err != nil {
				b.Fatalf("orch %s: %v", args[0], err)
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			fmt.Printf("orch %-6s on %.0f MiB of sysbench output: peak RSS %.0f MB, %.1f s\n",
				args[0], float64(st.Size())/(1<<20), float64(ru.Maxrss)*1024/1e6, time.Since(start).Seconds())
		}
	}
}
