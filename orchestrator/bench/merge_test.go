package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func n(s string) Number {
	v, err := ParseNumber(s)
	if err != nil {
		panic(err)
	}
	return v
}

func hist(rows ...any) []HistogramRow {
	var h []HistogramRow
	for i := 0; i < len(rows); i += 2 {
		h = append(h, HistogramRow{ValueMS: n(rows[i].(string)), Count: int64(rows[i+1].(int))})
	}
	return h
}

func intervals(tps ...string) []Interval {
	var iv []Interval
	for i, v := range tps {
		iv = append(iv, Interval{T: int64(i + 1), Threads: 4, TPS: n(v), QPS: n(v), Reads: n("0.00"),
			Writes: n(v), Others: n("0.00"), LatMS: n("1.00"), Errors: n("0.00"), Reconnects: n("0.00")})
	}
	return iv
}

// The histogram percentile follows sysbench's own rule: on a real capture
// it reproduces the percentile sysbench printed (9.22 ms at p99, shown
// with two decimals, from the 9.223 ms bucket).
func TestHistogramPercentileMatchesSysbench(t *testing.T) {
	r := parseSysbenchFile(t, "captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt")
	got, ok := HistogramPercentile(r.Histogram, 99)
	if !ok {
		t.Fatal("no percentile from a 108-row histogram")
	}
	if printed := fmt.Sprintf("%.2f", got.Float64()); printed != r.LatencyMS.Pct.String() {
		t.Errorf("p99 from the histogram %s (%s), sysbench printed %s", got, printed, r.LatencyMS.Pct)
	}
	if _, ok := HistogramPercentile(nil, 95); ok {
		t.Error("percentile of an empty histogram")
	}
}

