package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/orch-bench/orch/internal/biglog"
)

// More interval lines than MaxIntervals: the first MaxIntervals are kept,
// the rest counted, and the summary is read as usual.
func TestParseKeepsAtMostMaxIntervals(t *testing.T) {
	var b strings.Builder
	if err := biglog.Sysbench(&b, MaxIntervals+7); err != nil {
		t.Fatal(err)
	}
	res, err := ParseSysbench("huge.txt", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Intervals) != MaxIntervals || res.IntervalsDropped != 7 || !res.Complete || res.Transactions != 2500*(MaxIntervals+7) {
		t.Errorf("kept %d, dropped %d, complete %v, transactions %d", len(res.Intervals), res.IntervalsDropped, res.Complete, res.Transactions)
	}
	if last := res.Intervals[len(res.Intervals)-1]; last.T != MaxIntervals {
		t.Errorf("last kept interval at %d s", last.T)
	}
}

// BenchmarkParseHuge parses 100 MiB of sysbench output (about 870,000
// interval lines) and prints the heap it peaked at; `orch parse` on the
// same file is measured (RSS) by cmd/orch's BenchmarkParseRSS.
func BenchmarkParseHuge(b *testing.B) {
	path := filepath.Join(b.TempDir(), "huge.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := biglog.Sysbench(f, 870_000); err != nil {
		b.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(path)
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		in, _ := os.Open(path)
		res, err := ParseAuto(path, in)
		in.Close()
		if err != nil {
			b.Fatal(err)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		s := res.(*Sysbench)
		fmt.Printf("parse %.0f MiB: %d intervals kept, %d dropped; heap in use %.0f MiB, allocated %.0f MiB in all\n",
			float64(st.Size())/(1<<20), len(s.Intervals), s.IntervalsDropped, float64(after.HeapInuse)/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
	}
}
