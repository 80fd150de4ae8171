package monitor

import (
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/orch-bench/orch/topology"
)

// heapAfterGC is the live heap.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// 100k samples per series (28 hours at 1/s) through the whole path: the
// live heap and the row buffers end where they were after 1k, because
// rows go to disk as they come and the summary keeps running totals only.
func TestMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("100k samples")
	}
	if os.Getenv("MEMPROF") != "" {
		runtime.MemProfileRate = 1
	}
	const n = 100_000
	h := newHarness(t, Config{StallAfter: 2 * time.Second, StallLimit: 4 * time.Second})
	devNull := func() *csvFile {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return &csvFile{f: f, row: make([]byte, 0, 1024)}
	}
	mf, sf := newFakeServer(t, topology.RoleMaster), newFakeServer(t, topology.RoleSlave)
	mcsv, scsv, ocsv := devNull(), devNull(), devNull()
	mp := newMySQLProc(h.m, "master", topology.RoleMaster, mf.srv)
	sp := newMySQLProc(h.m, "slave1", topology.RoleSlave, sf.srv)
	op := &osProc{m: h.m, host: "slave1", datadir: "/var/lib/mysql"}
	h.m.det.setLoad(true, h.at(0))

	var base uint64
	var caps [3]int
	for i := 0; i < n; i++ {
		at := h.at(float64(i))
		mf.second()
		sf.second()
		// Every 50 s the master freezes for 5 s: a stall a minute, far
		// more than the summary lists.
		if i%50 < 45 {
			mf.commit(100)
			sf.commit(100)
		}
		if err := mp.handle(mf.raw(), at, mcsv); err != nil {
			t.Fatal(err)
		}
		if err := sp.handle(sf.raw(), at, scsv); err != nil {
			t.Fatal(err)
		}
		u := uint64(i)
		if err := op.handle(procText([nCPU]uint64{100 * u, 0, 50 * u, 800 * u, 50 * u, 0, 0, 0}, 2000*u, 100*u, 100*u), at, ocsv); err != nil {
			t.Fatal(err)
		}
		h.m.det.check(at.Add(500 * time.Millisecond))
		if i == 1000 {
			base = heapAfterGC()
			caps = [3]int{cap(mcsv.row), cap(scsv.row), cap(ocsv.row)}
		}
	}
	end := heapAfterGC()
	if p := os.Getenv("MEMPROF"); p != "" {
		f, _ := os.Create(p)
		pprof.WriteHeapProfile(f)
		f.Close()
	}
	t.Logf("live heap after 1k samples %d KiB, after %dk %d KiB", base>>10, n/1000, end>>10)
	if end > base+256<<10 {
		t.Errorf("live heap grew from %d to %d bytes over %d samples", base, end, n)
	}
	if now := [3]int{cap(mcsv.row), cap(scsv.row), cap(ocsv.row)}; now != caps {
		t.Errorf("row buffers grew: %v -> %v", caps, now)
	}
	if mcsv.rows != n || scsv.rows != n || ocsv.rows != n {
		t.Errorf("rows written %d %d %d", mcsv.rows, scsv.rows, ocsv.rows)
	}
	if len(h.m.det.stalls) != maxStalls || h.m.det.dropped < 1000 {
		t.Errorf("%d stalls kept, %d dropped", len(h.m.det.stalls), h.m.det.dropped)
	}
	// Every stall reached the limit: the callbacks ran and returned.
	_, kept, dropped := h.m.det.finish(h.at(n))
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.mu.Lock()
		calls := h.calls
		h.mu.Unlock()
		if calls == len(kept)+dropped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("OnStall called %d times for %d stalls", calls, len(kept)+dropped)
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkMasterSample is the control machine's cost of one master sample
// (parse, deltas, row): the monitor's CPU per host per second.
func BenchmarkMasterSample(b *testing.B) {
	h := newHarness(&testing.T{}, Config{})
	f := newFakeServer(b, topology.RoleMaster)
	out, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	c := &csvFile{f: out, row: make([]byte, 0, 1024)}
	p := newMySQLProc(h.m, "master", topology.RoleMaster, f.srv)
	raws := make([]mysqlRaw, 2)
	for i := range raws {
		f.second()
		f.commit(1000)
		raws[i] = f.raw()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		// Alternate two answers: moving counters, never a reset.
		p.hasPrev = false
		p.handle(raws[0], h.at(0), c)
		p.handle(raws[1], h.at(1), c)
	}
}
