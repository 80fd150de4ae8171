package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func parseSysbenchFile(t *testing.T, name string) *Sysbench {
	t.Helper()
	res, err := ParseSysbench(name, bytes.NewReader(readFile(t, "testdata/"+name)))
	if err != nil {
		t.Fatalf("ParseSysbench(%s): %v", name, err)
	}
	return res
}

// TestParseSysbenchKeyFields checks the figures a report is read for against
// the values printed in each file.
func TestParseSysbenchKeyFields(t *testing.T) {
	type iv struct {
		t, threads int64
		tps, lat   string
	}
	tests := []struct {
		file                         string
		version                      string
		threads, events, errors      int64
		duration, tps, qps, pct, sum string
		percentile, intervals        int
		first, last                  iv
	}{
		{"sysbench-1.0-oltp_insert-innodb-run.txt", "1.0.20", 32, 77334, 0,
			"30.0459", "2573.78", "2573.78", "24.38", "959574.00", 95, 30,
			iv{1, 32, "2498.43", "24.38"}, iv{30, 32, "2522.52", "21.89"}},
		{"sysbench-1.0-oltp_insert-rocksdb-run.txt", "1.0.20", 32, 64783, 0,
			"30.0473", "2155.97", "2155.97", "29.72", "959626.61", 95, 30,
			iv{1, 32, "2082.03", "34.33"}, iv{30, 31, "2269.57", "28.67"}},
		{"sysbench-0.5-insert-run.txt", "0.5", 64, 38384, 0,
			"5.0002", "0.00", "7676.49", "16.90", "319771.9", 95, 5,
			iv{1, 64, "0.00", "14.02"}, iv{5, 64, "0.00", "14.66"}},
		{"handmade-sysbench-0.4-oltp.txt", "0.4.12", 8, 1232, 3,
			"3.0016", "410.45", "7798.57", "31.55", "23956.7", 95, 3,
			iv{1, 8, "412.95", "31.36"}, iv{3, 8, "420.11", "29.87"}},
		{"captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt", "1.0.20", 4, 2409, 2,
			"3.0068", "801.10", "16032.54", "9.22", "12006.52", 99, 3,
			iv{1, 4, "829.24", "8.28"}, iv{3, 4, "766.61", "9.39"}},
		{"captured-sysbench-1.0.20-lua-report-default.txt", "1.0.20", 2, 13206, 0,
			"2.0037", "6589.78", "6589.78", "0.13", "3988.35", 95, 2,
			iv{1, 2, "2003.02", "0.17"}, iv{2, 2, "11190.08", "0.13"}},
		// The last report after --report-checkpoints covers 2s..3s only.
		{"captured-sysbench-1.0.20-rate-checkpoint.txt", "1.0.20", 4, 229, 0,
			"3.0207", "224.39", "4487.89", "5.28", "668.59", 95, 3,
			iv{1, 4, "197.79", "8.74"}, iv{3, 4, "229.13", "5.28"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r := parseSysbenchFile(t, tt.file)
			check := func(what string, got, want any) {
				t.Helper()
				if got != want {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			check("complete", r.Complete, true)
			check("version", r.Version, tt.version)
			check("threads", r.Threads, tt.threads)
			check("events", r.Events, tt.events)
			check("errors", r.Errors, tt.errors)
			check("duration_s", r.DurationS.String(), tt.duration)
			check("tps", r.TPS.String(), tt.tps)
			check("qps", r.QPS.String(), tt.qps)
			check("percentile", r.Percentile, tt.percentile)
			check("latency percentile", r.LatencyMS.Percentile, tt.percentile)
			check("latency pct", r.LatencyMS.Pct.String(), tt.pct)
			check("latency sum", r.LatencyMS.Sum.String(), tt.sum)
			if len(r.Intervals) != tt.intervals {
				t.Fatalf("%d intervals, want %d", len(r.Intervals), tt.intervals)
			}
			for _, c := range []struct {
				got  Interval
				want iv
			}{{r.Intervals[0], tt.first}, {r.Intervals[len(r.Intervals)-1], tt.last}} {
				got := iv{c.got.T, c.got.Threads, c.got.TPS.String(), c.got.LatMS.String()}
				check("interval", got, c.want)
			}
		})
	}
}

func TestParseSysbenchLegacyMapping(t *testing.T) {
	r := parseSysbenchFile(t, "handmade-sysbench-0.4-oltp.txt")
	if r.Queries != 23408 || r.Reads != 17248 || r.Writes != 6160 || r.Others != 2464 {
		t.Errorf("queries %d reads %d writes %d others %d: want read/write requests 23408 and 17248/6160/2464",
			r.Queries, r.Reads, r.Writes, r.Others)
	}
	if r.LatencyMS.Min.String() != "7.40" || r.LatencyMS.Max.String() != "98.12" {
		t.Errorf("latency min/max %s/%s, want 7.40/98.12 (the ms suffix stripped)", r.LatencyMS.Min, r.LatencyMS.Max)
	}
	first := r.Intervals[0]
	if first.Reads.String() != "5781.26" || first.Writes.String() != "2064.74" {
		t.Errorf("interval reads/writes %s/%s, want the printed per-second rates", first.Reads, first.Writes)
	}
	if first.QPS.IsSet() || first.Others.IsSet() || first.Errors.IsSet() || first.Reconnects.IsSet() {
		t.Errorf("0.4 intervals print no qps, others, errors, reconnects; got %+v", first)
	}
	r5 := parseSysbenchFile(t, "sysbench-0.5-insert-run.txt")
	if iv := r5.Intervals[3]; iv.Errors.String() != "0.00" || iv.Reconnects.String() != "0.00" || iv.Writes.String() != "6011.20" {
		t.Errorf("0.5 interval 4 = %+v", iv)
	}
}

func TestParseSysbenchHistogram(t *testing.T) {
	r := parseSysbenchFile(t, "captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt")
	h := r.Histogram
	if len(h) != 108 {
		t.Fatalf("%d histogram rows, want 108", len(h))
	}
	if h[0].ValueMS.String() != "1.392" || h[0].Count != 1 || h[107].ValueMS.String() != "11.446" || h[107].Count != 1 {
		t.Errorf("first/last rows %+v %+v", h[0], h[107])
	}
	var sum int64
	for _, row := range h {
		sum += row.Count
	}
	if sum != r.Events {
		t.Errorf("histogram counts add up to %d, want every event (%d)", sum, r.Events)
	}
	// With no events the histogram prints its title and nothing else.
	empty := "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nLatency histogram (values are in milliseconds)\n \n" + cpuReport
	res, err := ParseSysbench("empty-hist.txt", strings.NewReader(empty))
	if err != nil || len(res.Histogram) != 0 || res.Events != 13158 {
		t.Errorf("empty histogram: %v %+v", err, res)
	}
}

func TestParseSysbenchPercentileDisabled(t *testing.T) {
	r := parseSysbenchFile(t, "captured-sysbench-1.0.20-oltp_read_write-percentile0.txt")
	if r.Percentile != 0 || r.LatencyMS.Pct.IsSet() || r.LatencyMS.Sum.String() != "4001.87" {
		t.Errorf("percentile %d pct %q sum %q", r.Percentile, r.LatencyMS.Pct, r.LatencyMS.Sum)
	}
	b, _ := json.Marshal(r.LatencyMS)
	if string(b) != `{"min":1.35,"avg":3.59,"max":6.80,"sum":4001.87}` {
		t.Errorf("latency JSON %s", b)
	}
	if r.Intervals[0].LatMS.String() != "0.00" {
		t.Errorf("interval latency %q, want the printed 0.00", r.Intervals[0].LatMS)
	}
}

// cpuReport is a 1.0 report of a test without SQL statistics.
const cpuReport = `
General statistics:
    total time:                          2.0015s
    total number of events:              13158

Latency (ms):
         min:                                    0.27
         avg:                                    0.30
         max:                                   10.43
         100th percentile:                      10.43
         sum:                                 3990.85

`

// legacy05Report is a 0.5 final report without a banner.
const legacy05Report = `OLTP test statistics:
    queries performed:
        read:                            0
        write:                           10
        other:                           0
        total:                           10
    transactions:                        0      (0.00 per sec.)
    read/write requests:                 10     (5.00 per sec.)
    other operations:                    0      (0.00 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0000s
    total number of events:              10
    total time taken by event execution: 0.0100s
    response time:
         min:                                  1.00ms
         avg:                                  1.00ms
         max:                                  1.00ms
         approx.  99 percentile:               1.00ms

`

func TestParseSysbenchVersionWithoutBanner(t *testing.T) {
	noBanner := func(file string) string {
		s := string(readFile(t, "testdata/"+file))
		_, rest, _ := strings.Cut(s, "\n")
		return rest
	}
	tests := []struct{ name, input, version string }{
		{"1.x", noBanner("sysbench-1.0-oltp_insert-innodb-run.txt"), "1.x"},
		{"0.5", legacy05Report, "0.5"},
		{"0.4", noBanner("handmade-sysbench-0.4-oltp.txt"), "0.4"},
		{"1.x no SQL statistics", cpuReport, "1.x"},
	}
	for _, tt := range tests {
		r, err := ParseSysbench(tt.name, strings.NewReader(tt.input))
		if err != nil || r.Version != tt.version || !r.Complete {
			t.Errorf("%s: version %q err %v, want %q", tt.name, r.Version, err, tt.version)
		}
	}
	if r, _ := ParseSysbench("p100", strings.NewReader(cpuReport)); r.Percentile != 100 || r.LatencyMS.Pct.String() != "10.43" {
		t.Errorf("100th percentile: %d %q", r.Percentile, r.LatencyMS.Pct)
	}
	// Legacy versions print no percentile line when no event completed.
	zero := strings.NewReplacer("total number of events:              10", "total number of events:              0",
		"         approx.  99 percentile:               1.00ms\n", "").Replace(legacy05Report)
	if r, err := ParseSysbench("zero", strings.NewReader(zero)); err != nil || !r.Complete || r.Percentile != 0 {
		t.Errorf("0.5 report without events: %v %+v", err, r)
	}
}

// TestRateLimited: --rate's queue lines mark the run open-loop; a run
// without them is closed-loop.
func TestRateLimited(t *testing.T) {
	for file, want := range map[string]bool{
		"captured-sysbench-1.0.20-rate-checkpoint.txt":               true,
		"sysbench-1.0-oltp_insert-innodb-run.txt":                    false,
		"captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt": false,
	} {
		if got := parseSysbenchFile(t, file).RateLimited; got != want {
			t.Errorf("%s: rate_limited %v, want %v", file, got, want)
		}
	}
}

// TestLittlesLaw: in a closed-loop run every thread always has one event
// in flight, so threads / events per second is the mean latency (Little's
// law). The report takes a run's mean latency in its window that way from
// the interval lines (which print no mean); on the real outputs here the
// whole run's threads over its intervals' rate agrees with sysbench's own
// mean latency within 2%.
func TestLittlesLaw(t *testing.T) {
	for _, file := range []string{
		"sysbench-1.0-oltp_insert-innodb-run.txt",
		"sysbench-1.0-oltp_insert-rocksdb-run.txt",
		"captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt",
	} {
		r := parseSysbenchFile(t, file)
		threads, tps := 0.0, 0.0
		for _, iv := range r.Intervals {
			threads += float64(iv.Threads)
			tps += iv.TPS.Float64()
		}
		got, want := 1000*threads/tps, r.LatencyMS.Avg.Float64()
		if math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s: threads/tps %.3f ms, sysbench's mean %.3f ms", file, got, want)
		}
	}
}
