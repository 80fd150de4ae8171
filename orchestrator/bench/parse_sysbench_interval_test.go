package bench

import (
	"strings"
	"testing"
)

func TestParseSysbenchInterval(t *testing.T) {
	n := func(s string) Number {
		v, err := ParseNumber(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	tests := []struct {
		name string
		line string
		want Interval
		ok   bool
	}{
		{"1.x C path",
			"[ 1s ] thds: 4 tps: 238.26 qps: 7361.19 (r/w/o: 5610.62/1111.56/639.02) lat (ms,99%): 52.89 err/s: 158.51 reconn/s: 0.00",
			Interval{T: 1, Threads: 4, TPS: n("238.26"), QPS: n("7361.19"), Reads: n("5610.62"), Writes: n("1111.56"),
				Others: n("639.02"), LatMS: n("52.89"), Errors: n("158.51"), Reconnects: n("0.00")}, true},
		{"1.x Lua report_default: err/s without colon",
			"[ 12s ] thds: 1 tps: 68.92 qps: 0.00 (r/w/o: 0.00/0.00/0.00) lat (ms,95%): 0.07 err/s 0.00 reconn/s: 0.00\r\n",
			Interval{T: 12, Threads: 1, TPS: n("68.92"), QPS: n("0.00"), Reads: n("0.00"), Writes: n("0.00"),
				Others: n("0.00"), LatMS: n("0.07"), Errors: n("0.00"), Reconnects: n("0.00")}, true},
		{"0.5",
			"[   4s] threads: 64, tps: 0.00, reads: 0.00, writes: 6011.20, response time: 29.41ms (95%), errors: 0.00, reconnects:  0.00",
			Interval{T: 4, Threads: 64, TPS: n("0.00"), Reads: n("0.00"), Writes: n("6011.20"), LatMS: n("29.41"),
				Errors: n("0.00"), Reconnects: n("0.00")}, true},
		{"0.4: reads/s, no comma before response time",
			"[1200s] threads: 8, tps: 412.95, reads/s: 5781.26, writes/s: 2064.74 response time: 31.36ms (95%)",
			Interval{T: 1200, Threads: 8, TPS: n("412.95"), Reads: n("5781.26"), Writes: n("2064.74"), LatMS: n("31.36")}, true},
		{"non-SQL test (eps)", "[ 1s ] thds: 2 eps: 6736.09 lat (ms,95%): 0.35", Interval{}, false},
		{"1.x queue line", "[ 1s ] queue length: 0, concurrency: 0", Interval{}, false},
		{"0.5 queue line", "[   1s] queue length: 3, concurrency: 2", Interval{}, false},
		{"checkpoint", "[ 2s ] Checkpoint report:", Interval{}, false},
		{"malformed", "[ 1s ] thds: 4 tps: 238.26 qps:", Interval{}, false},
		{"nan", "[ 1s ] thds: 4 tps: -nan qps: 0.00 (r/w/o: 0.00/0.00/0.00) lat (ms,95%): 0.00 err/s: 0.00 reconn/s: 0.00", Interval{}, false},
		{"report line", "    transactions:                        77334  (2573.78 per sec.)", Interval{}, false},
		{"empty", "", Interval{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseSysbenchInterval(tt.line)
			if ok != tt.ok || got != tt.want {
				t.Errorf("ParseSysbenchInterval = %+v, %v\nwant %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestParseSysbenchIntervalMatchesParser checks that the live-progress
// function and the file parser agree on every interval of every input.
func TestParseSysbenchIntervalMatchesParser(t *testing.T) {
	for _, file := range []string{innodbRun, "sysbench-0.5-insert-run.txt", "handmade-sysbench-0.4-oltp.txt",
		"captured-sysbench-1.0.20-lua-report-default.txt"} {
		r := parseSysbenchFile(t, file)
		var live []Interval
		for _, line := range strings.Split(string(readFile(t, "testdata/"+file)), "\n") {
			if iv, ok := ParseSysbenchInterval(line); ok {
				live = append(live, iv)
			}
		}
		if len(live) != len(r.Intervals) {
			t.Fatalf("%s: %d live intervals, parser found %d", file, len(live), len(r.Intervals))
		}
		for i := range live {
			if live[i] != r.Intervals[i] {
				t.Errorf("%s: interval %d: %+v vs %+v", file, i, live[i], r.Intervals[i])
			}
		}
	}
}
