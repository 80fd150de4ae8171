package executor_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// BenchmarkCheckFanout1000 drives orch check's connection layer against
// 1,000 SSH servers: cluster.Connect dials every host (DefaultParallel at a
// time) and keeps the connections for the command's lifetime, Each runs a
// command on every host, Close ends them. The servers live in a child
// process (SpawnFanoutServers) so the memory figures are the client's.
// It prints wall time per phase, peak heap and peak RSS (target: < 200 MB)
// and fails when a goroutine outlives the connections, which is a
// correctness check, not a timed one. Run it with:
//
//	go test -run '^$' -bench CheckFanout1000 -benchtime 1x ./orchestrator/executor/
func BenchmarkCheckFanout1000(b *testing.B) {
	const n = 1000
	srv := executor.SpawnFanoutServers(b, n)
	b.Setenv("HOME", b.TempDir())
	b.Setenv("SSH_AUTH_SOCK", "")
	hosts := make([]*topology.Host, n)
	for i, port := range srv.Ports {
		hosts[i] = &topology.Host{
			Name: "host" + strconv.Itoa(i), Role: topology.RoleSlave, Address: "127.0.0.1",
			SSH: topology.SSHConfig{User: "root", Port: port, IdentityFiles: []string{srv.KeyFile}},
		}
	}
	opts := cluster.Options{
		Dial:     executor.DialConfig{KnownHostsFile: srv.KnownHosts, SSHConfigFile: "none", ConnectTimeout: 30 * time.Second},
		Parallel: orchestrator.DefaultParallel,
	}
	for b.Loop() {
		runtime.GC()
		baseGoroutines := runtime.NumGoroutine()
		baseRSS := executor.ProcStatusKB("VmRSS")
		resetPeakRSS(b)
		peak := startSampler()

		start := time.Now()
		c := cluster.Connect(context.Background(), nil, hosts, opts)
		dialled := time.Since(start)
		if err := c.ConnectErr(); err != nil {
			b.Fatalf("connect: %.300s", err)
		}
		connected := peak.sample()
		var outMu sync.Mutex
		wrong := 0
		errs := c.Each(context.Background(), nil, func(ctx context.Context, h *topology.Host, ex executor.Executor) error {
			res, err := ex.Run(ctx, executor.Command{Script: "echo ok"})
			if err == nil && string(res.Stdout) != "ok\n" {
				outMu.Lock()
				wrong++
				outMu.Unlock()
			}
			return err
		})
		ran := time.Since(start)
		if err := orchestrator.Aggregate(errs); err != nil {
			b.Fatalf("run: %.300s", err)
		}
		if wrong > 0 {
			b.Fatalf("%d hosts returned the wrong output", wrong)
		}
		if err := c.Close(); err != nil {
			b.Fatalf("close: %v", err)
		}
		total := time.Since(start)
		m := peak.stop()
		hwm := executor.ProcStatusKB("VmHWM")
		left := waitGoroutines(baseGoroutines, 10*time.Second)

		fmt.Printf("\n1,000-host fan-out (cluster.Connect + Each + Close, parallel %d):\n", orchestrator.DefaultParallel)
		fmt.Printf("  wall: connect %s, connect+run %s, total %s\n", dialled.Round(time.Millisecond), ran.Round(time.Millisecond), total.Round(time.Millisecond))
		fmt.Printf("  with 1,000 connections open: %d goroutines (stacks %s), heap in use %s\n", connected.goroutines, mb(connected.stacks), mb(connected.heap))
		fmt.Printf("  peak heap in use %s, peak Go memory from the OS %s (sampled every 5ms)\n", mb(m.heap), mb(m.sys))
		fmt.Printf("  peak RSS (VmHWM) %s (RSS before %s); target < 200 MB\n", mb(uint64(hwm)*1024), mb(uint64(baseRSS)*1024))
		fmt.Printf("  goroutines: %d before, peak %d, %d after close\n", baseGoroutines, m.goroutines, left)
		b.ReportMetric(float64(hwm)/1024, "peakRSS-MB")
		b.ReportMetric(float64(m.heap)/(1<<20), "peakHeap-MB")
		if left > baseGoroutines {
			buf := make([]byte, 1<<20)
			b.Fatalf("%d goroutines outlived the connections:\n%.4000s", left-baseGoroutines, buf[:runtime.Stack(buf, true)])
		}
	}
	fmt.Printf("  server process peak RSS %s (not counted above)\n\n", mb(uint64(max(srv.Stop(), 0))*1024))
}

func mb(bytes uint64) string { return fmt.Sprintf("%.1f MB", float64(bytes)/(1<<20)) }

// resetPeakRSS makes VmHWM start again from the current RSS (proc(5),
// clear_refs value 5), so the peak is this pass's.
func resetPeakRSS(b *testing.B) {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Logf("cannot reset VmHWM (%v): the peak RSS covers the whole process", err)
	}
}

// waitGoroutines waits for the goroutine count to fall back to base (the
// connections' goroutines end asynchronously after Close) and returns the
// last count seen.
func waitGoroutines(base int, limit time.Duration) int {
	deadline := time.Now().Add(limit)
	for {
		n := runtime.NumGoroutine()
		if n <= base || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sampler records peak heap in use and Go's memory from the OS through
// runtime/metrics, which does not stop the world as ReadMemStats does.
type sampler struct {
	mu      sync.Mutex
	samples []metrics.Sample
	peak    memFigures
	done    chan struct{}
	stopped chan struct{}
}

type memFigures struct {
	heap, sys  uint64 // heap in use (objects + fragmentation), all Go memory from the OS
	stacks     uint64 // goroutine stacks
	goroutines int
}

func startSampler() *sampler {
	s := &sampler{done: make(chan struct{}), stopped: make(chan struct{}), samples: []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/sched/goroutines:goroutines"},
		{Name: "/memory/classes/heap/stacks:bytes"},
	}}
	go func() {
		defer close(s.stopped)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			s.sample()
			select {
			case <-s.done:
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// sample reads the figures now, folds them into the peaks and returns them.
func (s *sampler) sample() memFigures {
	s.mu.Lock()
	defer s.mu.Unlock()
	metrics.Read(s.samples)
	now := memFigures{
		heap:       s.samples[0].Value.Uint64() + s.samples[1].Value.Uint64(),
		sys:        s.samples[2].Value.Uint64(),
		goroutines: int(s.samples[3].Value.Uint64()),
		stacks:     s.samples[4].Value.Uint64(),
	}
	s.peak.heap = max(s.peak.heap, now.heap)
	s.peak.sys = max(s.peak.sys, now.sys)
	s.peak.goroutines = max(s.peak.goroutines, now.goroutines)
	s.peak.stacks = max(s.peak.stacks, now.stacks)
	return now
}

// stop ends sampling and returns the peaks.
func (s *sampler) stop() memFigures {
	close(s.done)
	<-s.stopped
	s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak
}
