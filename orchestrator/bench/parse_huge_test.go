package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// hugeSysbench writes sysbench 1.0 output with n interval lines (in the
// format of the captured run in testdata) to w.
func hugeSysbench(t testing.TB, w io.Writer, n int) {
	t.Helper()
	src := readFile(t, "testdata/sysbench-1.0-oltp_insert-innodb-run.txt")
	lines := strings.Split(string(src), "\n")
	var head, tail []string
	for i, l := range lines {
		if strings.HasPrefix(l, "[ ") {
			continue
		}
		if i < 20 {
			head = append(head, l)
		} else {
			tail = append(tail, l)
		}
	}
	fmt.Fprintln(w, strings.Join(head, "\n"))
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, "[ %ds ] thds: 32 tps: %d.%02d qps: %d.%02d (r/w/o: 0.00/%d.%02d/0.00) lat (ms,95%%): 24.38 err/s: 0.00 reconn/s: 0.00\n",
			i, 2400+i%200, i%100, 2400+i%200, i%100, 2400+i%200, i%100)
	}
	fmt.Fprint(w, strings.Join(tail, "\n"))
}

// More interval lines than MaxIntervals: the first MaxIntervals are kept,
// the rest counted, and the summary is read as usual.
func TestParseKeepsAtMostMaxIntervals(t *testing.T) {
	var b strings.Builder
	hugeSysbench(t, &b, MaxIntervals+7)
	res, err := ParseSysbench("huge.txt", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Intervals) != MaxIntervals || res.IntervalsDropped != 7 || !res.Complete || res.Transactions != 77334 {
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
	hugeSysbench(b, f, 870_000)
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
