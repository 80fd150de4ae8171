// Package bench parses the output of the benchmark clients orch drives
// (sysbench 1.x and legacy 0.4/0.5, mysqlslap / mariadb-slap, and TokuDB's
// db-insert example program) into results with a documented JSON shape.
//
// JSON conventions, shared by every result:
//   - Decimals are Numbers: the printed digits, verbatim (no rounding).
//   - A value the tool did not print is null (Numbers, rusage); integer
//     counts it did not print are 0 (only legacy 0.4 has no reconnect count).
//   - Durations carry their unit in the key: _s seconds, _ms milliseconds.
//
// Parsing errors are *ParseError values naming the file and, where there is
// one, the line. Output that ends before the tool's final report (an
// interrupted run, a file still being written) is not malformed: the parser
// returns what it read together with an error matching ErrIncomplete.
//
// Parsers read line by line and never hold more than one line in memory (the
// result aside). Lines longer than 64 KiB are cut rather than failing the
// parse. A last line without a newline is ignored: it may have been cut
// mid-number, and a cut number must not pass for a whole one.
package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Tool names a benchmark client whose output this package parses.
type Tool string

const (
	ToolSysbench  Tool = "sysbench"
	ToolMysqlslap Tool = "mysqlslap" // also mariadb-slap: same output
	ToolDBInsert  Tool = "db-insert"
)

// Result is one parsed output file: *Sysbench, Mysqlslap or *DBInsert.
type Result interface {
	// Kind names the tool that produced the output.
	Kind() Tool
}

// Sysbench is the result of one `sysbench ... run`.
//
// Counts and rates come from the final report. Legacy (0.4/0.5) reports are
// mapped onto the 1.x names: queries/qps are the "read/write requests" line
// (reads+writes, without "other"), errors is "ignored errors" (0.5) or
// "deadlocks" (0.4, whose only retried error), and latency_ms.sum is "total
// time taken by event execution" moved from seconds to milliseconds.
//
// Complete is false when the output has no (or only part of a) final
// report: an interrupted or still running benchmark. The parser then returns
// the result together with an error matching ErrIncomplete.
//
// With --report-checkpoints sysbench resets its counters at every checkpoint
// report; the result holds the last report, which then covers only the time
// since the last checkpoint.
type Sysbench struct {
	Tool Tool `json:"tool"`
	// Version is taken from the banner ("1.0.20", "0.5"); without a banner it
	// is "1.x", "0.5" or "0.4" by the format seen.
	Version      string  `json:"version"`
	Complete     bool    `json:"complete"`
	Threads      int64   `json:"threads"`
	DurationS    Number  `json:"duration_s"`
	Events       int64   `json:"events"`
	Transactions int64   `json:"transactions"`
	TPS          Number  `json:"tps"`
	Queries      int64   `json:"queries"`
	QPS          Number  `json:"qps"`
	Reads        int64   `json:"reads"`
	Writes       int64   `json:"writes"`
	Others       int64   `json:"others"`
	Errors       int64   `json:"errors"`
	Reconnects   int64   `json:"reconnects"`
	LatencyMS    Latency `json:"latency_ms"`
	// Percentile is the rank of LatencyMS.Pct (95 for "95th percentile"), 0
	// when sysbench ran with --percentile=0. Always equal to
	// LatencyMS.Percentile.
	Percentile int        `json:"percentile"`
	Intervals  []Interval `json:"intervals"`
	// IntervalsDropped counts the interval lines after the first
	// MaxIntervals, which are not kept (the summary still covers them).
	IntervalsDropped int64 `json:"intervals_dropped,omitempty"`
	// Histogram holds the --histogram=on rows (latency bucket, count).
	Histogram []HistogramRow `json:"histogram,omitempty"`
	// RateLimited: the client printed --rate's queue lines, so it ran
	// open-loop (events arrive at a set rate, threads may idle) and its
	// threads divided by its rate are not its mean latency.
	RateLimited bool `json:"rate_limited,omitempty"`
}

// Kind implements Result.
func (*Sysbench) Kind() Tool { return ToolSysbench }

// Latency is the final report's latency block, in milliseconds. It marshals
// as {"min","avg","max","pNN","sum"} where pNN is named after Percentile
// ("p95") and is left out when Percentile is 0.
type Latency struct {
	Min, Avg, Max Number
	Pct           Number // the Percentile-th percentile
	Sum           Number // total latency of all events
	Percentile    int
}

// MarshalJSON writes the keys in report order with the percentile key named
// after its rank.
func (l Latency) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	field := func(key string, n Number, last bool) {
		v, _ := n.MarshalJSON() // cannot fail
		fmt.Fprintf(&b, "%q:%s", key, v)
		if !last {
			b.WriteByte(',')
		}
	}
	b.WriteByte('{')
	field("min", l.Min, false)
	field("avg", l.Avg, false)
	field("max", l.Max, false)
	if l.Percentile > 0 {
		field("p"+strconv.Itoa(l.Percentile), l.Pct, false)
	}
	field("sum", l.Sum, true)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (l *Latency) UnmarshalJSON(b []byte) error {
	var m map[string]Number
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*l = Latency{Min: m["min"], Avg: m["avg"], Max: m["max"], Sum: m["sum"]}
	for k, v := range m {
		if p, ok := strings.CutPrefix(k, "p"); ok {
			rank, err := strconv.Atoi(p)
			if err != nil || rank <= 0 || l.Percentile != 0 {
				return fmt.Errorf("bench.Latency: unexpected key %q", k)
			}
			l.Percentile, l.Pct = rank, v
		}
	}
	return nil
}

