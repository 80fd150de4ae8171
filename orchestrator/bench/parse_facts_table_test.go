package bench

// inputFacts holds, for every testdata/*.txt, the figures a person reads off
// its text, typed from the text (never copied from a golden or a parser's
// output). Keys are the result's JSON keys (see result.go); values are as
// printed. Interval lines and histogram rows are read by the naive readers
// in parse_facts_test.go; here only their count and the first and last
// interval's tps, which also check those readers.
//
// The mapping of legacy (0.4/0.5) reports onto the 1.x keys is result.go's
// documented one: queries/qps = "read/write requests", errors = "ignored
// errors" (0.5) or "deadlocks" (0.4), latency_ms.sum = "total time taken by
// event execution" in ms (the printed seconds x 1000).
var inputFacts = map[string]facts{
	// sysbench 1.0.20, oltp_insert on a semi-sync MariaDB 10.11 cluster.
	"sysbench-1.0-oltp_insert-innodb-run.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 32
		duration_s 30.0459  events 77334
		transactions 77334  tps 2573.78  queries 77334  qps 2573.78
		reads 0  writes 77334  others 0  errors 0  reconnects 0
		latency_ms.min 1.89  latency_ms.avg 12.41  latency_ms.max 93.29
		latency_ms.p95 24.38  latency_ms.sum 959574.00  percentile 95
		intervals# 30  intervals.0.tps 2498.43  intervals.29.tps 2522.52`},
	"sysbench-1.0-oltp_insert-rocksdb-run.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 32
		duration_s 30.0473  events 64783
		transactions 64783  tps 2155.97  queries 64783  qps 2155.97
		reads 0  writes 64783  others 0  errors 0  reconnects 0
		latency_ms.min 1.99  latency_ms.avg 14.81  latency_ms.max 73.35
		latency_ms.p95 29.72  latency_ms.sum 959626.61  percentile 95
		intervals# 30  intervals.0.tps 2082.03  intervals.29.tps 2269.57
		intervals.29.threads 31`},
	// prepare prints no report at all: the banner is all there is to read.
	"sysbench-1.0-oltp_insert-innodb-prepare.txt": {
		kv:  `tool sysbench  version 1.0.20  complete false`,
		err: []string{"sysbench", "no final report", "prepare"}},
	"sysbench-1.0-oltp_insert-rocksdb-prepare.txt": {
		kv:  `tool sysbench  version 1.0.20  complete false`,
		err: []string{"sysbench", "no final report", "prepare"}},
	"captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 4
		duration_s 3.0068  events 2409
		transactions 2409  tps 801.10  queries 48212  qps 16032.54
		reads 33754  writes 9638  others 4820  errors 2  reconnects 0
		latency_ms.min 1.38  latency_ms.avg 4.98  latency_ms.max 11.40
		latency_ms.p99 9.22  latency_ms.sum 12006.52  percentile 99
		intervals# 3  intervals.0.tps 829.24  intervals.2.tps 766.61
		histogram# 108  histogram.0.value_ms 1.392  histogram.0.count 1
		histogram.107.value_ms 11.446  histogram.107.count 1`},
	// --percentile=0: "percentile stats: disabled", no pNN key.
	"captured-sysbench-1.0.20-oltp_read_write-percentile0.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 2
		duration_s 2.0031  events 1115
		transactions 1115  tps 556.52  queries 22300  qps 11130.43
		reads 15610  writes 4460  others 2230  errors 0  reconnects 0
		latency_ms.min 1.35  latency_ms.avg 3.59  latency_ms.max 6.80
		latency_ms.sum 4001.87
		intervals# 2  intervals.0.tps 588.32  intervals.1.tps 523.59`},
	// sysbench.report_default prints "err/s 0.00" without the colon.
	"captured-sysbench-1.0.20-lua-report-default.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 2
		duration_s 2.0037  events 13206
		transactions 13206  tps 6589.78  queries 13206  qps 6589.78
		reads 13206  writes 0  others 0  errors 0  reconnects 0
		latency_ms.min 0.02  latency_ms.avg 0.30  latency_ms.max 735.95
		latency_ms.p95 0.13  latency_ms.sum 3988.35  percentile 95
		intervals# 2  intervals.0.tps 2003.02  intervals.1.tps 11190.08`},
	// --report-checkpoints=2: the last report (2s..3s) is the one kept;
	// --rate prints "queue length" lines, which are not intervals.
	"captured-sysbench-1.0.20-rate-checkpoint.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 4
		duration_s 3.0207  events 229
		transactions 229  tps 224.39  queries 4580  qps 4487.89
		reads 3206  writes 916  others 458  errors 0  reconnects 0
		latency_ms.min 1.52  latency_ms.avg 2.92  latency_ms.max 7.05
		latency_ms.p95 5.28  latency_ms.sum 668.59  percentile 95
		intervals# 3  intervals.0.tps 197.79  intervals.2.tps 229.13
		rate_limited true`},
	// The cpu test has no SQL statistics. Its one "eps" interval line and
	// its "events per second: 3424.08" have no place in the result.
	"captured-sysbench-1.0.20-cpu-percentile0.txt": {kv: `
		tool sysbench  version 1.0.20  complete true  threads 1
		duration_s 2.0013  events 6854
		latency_ms.min 0.26  latency_ms.avg 0.29  latency_ms.max 2.68
		latency_ms.sum 1999.21  intervals# 0`},
	// Killed after 2 interval lines: no summary; the lines say 95%.
	"captured-sysbench-1.0.20-interrupted.txt": {
		kv: `tool sysbench  version 1.0.20  complete false  threads 2  percentile 95
			intervals# 2  intervals.0.tps 483.87  intervals.1.tps 492.23`,
		err: []string{"sysbench", "no final report"}},
	// FATAL at connect: nothing but the banner and the FATAL lines.
	"captured-sysbench-1.0.20-connect-fatal.txt": {
		kv:  `tool sysbench  version 1.0.20  complete false  threads 2`,
		err: []string{"sysbench", "no final report", "unable to connect to MySQL server"}},
	// The final report alone, as the reference notes show a real capture
	// (oltp_read_write with 237 ignored errors and a latency over 1 s): no
	// banner, so the version is the format's "1.x"; no threads line.
	"reference-sysbench-1.0.20-report-errors.txt": {kv: `
		tool sysbench  version 1.x  complete true
		duration_s 3.0139  events 345
		transactions 345  tps 114.44  queries 10679  qps 3542.22
		reads 8148  writes 1604  others 927  errors 237  reconnects 0
		latency_ms.min 2.29  latency_ms.avg 34.84  latency_ms.max 1030.68
		latency_ms.p99 1013.60  latency_ms.sum 12019.09  percentile 99
		intervals# 0`},
	"sysbench-0.5-insert-run.txt": {kv: `
		tool sysbench  version 0.5  complete true  threads 64
		duration_s 5.0002  events 38384
		transactions 0  tps 0.00  queries 38384  qps 7676.49
		reads 0  writes 38384  others 0  errors 0  reconnects 0
		latency_ms.min 0.35  latency_ms.avg 8.33  latency_ms.max 412.08
		latency_ms.p95 16.90  latency_ms.sum 319771.9  percentile 95
		intervals# 5  intervals.0.tps 0.00  intervals.4.tps 0.00
		intervals.3.writes 6011.20`},
	// 0.4 prints deadlocks (3) and no reconnects.
	"handmade-sysbench-0.4-oltp.txt": {kv: `
		tool sysbench  version 0.4.12  complete true  threads 8
		duration_s 3.0016  events 1232
		transactions 1232  tps 410.45  queries 23408  qps 7798.57
		reads 17248  writes 6160  others 2464  errors 3
		latency_ms.min 7.40  latency_ms.avg 19.45  latency_ms.max 98.12
		latency_ms.p95 31.55  latency_ms.sum 23956.7  percentile 95
		intervals# 3  intervals.0.tps 412.95  intervals.2.tps 420.11`},

	"mariadb-slap-write-innodb.txt":                       {blocks: []string{"innodb 4.890 4.176 5.290 50 400"}},
	"captured-mariadb-slap-10.11-engines-concurrency.txt": {blocks: slapEnginesBlocks},
	"captured-mariadb-slap-10.11-debug-info-after.txt": {blocks: slapEnginesBlocks,
		rusage: "0.01 0.02 6532 1269 65"},
	"captured-mariadb-slap-10.11-debug-info-before.txt": {blocks: []string{"- 0.010 0.010 0.010 2 25"},
		rusage: "0.00 0.00 6472 166 8"},
	"captured-mariadb-slap-10.11-iterations.txt": {blocks: []string{
		"- 1.440 0.237 2.123 1 60",
		"- 0.155 0.031 0.232 3 20"}},
	// One line: the client could not connect, so there is no block.
	"captured-mariadb-slap-10.11-connect-error.txt": {blocks: []string{},
		err: []string{"mysqlslap", "no Benchmark block", "Can't connect to server"}},

	// The seed's text: unnumbered batch lines, counted from 0.
	"db-insert-run.txt": {kv: `
		tool db-insert  complete true  batch_size 1048576
		shutdown_s 3.877215  total_s 33.881605  insertions 4194304  rate 123792`,
		batches: []string{
			"2.811002 373025 11.402113 91963 14.213115 147551",
			"3.240871 323547 12.550404 83548 30.004390 139787"}},
	// Real PerconaFT db-insert: numbered batch lines 0 and 1.
	"db-insert-tokudb-real.txt": {kv: `
		tool db-insert  complete true  batch_size 1048576  checkpoint_period_s 60
		shutdown_s 0.958814  total_s 9.653902  insertions 4194304  rate 434467`,
		batches: []string{
			"0.478091 2193256 3.524070 297547 4.002217 523998",
			"0.438177 2393042 4.254575 246458 8.695045 482379"}},
	"db-insert-bdb-real.txt": {kv: `
		tool db-insert  complete true  batch_size 1048576
		shutdown_s 0.308241  total_s 5.220525  insertions 4194304  rate 803426`,
		batches: []string{
			"0.388130 2701610 1.527284 686563 1.915450 1094861",
			"0.353729 2964348 2.643022 396734 4.912255 853845"}},
	// --norandom: no random half on the batch lines.
	"handmade-db-insert-norandom-transactions.txt": {kv: `
		tool db-insert  complete true  batch_size 1048576
		shutdown_s 0.877215  total_s 6.929088  insertions 2097152  rate 302660`,
		batches: []string{
			"2.811002 373025 - - 2.811002 373025",
			"3.240871 323547 - - 6.051873 346528"}},
}

// slapEnginesBlocks: --engine=innodb,rocksdb --concurrency=2,4 with 200
// queries in all (100 or 50 per client), one iteration each.
var slapEnginesBlocks = []string{
	"innodb 0.058 0.058 0.058 2 100",
	"innodb 0.041 0.041 0.041 4 50",
	"rocksdb 0.108 0.108 0.108 2 100",
	"rocksdb 0.042 0.042 0.042 4 50",
}
