package bench

import (
	"regexp"
	"strings"
)

// This file reads the lines of sysbench's final report sections.

// Percentile labels: 1.x "%3dth percentile:", legacy "approx. %3d percentile:".
var (
	v1PctRE     = regexp.MustCompile(`^(\d+)th percentile$`)
	legacyPctRE = regexp.MustCompile(`^approx\. (\d+) percentile$`)
)

// field is a bit per report line; a complete report has all required ones.
type field uint32

const (
	fRead field = 1 << iota
	fWrite
	fOther
	fTotal
	fTransactions
	fQueries
	fOtherOps
	fErrors
	fReconnects
	fDuration
	fEvents
	fMin
	fAvg
	fMax
	fPct
	fSum
)

// fieldNames name the lines in the order a report prints them, for
// "missing" messages.
var fieldNames = []struct {
	f    field
	name string
}{
	{fRead, "read"}, {fWrite, "write"}, {fOther, "other"}, {fTotal, "total"},
	{fTransactions, "transactions"}, {fQueries, "queries"}, {fOtherOps, "other operations"},
	{fErrors, "errors"}, {fReconnects, "reconnects"}, {fDuration, "total time"},
	{fEvents, "total number of events"}, {fMin, "min"}, {fAvg, "avg"}, {fMax, "max"},
	{fPct, "percentile"}, {fSum, "latency sum"},
}

func (p *sysbenchParser) statsLine(n int, t, label string, fields []string) error {
	var count *int64
	var rate *Number
	var f field
	evidence := fmtUnknown
	r := &p.res
	switch label {
	case "read":
		count, f = &r.Reads, fRead
	case "write":
		count, f = &r.Writes, fWrite
	case "other":
		count, f = &r.Others, fOther
	case "total":
		count, f = new(int64), fTotal // reads+writes+others: not kept
	case "transactions":
		count, rate, f = &r.Transactions, &r.TPS, fTransactions
	case "queries":
		count, rate, f, evidence = &r.Queries, &r.QPS, fQueries, fmtV1
	case "read/write requests":
		count, rate, f, evidence = &r.Queries, &r.QPS, fQueries, fmtLegacy
	case "other operations":
		count, rate, f, evidence = new(int64), new(Number), fOtherOps, fmtLegacy
	case "deadlocks":
		count, rate, f, evidence = &r.Errors, new(Number), fErrors, fmt04
	case "ignored errors":
		count, rate, f = &r.Errors, new(Number), fErrors
	case "reconnects":
		count, rate, f = &r.Reconnects, new(Number), fReconnects
	default:
		return nil
	}
	if p.format.legacy() && (f == fErrors || f == fReconnects) && evidence == fmtUnknown {
		evidence = fmt05 // 0.4 prints neither "ignored errors" nor "reconnects"
	}
	var ok bool
	if rate == nil {
		*count, ok = oneCount(fields)
	} else {
		*count, *rate, ok = countRate(fields)
	}
	if !ok {
		return p.errs.malformed(n, "statistics line", t)
	}
	p.report.seen |= f
	return p.evidence(n, evidence)
}

func (p *sysbenchParser) generalLine(n int, t, label string, fields []string) error {
	var ok bool
	switch label {
	case "total time":
		p.res.DurationS, ok = oneWithUnit(fields, "s")
		p.report.seen |= fDuration
	case "total number of events":
		p.res.Events, ok = oneCount(fields)
		p.report.seen |= fEvents
	case "total time taken by event execution":
		// Seconds; 0.5 prints an "s" suffix, 0.4 none.
		f := fmt04
		var sum Number
		if sum, ok = oneWithUnit(fields, "s"); ok {
			f = fmt05
		} else {
			sum, ok = oneWithUnit(fields, "")
		}
		if !ok {
			break
		}
		p.res.LatencyMS.Sum = shiftPoint(sum, 3)
		p.report.seen |= fSum
		return p.evidence(n, f)
	default:
		return nil
	}
	if !ok {
		return p.errs.malformed(n, "general statistics line", t)
	}
	return nil
}

func (p *sysbenchParser) latencyLine(n int, t, label string, fields []string) error {
	unit := ""
	if p.latMS {
		unit = "ms"
	}
	lat := &p.res.LatencyMS
	var dst *Number
	var f field
	switch label {
	case "min":
		dst, f = &lat.Min, fMin
	case "avg":
		dst, f = &lat.Avg, fAvg
	case "max":
		dst, f = &lat.Max, fMax
	case "sum":
		dst, f = &lat.Sum, fSum
	case "percentile stats":
		if len(fields) != 1 || fields[0] != "disabled" {
			return p.errs.malformed(n, "latency line", t)
		}
		p.report.pct = 0
		p.report.seen |= fPct
		return nil
	default:
		m := v1PctRE.FindStringSubmatch(label)
		if p.latMS {
			m = legacyPctRE.FindStringSubmatch(label)
		}
		if m == nil {
			return nil
		}
		rank, ok := parsePercentile(m[1])
		if !ok || rank == 0 {
			return p.errs.malformed(n, "latency line", t)
		}
		p.report.pct = rank
		dst, f = &lat.Pct, fPct
	}
	v, ok := oneWithUnit(fields, unit)
	if !ok {
		return p.errs.malformed(n, "latency line", t)
	}
	*dst = v
	p.report.seen |= f
	return nil
}

// required lists the lines a complete report of the detected format has.
func (p *sysbenchParser) required() field {
	req := fDuration | fEvents | fMin | fAvg | fMax | fSum
	// Legacy versions print no percentile when no event completed.
	if !p.format.legacy() || p.res.Events > 0 {
		req |= fPct
	}
	if p.report.stats {
		req |= fRead | fWrite | fOther | fTotal | fTransactions | fQueries | fErrors
		if p.format.legacy() {
			req |= fOtherOps
		}
		if p.format != fmt04 {
			req |= fReconnects
		}
	}
	return req
}

// oneCount parses a value of exactly one integer field.
func oneCount(fields []string) (int64, bool) {
	if len(fields) != 1 {
		return 0, false
	}
	n, ok := parseCount(fields[0])
	return n, ok && n >= 0 // sysbench prints counts unsigned (%lu, %llu)
}

// oneWithUnit parses a value of exactly one field: a decimal with a unit.
func oneWithUnit(fields []string, unit string) (Number, bool) {
	if len(fields) != 1 {
		return Number{}, false
	}
	return parseWithUnit(fields[0], unit)
}

// countRate parses "77334  (2573.78 per sec.)".
func countRate(fields []string) (int64, Number, bool) {
	if len(fields) != 4 || fields[2] != "per" || fields[3] != "sec.)" {
		return 0, Number{}, false
	}
	count, ok := parseCount(fields[0])
	rate, isRate := strings.CutPrefix(fields[1], "(")
	n, err := ParseNumber(rate)
	// Counts are unsigned and rates their quotient by the time: a minus
	// sign is a corrupt figure, not a value.
	return count, n, ok && count >= 0 && isRate && err == nil && !strings.HasPrefix(rate, "-")
}