// Interval is one intermediate report line (--report-interval). Rates are
// per second as printed. Legacy lines have no qps and no others; 0.4 lines
// have no errors or reconnects either (those are null).
type Interval struct {
	T          int64  `json:"t"`       // seconds since the start
	Threads    int64  `json:"threads"` // threads running at that moment
	TPS        Number `json:"tps"`
	QPS        Number `json:"qps"`
	Reads      Number `json:"reads"`
	Writes     Number `json:"writes"`
	Others     Number `json:"others"`
	LatMS      Number `json:"lat_ms"` // the percentile the report uses
	Errors     Number `json:"errors"`
	Reconnects Number `json:"reconnects"`
}

// HistogramRow is one bucket of sysbench's latency histogram.
type HistogramRow struct {
	ValueMS Number `json:"value_ms"`
	Count   int64  `json:"count"`
}

// Mysqlslap is the result of one mysqlslap / mariadb-slap run: one block per
// engine × concurrency combination, in output order. It marshals as a JSON
// array of blocks.
type Mysqlslap []MysqlslapBlock

// Kind implements Result.
func (Mysqlslap) Kind() Tool { return ToolMysqlslap }

// MysqlslapBlock is one "Benchmark" block.
type MysqlslapBlock struct {
	Tool             Tool   `json:"tool"`
	Engine           string `json:"engine"` // "" without --engine
	AvgS             Number `json:"avg_s"`
	MinS             Number `json:"min_s"`
	MaxS             Number `json:"max_s"`
	Clients          int64  `json:"clients"`
	QueriesPerClient int64  `json:"queries_per_client"`
	// Rusage is the --debug-info block. mysqlslap prints it once, for the
	// whole process, so every block of the file carries the same values.
	Rusage *Rusage `json:"rusage"`
}

// Rusage is the resource usage mysqlslap's --debug-info prints at exit.
type Rusage struct {
	UserS         Number `json:"user_s"`
	SysS          Number `json:"sys_s"`
	MaxRSSKB      int64  `json:"max_rss_kb"`
	VoluntaryCS   int64  `json:"voluntary_cs"`
	InvoluntaryCS int64  `json:"involuntary_cs"`
}

// DBInsert is the result of one TokuDB db-insert (db-benchmark-test) run.
// Complete is false, and the parser's error matches ErrIncomplete, when the
// output stops before the "Total time" line.
type DBInsert struct {
	Tool      Tool  `json:"tool"`
	Complete  bool  `json:"complete"`
	BatchSize int64 `json:"batch_size"`
	// CheckpointPeriodS is the "set checkpoint_period N" line, which only a
	// build against the fractal-tree library prints; null otherwise.
	CheckpointPeriodS *int64 `json:"checkpoint_period_s,omitempty"`
	// Warnings are the program's "WARNING: ..." lines (a cache size the
	// library refused), verbatim.
	Warnings   []string        `json:"warnings,omitempty"`
	Batches    []DBInsertBatch `json:"batches"`
	ShutdownS  Number          `json:"shutdown_s"`
	TotalS     Number          `json:"total_s"`
	Insertions int64           `json:"insertions"`
	Rate       Number          `json:"rate"` // insertions per second overall
	// DBDir and DBBytes are the database directory and its bytes on disk
	// at the end, from the line orch prints after the program (du -sB1);
	// absent from the program's own output.
	DBDir   string `json:"db_dir,omitempty"`
	DBBytes *int64 `json:"db_bytes,omitempty"`
	// CPUUserS and CPUSysS are the program's CPU seconds (the shell's times
	// builtin after it ended), from orch's line after it.
	CPUUserS *float64 `json:"cpu_user_s,omitempty"`
	CPUSysS  *float64 `json:"cpu_sys_s,omitempty"`
}

// Kind implements Result.
func (*DBInsert) Kind() Tool { return ToolDBInsert }

// DBInsertBatch is one batch line. With --noserial or --norandom the skipped
// half is null. Cumulative figures cover the run from its start.
type DBInsertBatch struct {
	// Iteration is the batch's number: printed first on each line by the
	// real program, counted from 0 in line order for the seed's unnumbered
	// text.
	Iteration      int64  `json:"iteration"`
	SerialS        Number `json:"serial_s"`
	SerialRate     Number `json:"serial_rate"`
	RandomS        Number `json:"random_s"`
	RandomRate     Number `json:"random_rate"`
	CumulativeS    Number `json:"cumulative_s"`
	CumulativeRate Number `json:"cumulative_rate"`
}
