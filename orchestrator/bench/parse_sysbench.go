package bench

import (
	"io"
	"regexp"
	"strings"
)

// ParseSysbench parses the output of one `sysbench ... run` (stdout, or
// stdout and stderr together) of version 1.x or legacy 0.4/0.5, detected
// from the output itself. name is the file name errors report.
//
// Input with no recognisable sysbench output, or with a malformed line,
// yields a nil result and a *ParseError. Output without a complete final
// report (interrupted, failed, or 'prepare' output) yields the partial
// result, with Complete false, and a *ParseError matching ErrIncomplete.
func ParseSysbench(name string, r io.Reader) (*Sysbench, error) {
	p := &sysbenchParser{errs: lineError{file: displayName(name), tool: ToolSysbench}}
	p.res.Intervals = []Interval{}
	cut, err := feed(r, p.errs, p.line)
	if err != nil {
		return nil, err
	}
	return p.finish(cut)
}

// MaxIntervals is how many interval lines a result keeps: 100,000, a
// 27-hour run at sysbench's 1 s --report-interval. A parse holds its
// intervals in memory (about 0.5 KB each), so the bound keeps memory
// bounded whatever the file's size (100 MiB of output parses in well under
// 200 MB; BenchmarkParseHuge prints it); the lines after it are counted in
// IntervalsDropped and the summary still covers the whole run.
const MaxIntervals = 100_000

// section is the part of the final report the parser is in.
type section int

const (
	secNone section = iota
	secStats
	secGeneral
	secLatency
	secHistogram
)

// reportState tracks the report being read. Checkpoint reports
// (--report-checkpoints) come before the final one; each starts afresh.
type reportState struct {
	started, stats, general bool
	checkpoint              bool // this report is a checkpoint report
	seen                    field
	pct                     int
}

type sysbenchParser struct {
	errs   lineError
	res    Sysbench
	format format
	banner string // version from the banner line

	recognised        bool // any sysbench line seen
	headerThreads     bool // threads came from "Number of threads:"
	sawInterval       bool
	intervalPct       int
	prepare, cleanup  bool
	fatal             string // first FATAL message
	checkpointPending bool

	sec    section
	latMS  bool // legacy latency values carry an "ms" suffix
	report reportState
}

var (
	// "sysbench 1.0.20 (using ...)", "sysbench 0.5:  multi-threaded ...",
	// "sysbench 1.1.0-2ca9e3f (using bundled LuaJIT ...)".
	bannerRE  = regexp.MustCompile(`^sysbench (\d+\.\d+[0-9A-Za-z.+~_-]*)(?:$|[\s:(])`)
	prepareRE = regexp.MustCompile(`^(Creating table '|Inserting \d+ records into '|Creating a secondary index on ')`)
)

func (p *sysbenchParser) line(n int, raw string) error {
	s := strings.TrimRight(raw, " \t")
	t := strings.TrimSpace(s)
	if t == "" {
		p.sec = secNone
		return nil
	}
	if p.sec == secHistogram {
		if handled, err := p.histogramLine(n, t); handled {
			return err
		}
	}
	if strings.HasPrefix(s, "[") {
		return p.timestampedLine(n, s)
	}
	if m := bannerRE.FindStringSubmatch(s); m != nil {
		p.recognised = true
		p.banner = m[1]
		return p.evidence(n, bannerFormat(m[1]))
	}
	label, fields, ok := splitLabel(t)
	if !ok {
		p.plainLine(t)
		return nil
	}
	if len(fields) == 0 {
		if handled, err := p.header(n, label); handled {
			return err
		}
	}
	switch p.sec {
	case secStats:
		return p.statsLine(n, t, label, fields)
	case secGeneral:
		return p.generalLine(n, t, label, fields)
	case secLatency:
		return p.latencyLine(n, t, label, fields)
	}
	switch label {
	case "Number of threads":
		v, ok := oneCount(fields)
		if !ok {
			return p.errs.malformed(n, `"Number of threads" line`, t)
		}
		p.res.Threads, p.headerThreads, p.recognised = v, true, true
	case "FATAL":
		if p.fatal == "" {
			p.fatal = t
		}
		p.recognised = true
	}
	return nil
}

func bannerFormat(version string) format {
	switch {
	case strings.HasPrefix(version, "0.4"):
		return fmt04
	case strings.HasPrefix(version, "0.5"):
		return fmt05
	case strings.HasPrefix(version, "0."):
		return fmtLegacy
	}
	return fmtV1
}

// evidence records what a line says about the format; 1.x and legacy lines
// in one file mean two runs were concatenated, and no single result exists.
func (p *sysbenchParser) evidence(n int, f format) error {
	switch {
	case f == fmtUnknown:
	case p.format == fmtUnknown, p.format == fmtLegacy && f.legacy():
		p.format = f
	case p.format.legacy() != f.legacy():
		return p.errs.at(n, "sysbench 1.x and legacy (0.4/0.5) output mixed in one file")
	}
	return nil
}

