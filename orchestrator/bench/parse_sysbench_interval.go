package bench

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// sysbench output formats. The interval line and the report layout differ
// between 1.x and the legacy 0.4/0.5 branches; 0.4 and 0.5 differ in details.
type format int

const (
	fmtUnknown format = iota
	fmtV1
	fmtLegacy // 0.4 or 0.5, not yet told apart
	fmt05
	fmt04
)

func (f format) legacy() bool { return f >= fmtLegacy }

// Interval lines start with a timestamp: "[ %.0fs ] " in 1.x, "[%4.0fs] " in
// legacy versions. Everything after it is matched by one of the bodies below.
var timestampRE = regexp.MustCompile(`^\[ *(\d+)s( ?)\] +(.*)$`)

// N is one printed value; ParseNumber validates it afterwards so a bad value
// is reported as such instead of as a line that matches nothing.
const num = `([^\s/()]+)`

var (
	// C path: "thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f)
	// lat (ms,%u%%): %4.2f err/s: %4.2f reconn/s: %4.2f". sysbench.report_default
	// (Lua) prints "err/s %4.2f" without the colon.
	v1IntervalRE = regexp.MustCompile(`^thds: +(\d+) +tps: +` + num + ` +qps: +` + num +
		` +\(r/w/o: +` + num + `/` + num + `/` + num + `\) +lat +\(ms,(\d+)%\): +` + num +
		` +err/s:? +` + num + ` +reconn/s: +` + num + `$`)
	// 0.5: "threads: %d, tps: %4.2f, reads: %4.2f, writes: %4.2f, response
	// time: %4.2fms (%u%%), errors: %4.2f, reconnects: %5.2f"
	v05IntervalRE = regexp.MustCompile(`^threads: +(\d+), +tps: +` + num + `, +reads: +` + num +
		`, +writes: +` + num + `, +response time: +` + num + `ms +\((\d+)%\), +errors: +` + num +
		`, +reconnects: +` + num + `$`)
	// 0.4: "threads: %d, tps: %4.2f, reads/s: %4.2f, writes/s: %4.2f response
	// time: %4.2fms (%u%%)" (no comma before "response time").
	v04IntervalRE = regexp.MustCompile(`^threads: +(\d+), +tps: +` + num + `, +reads/s: +` + num +
		`, +writes/s: +` + num + ` +response time: +` + num + `ms +\((\d+)%\)$`)
	// Lines that share the timestamp but carry nothing the result records:
	// non-SQL tests' "thds: %u eps: %4.2f lat (ms,%u%%): %4.2f" and the
	// --rate / --tx-rate queue line.
	v1EpsRE = regexp.MustCompile(`^thds: +\d+ +eps: +` + num + ` +lat +\(ms,\d+%\): +` + num + `$`)
	queueRE = regexp.MustCompile(`^queue length: +\d+,? +concurrency: +\d+$`)
)

// lineKind says what a timestamped line is.
type lineKind int

const (
	notTimestamped   lineKind = iota
	intervalLine              // an Interval was parsed
	checkpointLine            // "[ 10s ] Checkpoint report:" precedes a full report
	otherTimestamped          // eps line: nothing to record
	queueLine                 // --rate's queue line: the client ran open-loop
)

// timestamped is a parsed timestamped line.
type timestamped struct {
	kind       lineKind
	format     format
	interval   Interval
	percentile int // the rank the interval's latency is given at
}

// ParseSysbenchInterval parses one sysbench intermediate report line of any
// version, e.g. "[ 1s ] thds: 4 tps: 238.26 qps: ... reconn/s: 0.00", for
// live progress display. It reports false for any other line, including a
// malformed interval line.
func ParseSysbenchInterval(line string) (Interval, bool) {
	ts, err := parseTimestamped(strings.TrimRight(line, " \t\r\n"))
	if err != nil || ts.kind != intervalLine {
		return Interval{}, false
	}
	return ts.interval, true
}

