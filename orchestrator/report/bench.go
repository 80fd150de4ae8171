package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Throughput metrics, in the words engineers use.
const (
	metricWrites  = "writes/s"
	metricTPS     = "tps"
	metricQueries = "queries/s"
	metricRows    = "rows/s"
	// metricSeconds is mysqlslap's own figure: seconds to run all queries
	// (the sum of its blocks' averages); lower is better.
	metricSeconds = "s to run all queries"
)

// The JSON shapes of `orch parse` (orchestrator/bench), decoded here
// field by field so that results of older orch versions still read.
type sysbenchDoc struct {
	Tool         string              `json:"tool"`
	Version      string              `json:"version"`
	Complete     bool                `json:"complete"`
	DurationS    *float64            `json:"duration_s"`
	Transactions int64               `json:"transactions"`
	TPS          *float64            `json:"tps"`
	QPS          *float64            `json:"qps"`
	Reads        int64               `json:"reads"`
	Writes       int64               `json:"writes"`
	Others       int64               `json:"others"`
	Errors       *float64            `json:"errors"`
	LatencyMS    map[string]*float64 `json:"latency_ms"`
	Percentile   int                 `json:"percentile"`
	// IntervalsDropped: lines after bench.MaxIntervals, not kept.
	IntervalsDropped int64 `json:"intervals_dropped"`
	RateLimited      bool  `json:"rate_limited"`
	Intervals        []struct {
		T       float64  `json:"t"`
		Threads *float64 `json:"threads"`
		TPS     *float64 `json:"tps"`
		QPS     *float64 `json:"qps"`
		Reads   *float64 `json:"reads"`
		Writes  *float64 `json:"writes"`
		Others  *float64 `json:"others"`
		LatMS   *float64 `json:"lat_ms"`
		// Complete: false on a merged slot that not every load box's
		// client reported for (absent from one client's output).
		Complete *bool `json:"complete"`
	} `json:"intervals"`
}

type slapBlock struct {
	Tool             string   `json:"tool"`
	AvgS             *float64 `json:"avg_s"`
	Clients          int64    `json:"clients"`
	QueriesPerClient int64    `json:"queries_per_client"`
}

type dbInsertDoc struct {
	Tool      string   `json:"tool"`
	Complete  bool     `json:"complete"`
	BatchSize int64    `json:"batch_size"`
	Rate      *float64 `json:"rate"`
	Batches   []struct {
		SerialS     *float64 `json:"serial_s"`
		RandomS     *float64 `json:"random_s"`
		CumulativeS *float64 `json:"cumulative_s"`
	} `json:"batches"`
}

// decodeBench reads one benchmark document: a sysbench or db-insert
// object, or a mysqlslap array of blocks. tool names the tool when the
// document does not (results.json says it beside the benchmark).
func decodeBench(raw json.RawMessage, tool string) (*Bench, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] == '[' {
		var blocks []slapBlock
		if err := json.Unmarshal(raw, &blocks); err != nil {
			return nil, fmt.Errorf("mysqlslap result: %w", err)
		}
		return slapBench(blocks), nil
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
	switch head.Tool {
	case "sysbench":
		var d sysbenchDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("sysbench result: %w", err)
		}
		return sysbenchBench(&d), nil
	case "db-insert":
		var d dbInsertDoc
		if err := json.Unmarshal(raw, &d); err != nil {
			return nil, fmt.Errorf("db-insert result: %w", err)
		}
		return dbInsertBench(&d), nil
	case "":
		return nil, fmt.Errorf("benchmark result has no \"tool\" key: not orch parse output")
	}
	return nil, fmt.Errorf("benchmark result: unknown tool %q", head.Tool)
}

