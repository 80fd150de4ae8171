// Package biglog writes long benchmark client output for the tests and
// benchmarks that hold orch's memory bounds (bench.MaxIntervals): what a
// day-long sysbench run at a 1 s report interval prints.
package biglog

import (
	"bufio"
	"fmt"
	"io"
)

// Sysbench writes the output of a sysbench 1.0.20 oltp_insert run with n
// interval lines, in the format sysbench prints them (the banner, the
// interval lines, the final report).
func Sysbench(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprint(bw, `sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)

Running the test with following options:
Number of threads: 32
Report intermediate results every 1 second(s)
Initializing random number generator from current time


Initializing worker threads...

Threads started!

`)
	for i := 1; i <= n; i++ {
		r := 2400 + i%200
		fmt.Fprintf(bw, "[ %ds ] thds: 32 tps: %d.%02d qps: %d.%02d (r/w/o: 0.00/%d.%02d/0.00) lat (ms,95%%): 24.38 err/s: 0.00 reconn/s: 0.00\n",
			i, r, i%100, r, i%100, r, i%100)
	}
	fmt.Fprintf(bw, `SQL statistics:
    queries performed:
        read:                            0
        write:                           %[1]d
        other:                           0
        total:                           %[1]d
    transactions:                        %[1]d  (2499.50 per sec.)
    queries:                             %[1]d  (2499.50 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          %[2]d.0012s
    total number of events:              %[1]d

Latency (ms):
         min:                                    1.89
         avg:                                   12.41
         max:                                  240.08
         95th percentile:                       24.38
         sum:                               %[3]d.17

Threads fairness:
    events (avg/stddev):           %[4]d.0000/12.30
    execution time (avg/stddev):   %[2]d.0000/0.01

`, 2500*n, n, 12*2500*n, 2500*n/32)
	return bw.Flush()
}