// parseTimestamped classifies and parses a line that may start with a
// sysbench timestamp. A line that starts like an interval report ("thds:",
// "threads:") but does not parse is an error; other timestamped bodies
// (other tests' progress lines) are reported as notTimestamped.
func parseTimestamped(s string) (timestamped, error) {
	m := timestampRE.FindStringSubmatch(s)
	if m == nil {
		return timestamped{}, nil
	}
	t, ok := parseCount(m[1])
	if !ok {
		return timestamped{}, errMalformed
	}
	body := m[3]
	f := fmtLegacy
	if m[2] == " " {
		f = fmtV1
	}
	switch {
	case body == "Checkpoint report:":
		return timestamped{kind: checkpointLine, format: f}, nil
	case queueRE.MatchString(body):
		return timestamped{kind: queueLine, format: f}, nil
	case f == fmtV1 && strings.HasPrefix(body, "thds:"):
		if v1EpsRE.MatchString(body) {
			return timestamped{kind: otherTimestamped, format: f}, nil
		}
		return parseV1Interval(t, body)
	case f == fmtLegacy && strings.HasPrefix(body, "threads:"):
		return parseLegacyInterval(t, body)
	case strings.HasPrefix(body, "thds:"), strings.HasPrefix(body, "threads:"):
		return timestamped{}, errMalformed // timestamp style of one version, body of the other
	}
	return timestamped{}, nil // another test's progress line: not ours to judge
}

// errMalformed is internal: the caller turns it into a ParseError naming the
// file and line.
var errMalformed = errors.New("malformed")

func parseV1Interval(t int64, body string) (timestamped, error) {
	m := v1IntervalRE.FindStringSubmatch(body)
	if m == nil {
		return timestamped{}, errMalformed
	}
	iv := Interval{T: t}
	if !setNumbers(m[2:7], &iv.TPS, &iv.QPS, &iv.Reads, &iv.Writes, &iv.Others) ||
		!setNumbers(m[8:11], &iv.LatMS, &iv.Errors, &iv.Reconnects) {
		return timestamped{}, errMalformed
	}
	threads, ok1 := parseCount(m[1])
	pct, ok2 := parsePercentile(m[7])
	if !ok1 || !ok2 {
		return timestamped{}, errMalformed
	}
	iv.Threads = threads
	return timestamped{kind: intervalLine, format: fmtV1, interval: iv, percentile: pct}, nil
}

func parseLegacyInterval(t int64, body string) (timestamped, error) {
	iv := Interval{T: t}
	var m []string
	var f format
	var ok bool
	if m = v05IntervalRE.FindStringSubmatch(body); m != nil {
		f = fmt05
		ok = setNumbers(m[2:6], &iv.TPS, &iv.Reads, &iv.Writes, &iv.LatMS) &&
			setNumbers(m[7:9], &iv.Errors, &iv.Reconnects)
	} else if m = v04IntervalRE.FindStringSubmatch(body); m != nil {
		f = fmt04
		ok = setNumbers(m[2:6], &iv.TPS, &iv.Reads, &iv.Writes, &iv.LatMS)
	}
	if !ok {
		return timestamped{}, errMalformed
	}
	threads, ok1 := parseCount(m[1])
	pct, ok2 := parsePercentile(m[6])
	if !ok1 || !ok2 {
		return timestamped{}, errMalformed
	}
	iv.Threads = threads
	return timestamped{kind: intervalLine, format: f, interval: iv, percentile: pct}, nil
}

// setNumbers parses src[i] into *dst[i]; false if any is not a decimal.
func setNumbers(src []string, dst ...*Number) bool {
	for i, s := range src {
		n, err := ParseNumber(s)
		if err != nil {
			return false
		}
		*dst[i] = n
	}
	return true
}

// parsePercentile accepts sysbench's rank, 0 (disabled in 1.x) to 100.
func parsePercentile(s string) (int, bool) {
	p, err := strconv.Atoi(s)
	return p, err == nil && p >= 0 && p <= 100
}

// parseHistogramRow parses "%12.3f |%-40.*s %lu": a bucket's latency, a bar
// of '*' and the bucket's count.
func parseHistogramRow(s string) (HistogramRow, bool) {
	value, rest, ok := strings.Cut(s, "|")
	if !ok {
		return HistogramRow{}, false
	}
	v, err := ParseNumber(strings.TrimSpace(value))
	f := strings.Fields(rest)
	if err != nil || len(f) == 0 || len(f) > 2 || (len(f) == 2 && strings.Trim(f[0], "*") != "") {
		return HistogramRow{}, false
	}
	count, ok := parseCount(f[len(f)-1])
	return HistogramRow{ValueMS: v, Count: count}, ok
}