func sysbenchBench(d *sysbenchDoc) *Bench {
	b := &Bench{Tool: "sysbench", Version: d.Version, Complete: d.Complete, rates: map[string]rate{},
		Errors: fl(d.Errors), Pctl: d.Percentile, LatAvg: nan(), LatPct: nan(), LatMax: nan(), DurationS: fl(d.DurationS),
		IntervalsDropped: d.IntervalsDropped, openLoop: d.RateLimited}
	if !d.Complete {
		b.Errors = nan() // an incomplete report's zero counts are not measurements
	}
	if d.LatencyMS != nil {
		b.LatAvg, b.LatMax = fl(d.LatencyMS["avg"]), fl(d.LatencyMS["max"])
		if d.Percentile > 0 {
			b.LatPct = fl(d.LatencyMS["p"+strconv.Itoa(d.Percentile)])
		}
	}
	final := func(v float64) float64 {
		if !d.Complete {
			return nan()
		}
		return v
	}
	var tps, qps, writes []Point
	for _, iv := range d.Intervals {
		if iv.Complete != nil && !*iv.Complete {
			// A sum over fewer clients than ran understates the rate: the
			// clients' last slot, when one of them did not print its last
			// interval, read 1,848 tps beside 3,600 from both on the lab.
			// Left out, the series ends (or has a gap) there, and the
			// window with it.
			continue
		}
		tps = append(tps, Point{iv.T, fl(iv.TPS)})
		q := fl(iv.QPS)
		if iv.QPS == nil { // legacy lines print r/w/o only
			q = sum(iv.Reads, iv.Writes, iv.Others)
		}
		qps = append(qps, Point{iv.T, q})
		writes = append(writes, Point{iv.T, fl(iv.Writes)})
		b.LatSeries = append(b.LatSeries, Point{iv.T, fl(iv.LatMS)})
		b.threads = append(b.threads, Point{iv.T, fl(iv.Threads)})
	}
	if d.Transactions > 0 || (!d.Complete && anyPositive(tps)) {
		b.rates[metricTPS] = rate{Final: final(fl(d.TPS)), Series: tps}
	}
	b.rates[metricQueries] = rate{Final: final(fl(d.QPS)), Series: qps}
	writeOnly := d.Reads == 0 && (d.Writes > 0 || (!d.Complete && anyPositive(writes)))
	if writeOnly {
		// With no "other" statements every query is a write, so the
		// printed qps is the printed writes/s.
		w := fl(d.QPS)
		if d.Others > 0 {
			w = float64(d.Writes) / fl(d.DurationS)
		}
		b.rates[metricWrites] = rate{Final: final(w), Series: writes}
	}
	return b
}

func slapBench(blocks []slapBlock) *Bench {
	b := &Bench{Tool: "mysqlslap", Complete: len(blocks) > 0, rates: map[string]rate{},
		LatAvg: nan(), LatPct: nan(), LatMax: nan(), Errors: nan(), DurationS: nan()}
	// Every block is one concurrency level run `iterations` times; its
	// average time covers clients x queries_per_client queries.
	queries, secs := 0.0, 0.0
	for _, blk := range blocks {
		if blk.AvgS == nil || *blk.AvgS <= 0 {
			return b
		}
		queries += float64(blk.Clients * blk.QueriesPerClient)
		secs += *blk.AvgS
	}
	if secs > 0 {
		b.rates[metricSeconds] = rate{Final: secs}
		b.DurationS = secs
		// Auto-generated SQL can report 0 queries per client; a rate of 0
		// would compare as n/a, so the rate exists only when it means one.
		if queries > 0 {
			b.rates[metricQueries] = rate{Final: queries / secs}
		}
	}
	return b
}

func dbInsertBench(d *dbInsertDoc) *Bench {
	b := &Bench{Tool: "db-insert", Complete: d.Complete, rates: map[string]rate{},
		LatAvg: nan(), LatPct: nan(), LatMax: nan(), Errors: nan(), DurationS: nan()}
	var series []Point
	for _, bt := range d.Batches {
		// A batch inserts batch_size rows in each half it ran.
		rows, secs := 0.0, 0.0
		for _, half := range []*float64{bt.SerialS, bt.RandomS} {
			if half != nil {
				rows += float64(d.BatchSize)
				secs += *half
			}
		}
		if secs > 0 && bt.CumulativeS != nil {
			series = append(series, Point{*bt.CumulativeS, rows / secs})
		}
	}
	f := fl(d.Rate)
	if !d.Complete {
		f = nan()
	}
	b.rates[metricRows] = rate{Final: f, Series: series, plotOnly: true}
	return b
}

// chooseMetric picks the metric every run of a table supports: writes/s
// when all are write-only, else tps, else mysqlslap's time, else
// queries/s, else rows/s.
func chooseMetric(runs []*Run) string {
	for _, m := range []string{metricWrites, metricTPS, metricSeconds, metricQueries, metricRows} {
		ok, any := true, false
		for _, r := range runs {
			if r.Bench == nil {
				continue
			}
			any = true
			if !r.Bench.has(m) {
				ok = false
				break
			}
		}
		if ok && any {
			return m
		}
	}
	return metricQueries
}

// sum adds the non-null values; NaN when all are null.
func sum(vs ...*float64) float64 {
	s, n := 0.0, 0
	for _, v := range vs {
		if v != nil {
			s += *v
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
