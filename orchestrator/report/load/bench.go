package load

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// The metrics, as the driver table names them (bench.Drivers' Metrics,
// with their directions: bench.LowerIsBetter).
const (
	MetricWrites  = bench.MetricWrites
	MetricTPS     = bench.MetricTPS
	MetricQueries = bench.MetricQueries
	MetricRows    = bench.MetricRows
	MetricSeconds = bench.MetricSeconds // lower is better
)

// benchReaders read one benchmark object by its "tool" (mysqlslap's array
// of blocks is told by its shape): one per output format of the driver
// table, which TestBenchReadersCoverDrivers holds to it.
var benchReaders = map[bench.Tool]func(raw json.RawMessage) (*Bench, error){
	bench.ToolSysbench: func(raw json.RawMessage) (*Bench, error) {
		// One client's result (bench.Sysbench) or several clients' merged
		// (bench.Merged, which names its clients): read as the merged one,
		// whose intervals say whether every client reported for them.
		var d bench.Merged
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("sysbench result: %w", err)
		}
		return sysbenchBench(&d, d.Clients != nil), nil
	},
	bench.ToolMysqlslap: func(raw json.RawMessage) (*Bench, error) {
		var blocks bench.Mysqlslap
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return nil, fmt.Errorf("mysqlslap result: %w", err)
		}
		return slapBench(blocks), nil
	},
	bench.ToolDBInsert: func(raw json.RawMessage) (*Bench, error) {
		var d bench.DBInsert
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("db-insert result: %w", err)
		}
		return dbInsertBench(&d), nil
	},
}