// Two load boxes whose p95s are 2 ms and 10 ms: the mean of the clients'
// p95 is 6 ms, which is no latency any request had; the merged histogram
// puts the 95th percentile in the 10 ms bucket. By hand: 200 events, rank
// floor(200*0.95+0.5) = 190; cumulative counts 140, 189, 200 -> 10.000.
// Per client: 100 events, rank 95; a: 90, 95 -> 2.000; b: 50, 94, 100 -> 10.000.
func TestMergeSysbenchPercentileFromMergedHistogram(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := &Sysbench{Tool: ToolSysbench, Complete: true, Threads: 4, Events: 100, Transactions: 100, TPS: n("10.00"),
		Queries: 2000, QPS: n("200.00"), Errors: 1, Percentile: 95,
		LatencyMS: Latency{Min: n("0.95"), Avg: n("1.50"), Max: n("12.00"), Pct: n("2.00"), Sum: n("150.00"), Percentile: 95},
		Histogram: hist("1.000", 90, "2.000", 5, "10.000", 5)}
	b := &Sysbench{Tool: ToolSysbench, Complete: true, Threads: 4, Events: 100, Transactions: 100, TPS: n("10.05"),
		Queries: 2000, QPS: n("201.10"), Reconnects: 2, Percentile: 95,
		LatencyMS: Latency{Min: n("0.90"), Avg: n("2.50"), Max: n("11.00"), Pct: n("10.00"), Sum: n("250.00"), Percentile: 95},
		Histogram: hist("1.000", 50, "2.000", 44, "10.000", 6)}
	m, err := MergeSysbench([]ClientRun{{Name: "load1", Start: t0, Result: a}, {Name: "load2", Start: t0.Add(3 * time.Millisecond), Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, got, want string }{
		{"p95", m.LatencyMS.Pct.String(), "10.000"},
		{"tps", m.TPS.String(), "20.05"},
		{"qps", m.QPS.String(), "401.10"},
		{"min", m.LatencyMS.Min.String(), "0.90"},
		{"max", m.LatencyMS.Max.String(), "12.00"},
		{"sum", m.LatencyMS.Sum.String(), "400.00"},
		{"avg", m.LatencyMS.Avg.String(), "2.00"}, // 400 ms over 200 events
		{"from", m.PercentileFrom, "merged histogram"},
		{"counts", fmt.Sprint(m.Threads, m.Events, m.Transactions, m.Queries, m.Errors, m.Reconnects), "8 200 200 4000 1 2"},
		{"histogram", fmt.Sprint(m.Histogram), fmt.Sprint(hist("1.000", 140, "2.000", 49, "10.000", 11))},
	} {
		if c.got != c.want {
			t.Errorf("merged %s = %s, want %s", c.what, c.got, c.want)
		}
	}
	meanP95 := (a.LatencyMS.Pct.Float64() + b.LatencyMS.Pct.Float64()) / 2
	if meanP95 == m.LatencyMS.Pct.Float64() {
		t.Errorf("case does not tell the mean of p95s (%v) from the merged p95", meanP95)
	}
	if len(m.Clients) != 2 || m.Clients[0].Result != a || m.Clients[1].Name != "load2" || m.Clients[1].OffsetMS != 3 {
		t.Errorf("per-client figures: %+v", m.Clients)
	}
	if !m.Complete || m.Percentile != 95 || m.LatencyMS.Percentile != 95 {
		t.Errorf("complete %v percentile %d/%d", m.Complete, m.Percentile, m.LatencyMS.Percentile)
	}
}

// load2 started two seconds after load1: its first line ([ 1s ]) is
// load1's third second. Throughput is summed by wall-clock slot, and the
// slots only one client covered are marked incomplete. Line-number
// alignment would have added 100.00 + 50.50 for the first second.
func TestMergeSysbenchIntervalsAlignedByTime(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	a := &Sysbench{Percentile: 95, Intervals: intervals("100.00", "110.00", "120.00", "130.00")}
	b := &Sysbench{Percentile: 95, Intervals: intervals("50.50", "60.25", "70.00")}
	m, err := MergeSysbench([]ClientRun{
		{Name: "load1", Start: t0, Result: a},
		{Name: "load2", Start: t0.Add(2*time.Second + 40*time.Millisecond), Result: b},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, iv := range m.Intervals {
		got = append(got, fmt.Sprintf("%d:%s/%d/%v", iv.T, iv.TPS, iv.Clients, iv.Complete))
	}
	want := "1:100.00/1/false 2:110.00/1/false 3:170.50/2/true 4:190.25/2/true 5:70.00/1/false"
	if strings.Join(got, " ") != want {
		t.Errorf("merged intervals\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if m.IntervalS != 1 || m.MaxSkewMS != 40 {
		t.Errorf("interval %ds skew %vms, want 1s 40ms", m.IntervalS, m.MaxSkewMS)
	}
	js, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"intervals":[{"t":1,"threads":4,"tps":100.00,`) || !strings.Contains(string(js), `"clients":1,"complete":false}`) {
		t.Errorf("JSON intervals: %.400s", js)
	}
	if iv := m.Intervals[2]; iv.Threads != 8 || iv.Writes.String() != "170.50" || iv.Errors.String() != "0.00" {
		t.Errorf("slot 3: %+v", iv)
	}
}

func TestMergeSysbenchRefusesIncomparableClients(t *testing.T) {
	t0 := time.Now()
	for _, c := range []struct {
		name string
		a, b *Sysbench
		want string
	}{
		{"percentile", &Sysbench{Percentile: 95}, &Sysbench{Percentile: 99}, "load2 reports the 99th percentile, load1 the 95th"},
		{"interval", &Sysbench{Percentile: 95, Intervals: intervals("1.00", "2.00")},
			&Sysbench{Percentile: 95, Intervals: []Interval{{T: 5}, {T: 10}}}, "load2 reports every 5s, load1 every 1s"},
	} {
		_, err := MergeSysbench([]ClientRun{{Name: "load1", Start: t0, Result: c.a}, {Name: "load2", Start: t0, Result: c.b}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := MergeSysbench([]ClientRun{{Name: "load1"}}); err == nil || !strings.Contains(err.Error(), "load1: no result") {
		t.Errorf("client without a result: %v", err)
	}
	if _, err := MergeSysbench(nil); err == nil {
		t.Error("merging no clients succeeded")
	}
}

// Without every client's histogram there is no merged percentile, and the
// result says why instead of falling back to an average.
func TestMergeSysbenchWithoutHistogram(t *testing.T) {
	t0 := time.Now()
	a := &Sysbench{Percentile: 95, Events: 10, LatencyMS: Latency{Pct: n("2.00")}, Histogram: hist("1.000", 10)}
	b := &Sysbench{Percentile: 95, Events: 10, LatencyMS: Latency{Pct: n("3.00")}}
	m, err := MergeSysbench([]ClientRun{{Name: "load1", Start: t0, Result: a}, {Name: "load2", Start: t0, Result: b}})
	if err != nil {
		t.Fatal(err)
	}
	if m.LatencyMS.Pct.IsSet() || !strings.Contains(m.PercentileFrom, "no --histogram output from load2") {
		t.Errorf("p95 %q from %q", m.LatencyMS.Pct, m.PercentileFrom)
	}
	if m.TPS.IsSet() {
		t.Errorf("tps %s summed over clients that printed none", m.TPS)
	}
}

// Real output: the same capture as two clients, the second started one
// second later. Every slot both cover is the sum of the two lines that
// ended in that second, not of the lines with the same number.
func TestMergeSysbenchCapturedOffset(t *testing.T) {
	r := parseSysbenchFile(t, "captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt")
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	m, err := MergeSysbench([]ClientRun{{Name: "load1", Start: t0, Result: r}, {Name: "load2", Start: t0.Add(time.Second), Result: r}})
	if err != nil {
		t.Fatal(err)
	}
	iv := r.Intervals
	if len(m.Intervals) != len(iv)+1 {
		t.Fatalf("%d merged slots for %d lines a client", len(m.Intervals), len(iv))
	}
	for k := 1; k < len(iv); k++ {
		got := m.Intervals[k]
		want := iv[k].TPS.Float64() + iv[k-1].TPS.Float64()
		if !got.Complete || got.T != iv[k].T || math.Abs(got.TPS.Float64()-want) > 0.001 {
			t.Errorf("slot %ds: tps %s (complete %v), want %.2f = %s + %s", got.T, got.TPS, got.Complete, want, iv[k].TPS, iv[k-1].TPS)
		}
	}
	if m.Intervals[0].Complete || m.Intervals[len(iv)].Complete {
		t.Error("the first and last slots have one client each")
	}
	// Doubling every bucket's count keeps the percentile's bucket.
	one, _ := HistogramPercentile(r.Histogram, 99)
	if m.Events != 2*r.Events || m.LatencyMS.Pct != one || one.String() != "9.222" {
		t.Errorf("events %d p99 %s; want %d and the client's own %s (9.222)", m.Events, m.LatencyMS.Pct, 2*r.Events, one)
	}
}

// One client's report is its own sum, latency included (the live display
// of a run from one load box shows it); several lose the latency.
func TestSumIntervalsOfOne(t *testing.T) {
	one := Interval{T: 3, Threads: 4, TPS: Number{text: "10.00"}, LatMS: Number{text: "1.50"}}
	if got := SumIntervals([]Interval{one}); got != one {
		t.Errorf("sum of one %+v, want %+v", got, one)
	}
	if got := SumIntervals([]Interval{one, one}); got.LatMS.IsSet() || got.TPS.String() != "20.00" || got.Threads != 8 {
		t.Errorf("sum of two %+v", got)
	}
}