func (p *sysbenchParser) timestampedLine(n int, s string) error {
	ts, err := parseTimestamped(s)
	if err != nil {
		return p.errs.malformed(n, "interval line", s)
	}
	if ts.kind == notTimestamped {
		return nil
	}
	p.recognised = true
	p.sec = secNone
	if err := p.evidence(n, ts.format); err != nil {
		return err
	}
	switch ts.kind {
	case intervalLine:
		if !p.sawInterval {
			p.sawInterval, p.intervalPct = true, ts.percentile
			if !p.headerThreads {
				p.res.Threads = ts.interval.Threads
			}
		}
		if len(p.res.Intervals) >= MaxIntervals {
			p.res.IntervalsDropped++
			return nil
		}
		p.res.Intervals = append(p.res.Intervals, ts.interval)
	case checkpointLine:
		p.checkpointPending = true
	case queueLine:
		p.res.RateLimited = true
	}
	return nil
}

// histogramLine handles a line inside the --histogram block; a line that is
// no histogram row ends the block and is handled as usual.
func (p *sysbenchParser) histogramLine(n int, t string) (bool, error) {
	if strings.HasPrefix(t, "value ") && strings.HasSuffix(t, " count") {
		return true, nil // column header
	}
	if !strings.Contains(t, "|") {
		p.sec = secNone
		return false, nil
	}
	row, ok := parseHistogramRow(t)
	if !ok {
		return true, p.errs.malformed(n, "histogram row", t)
	}
	p.res.Histogram = append(p.res.Histogram, row)
	return true, nil
}

// plainLine notes lines without a colon that say what the output is.
func (p *sysbenchParser) plainLine(t string) {
	switch {
	case t == "Threads started!":
		p.recognised = true
	case t == "Latency histogram (values are in milliseconds)":
		p.recognised = true
		p.sec = secHistogram
		p.res.Histogram = []HistogramRow{}
	case strings.HasPrefix(t, "Dropping table '"):
		p.recognised, p.cleanup = true, true
	case prepareRE.MatchString(t):
		p.recognised, p.prepare = true, true
	}
}

// header handles section headers ("General statistics:"): labels without
// a value. It reports false for a label it does not know.
func (p *sysbenchParser) header(n int, label string) (bool, error) {
	var f format
	var err error
	switch label {
	case "SQL statistics", "OLTP test statistics":
		f = fmtV1
		if label == "OLTP test statistics" {
			f = fmtLegacy
		}
		err = p.beginReport(n)
		p.report.stats = true
		p.sec = secStats
	case "General statistics":
		if !p.report.started || !p.report.stats || p.report.general {
			err = p.beginReport(n) // a test without SQL statistics
		}
		p.report.general = true
		p.sec = secGeneral
	case "Latency (ms)":
		f = fmtV1
		if !p.report.started {
			err = p.beginReport(n)
		}
		p.sec, p.latMS = secLatency, false
	case "response time":
		if p.sec != secGeneral {
			return true, nil
		}
		f = fmtLegacy
		p.sec, p.latMS = secLatency, true
	case "Threads fairness":
		p.sec = secNone
	case "queries performed":
	default:
		return false, nil
	}
	if err != nil {
		return true, err
	}
	p.recognised = true
	return true, p.evidence(n, f)
}

// beginReport starts a report: the final one, or a checkpoint report whose
// values a later report replaces. A report after a final report means two
// runs' output in one file, whose intervals cannot be told apart.
func (p *sysbenchParser) beginReport(n int) error {
	if p.report.started && !p.report.checkpoint {
		return p.errs.at(n, "second final report: one sysbench run per file")
	}
	p.res = Sysbench{Threads: p.res.Threads, Intervals: p.res.Intervals, IntervalsDropped: p.res.IntervalsDropped, Histogram: p.res.Histogram, RateLimited: p.res.RateLimited}
	p.report = reportState{started: true, checkpoint: p.checkpointPending}
	p.checkpointPending = false
	return nil
}

func (p *sysbenchParser) finish(cut bool) (*Sysbench, error) {
	if !p.recognised {
		return nil, &ParseError{File: p.errs.file, Tool: ToolSysbench, Msg: "no sysbench output found"}
	}
	res := &p.res
	res.Tool = ToolSysbench
	res.Version = p.version()
	pct := p.intervalPct
	if p.report.seen&fPct != 0 {
		pct = p.report.pct
	}
	res.Percentile, res.LatencyMS.Percentile = pct, pct
	if reason, truncated := p.incompleteReason(); reason != "" {
		switch {
		case p.fatal != "": // the run failed: say why rather than guess
			reason += "; sysbench said: " + clip(p.fatal)
		case truncated:
			reason += " (interrupted or truncated output?)"
		}
		return res, p.errs.incomplete("%s%s", reason, cutHint(cut))
	}
	res.Complete = true
	return res, nil
}

func (p *sysbenchParser) version() string {
	switch {
	case p.banner != "":
		return p.banner
	case p.format == fmtV1:
		return "1.x"
	case p.format == fmt04:
		return "0.4"
	case p.format.legacy():
		return "0.5"
	}
	return ""
}

// incompleteReason says why the output holds no complete final report, or
// returns "". truncated is set when the output may simply stop early.
func (p *sysbenchParser) incompleteReason() (reason string, truncated bool) {
	if !p.report.started {
		switch {
		case p.prepare:
			return "no final report found: this is 'sysbench prepare' output", false
		case p.cleanup:
			return "no final report found: this is 'sysbench cleanup' output", false
		}
		return "no final report found", true
	}
	missing := p.required() &^ p.report.seen
	for _, fn := range fieldNames {
		if missing&fn.f != 0 {
			return "final report is incomplete: no " + fn.name + " line", true
		}
	}
	if p.report.checkpoint {
		return "output ends with a checkpoint report; the final report is missing", true
	}
	return "", false
}