// DecodeBench reads one benchmark document: a sysbench or db-insert
// object, or a mysqlslap array of blocks. tool names the tool when the
// document does not (results.json says it beside the benchmark).
func DecodeBench(raw json.RawMessage, tool string) (*Bench, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '[' {
		return benchReaders[bench.ToolMysqlslap](raw)
	}
	var head struct {
		Tool string `json:"tool"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("benchmark result: %w", err)
	}
	if head.Tool == "" {
		head.Tool = tool
	}
	if head.Tool == "" {
		return nil, fmt.Errorf("benchmark result has no \"tool\" key: not orch parse output")
	}
	if read, ok := benchReaders[bench.Tool(head.Tool)]; ok {
		return read(raw)
	}
	return nil, fmt.Errorf("benchmark result: unknown tool %q", head.Tool)
}

// sysbenchBench reads a sysbench result; merged: several clients' (their
// intervals say whether every client reported for them).
func sysbenchBench(d *bench.Merged, merged bool) *Bench {
	b := &Bench{Tool: string(bench.ToolSysbench), Version: d.Version, Complete: d.Complete, Rates: map[string]Rate{},
		Errors: float64(d.Errors), Pctl: d.Percentile, LatAvg: NaN(), LatPct: NaN(), LatMax: NaN(), DurationS: printed(d.DurationS),
		IntervalsDropped: d.IntervalsDropped, openLoop: d.RateLimited}
	if !d.Complete {
		b.Errors = NaN() // an incomplete report's zero counts are not measurements
	}
	b.LatAvg, b.LatMax = printed(d.LatencyMS.Avg), printed(d.LatencyMS.Max)
	if d.Percentile > 0 && d.LatencyMS.Percentile == d.Percentile {
		b.LatPct = printed(d.LatencyMS.Pct)
	}
	final := func(v float64) float64 {
		if !d.Complete {
			return NaN()
		}
		return v
	}
	var tps, qps, writes []Point
	for _, iv := range d.Intervals {
		if merged && !iv.Complete {
			// A sum over fewer clients than ran understates the rate: the
			// clients' last slot, when one of them did not print its last
			// interval, read 1,848 tps beside 3,600 from both on the lab.
			// Left out, the series ends (or has a gap) there, and the
			// window with it.
			continue
		}
		t := float64(iv.T)
		tps = append(tps, Point{t, printed(iv.TPS)})
		q := printed(iv.QPS)
		if !iv.QPS.IsSet() { // legacy lines print r/w/o only
			q = sum(iv.Reads, iv.Writes, iv.Others)
		}
		qps = append(qps, Point{t, q})
		writes = append(writes, Point{t, printed(iv.Writes)})
		b.LatSeries = append(b.LatSeries, Point{t, printed(iv.LatMS)})
		b.threads = append(b.threads, Point{t, float64(iv.Threads)})
	}
	if d.Transactions > 0 || (!d.Complete && anyPositive(tps)) {
		b.Rates[MetricTPS] = Rate{Final: final(printed(d.TPS)), Series: tps}
	}
	b.Rates[MetricQueries] = Rate{Final: final(printed(d.QPS)), Series: qps}
	writeOnly := d.Reads == 0 && (d.Writes > 0 || (!d.Complete && anyPositive(writes)))
	if writeOnly {
		// With no "other" statements every query is a write, so the
		// printed qps is the printed writes/s.
		w := printed(d.QPS)
		if d.Others > 0 {
			w = float64(d.Writes) / printed(d.DurationS)
		}
		b.Rates[MetricWrites] = Rate{Final: final(w), Series: writes}
	}
	return b
}

func slapBench(blocks bench.Mysqlslap) *Bench {
	b := &Bench{Tool: string(bench.ToolMysqlslap), Complete: len(blocks) > 0, Rates: map[string]Rate{},
		LatAvg: NaN(), LatPct: NaN(), LatMax: NaN(), Errors: NaN(), DurationS: NaN()}
	// Every block is one concurrency level run `iterations` times; its
	// average time covers clients x queries_per_client queries.
	queries, secs := 0.0, 0.0
	for _, blk := range blocks {
		if !blk.AvgS.IsSet() || blk.AvgS.Float64() <= 0 {
			return b
		}
		queries += float64(blk.Clients * blk.QueriesPerClient)
		secs += blk.AvgS.Float64()
	}
	if secs > 0 {
		b.Rates[MetricSeconds] = Rate{Final: secs}
		b.DurationS = secs
		// Auto-generated SQL can report 0 queries per client; a rate of 0
		// would compare as n/a, so the rate exists only when it means one.
		if queries > 0 {
			b.Rates[MetricQueries] = Rate{Final: queries / secs}
		}
	}
	return b
}

func dbInsertBench(d *bench.DBInsert) *Bench {
	b := &Bench{Tool: string(bench.ToolDBInsert), Complete: d.Complete, Rates: map[string]Rate{},
		LatAvg: NaN(), LatPct: NaN(), LatMax: NaN(), Errors: NaN(), DurationS: NaN()}
	var series []Point
	for _, bt := range d.Batches {
		// A batch inserts batch_size rows in each half it ran.
		rows, secs := 0.0, 0.0
		for _, half := range []bench.Number{bt.SerialS, bt.RandomS} {
			if half.IsSet() {
				rows += float64(d.BatchSize)
				secs += half.Float64()
			}
		}
		if secs > 0 && bt.CumulativeS.IsSet() {
			series = append(series, Point{bt.CumulativeS.Float64(), rows / secs})
		}
	}
	f := printed(d.Rate)
	if !d.Complete {
		f = NaN()
	}
	b.Rates[MetricRows] = Rate{Final: f, Series: series, PlotOnly: true}
	return b
}

// ChooseMetric picks the metric every run of a table supports: writes/s
// when all are write-only, else tps, else mysqlslap's time, else
// queries/s, else rows/s.
func ChooseMetric(runs []*Run) string {
	for _, m := range []string{MetricWrites, MetricTPS, MetricSeconds, MetricQueries, MetricRows} {
		ok, any := true, false
		for _, r := range runs {
			if r.Bench == nil {
				continue
			}
			any = true
			if !r.Bench.Has(m) {
				ok = false
				break
			}
		}
		if ok && any {
			return m
		}
	}
	return MetricQueries
}

// printed is a printed figure, NaN when it was not printed.
func printed(n bench.Number) float64 {
	if !n.IsSet() {
		return math.NaN()
	}
	return n.Float64()
}

// sum adds the printed values; NaN when none was printed.
func sum(vs ...bench.Number) float64 {
	s, n := 0.0, 0
	for _, v := range vs {
		if v.IsSet() {
			s += v.Float64()
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s
}

func anyPositive(ps []Point) bool {
	for _, p := range ps {
		if p.V > 0 {
			return true
		}
	}
	return false
}
