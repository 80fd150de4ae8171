package bench

import (
	"io"
	"regexp"
	"strconv"
	"strings"
)

// ParseDBInsert parses the verbose output of PerconaFT's db-insert example
// (db-benchmark-test), built against the fractal-tree library or Berkeley
// DB: a header, "set checkpoint_period N" (fractal tree only), one line per
// batch, then the shutdown and total lines. The real program starts each
// batch line with the iteration number ("0 serial ..."); the seed's text
// does not, and both are read. name is the file name errors report.
//
// Input with nothing from db-insert or a malformed line yields a nil result
// and a *ParseError. Output that stops before the "Total time" line yields
// the batches read so far, with Complete false, and a *ParseError matching
// ErrIncomplete.
func ParseDBInsert(name string, r io.Reader) (*DBInsert, error) {
	p := &dbInsertParser{errs: lineError{file: displayName(name), tool: ToolDBInsert}}
	p.res = DBInsert{Tool: ToolDBInsert, Batches: []DBInsertBatch{}}
	cut, err := feed(r, p.errs, p.line)
	if err != nil {
		return nil, err
	}
	return p.finish(cut)
}

// The header names the halves that run: "serial and random insertions of
// %d per batch%s", without "serial"/"random" under --noserial/--norandom,
// and with " (with transactions)" under -x. Some builds capitalise it.
var dbInsertHeaderRE = regexp.MustCompile(
	`^(?i:serial and random |serial |random )?insertions of (\d+) per batch( \(with transactions\))?$`)

type dbInsertParser struct {
	errs                         lineError
	res                          DBInsert
	header, shutdown, total, any bool
	// cut is a batch line that ran into other output (a crash's message
	// written on the same line as the half-printed batch): an error if
	// db-insert output follows it, the end of an incomplete run if not.
	cut *ParseError
}

func (p *dbInsertParser) line(n int, raw string) error {
	t := strings.TrimSpace(raw)
	if m := dbInsertHeaderRE.FindStringSubmatch(t); m != nil {
		if p.header || p.total {
			return p.errs.at(n, "second db-insert header: one run per file")
		}
		size, ok := parseCount(m[1])
		if !ok {
			return p.errs.malformed(n, "header", t)
		}
		p.res.BatchSize, p.header, p.any = size, true, true
		return nil
	}
	f := strings.Fields(t)
	if len(f) == 0 {
		return nil
	}
	if rest, ok := strings.CutPrefix(t, DBInsertSizeLine); ok {
		// orch's line after the program: "DIR BYTES".
		f := strings.Fields(rest)
		v, ok := int64(0), len(f) == 2
		if ok {
			v, ok = parseCount(f[1])
		}
		if !ok {
			return p.errs.malformed(n, "bytes-on-disk line", t)
		}
		p.res.DBDir, p.res.DBBytes, p.any = f[0], &v, true
		return nil
	}
	if rest, ok := strings.CutPrefix(t, DBInsertCPULine); ok {
		f := strings.Fields(rest)
		var u, y float64
		ok := len(f) == 2
		if ok {
			u, ok = shellTimes(f[0])
		}
		if ok {
			y, ok = shellTimes(f[1])
		}
		if !ok {
			return p.errs.malformed(n, "cpu line", t)
		}
		p.res.CPUUserS, p.res.CPUSysS, p.any = &u, &y, true
		return nil
	}
	if strings.HasPrefix(t, "WARNING: ") {
		p.res.Warnings = append(p.res.Warnings, t)
		return nil
	}
	iter, numbered := int64(-1), false
	if len(f) > 1 && isBatchPart(f[1]) {
		// The real program's "%d " before the parts; other text before a
		// part's name is not db-insert's ("Initializing random ...").
		if iter, numbered = parseCount(f[0]); numbered {
			f = f[1:]
		}
	}
	if p.cut != nil && (isBatchPart(f[0]) || f[0] == "Shutdown" || f[0] == "Total" || f[0] == "set") {
		return p.cut
	}
	switch f[0] {
	case "serial", "random", "cumulative":
		return p.batchLine(n, t, f, iter, numbered)
	case "set":
		// "set checkpoint_period %u"
		if len(f) != 3 || f[1] != "checkpoint_period" {
			return nil
		}
		v, ok := parseCount(f[2])
		if !ok {
			return p.errs.malformed(n, "checkpoint_period line", t)
		}
		p.res.CheckpointPeriodS, p.any = &v, true
	case "Shutdown":
		// "Shutdown %9.6fs"
		v, ok := Number{}, len(f) == 2
		if ok {
			v, ok = parseWithUnit(f[1], "s")
		}
		if !ok {
			return p.errs.malformed(n, "Shutdown line", t)
		}
		p.res.ShutdownS, p.shutdown, p.any = v, true, true
	case "Total":
		return p.totalLine(n, t, f)
	}
	return nil
}

func isBatchPart(s string) bool {
	return s == "serial" || s == "random" || s == "cumulative"
}

// batchLine parses "[%d ]serial %9.6fs %8.0f/s    random %9.6fs %8.0f/s
// cumulative %9.6fs %8.0f/s"; the serial or random part is missing under
// --noserial or --norandom. A numbered line must carry the next number.
func (p *dbInsertParser) batchLine(n int, t string, f []string, iter int64, numbered bool) error {
	if p.total {
		return p.errs.at(n, "batch line after the total: one run per file")
	}
	next := int64(len(p.res.Batches))
	if numbered && iter != next {
		return p.errs.at(n, "batch %d where batch %d was expected: %q", iter, next, clip(t))
	}
	b := DBInsertBatch{Iteration: next}
	parts := map[string][2]*Number{
		"serial":     {&b.SerialS, &b.SerialRate},
		"random":     {&b.RandomS, &b.RandomRate},
		"cumulative": {&b.CumulativeS, &b.CumulativeRate},
	}
	order := []string{"serial", "random", "cumulative"}
	for len(f) > 0 {
		// Each part is "name time rate", in the fixed order above.
		for len(order) > 0 && order[0] != f[0] {
			order = order[1:]
		}
		var secs, rate Number
		ok := len(order) > 0 && len(f) >= 3
		if ok {
			var ok1, ok2 bool
			secs, ok1 = parseWithUnit(f[1], "s")
			rate, ok2 = parseWithUnit(f[2], "/s")
			ok = ok1 && ok2
		}
		if !ok {
			if (b.SerialS.IsSet() || b.RandomS.IsSet()) && !isBatchPart(f[0]) {
				// Whole parts, then something else: another stream wrote
				// into the line the program was printing.
				p.cut = p.errs.at(n, "batch %d cut short by other output: %q", next, clip(t))
				p.any = true
				return nil
			}
			return p.errs.malformed(n, "batch line", t)
		}
		dst := parts[f[0]]
		*dst[0], *dst[1] = secs, rate
		order, f = order[1:], f[3:]
	}
	if !b.CumulativeS.IsSet() {
		return p.errs.malformed(n, "batch line", t)
	}
	p.res.Batches = append(p.res.Batches, b)
	p.any = true
	return nil
}

// totalLine parses "Total time %9.6fs for %lld insertions = %8.0f/s".
func (p *dbInsertParser) totalLine(n int, t string, f []string) error {
	if len(f) != 8 || f[1] != "time" || f[3] != "for" || f[5] != "insertions" || f[6] != "=" {
		return p.errs.malformed(n, "Total line", t)
	}
	total, ok1 := parseWithUnit(f[2], "s")
	count, ok2 := parseCount(f[4])
	rate, ok3 := parseWithUnit(f[7], "/s")
	if !ok1 || !ok2 || !ok3 {
		return p.errs.malformed(n, "Total line", t)
	}
	switch {
	case p.total:
		return p.errs.at(n, "second Total line: one run per file")
	case !p.shutdown:
		return p.errs.at(n, "Total line without a Shutdown line before it")
	}
	p.res.TotalS, p.res.Insertions, p.res.Rate = total, count, rate
	p.total, p.any = true, true
	return nil
}

func (p *dbInsertParser) finish(cut bool) (*DBInsert, error) {
	if !p.any {
		return nil, &ParseError{File: p.errs.file, Tool: ToolDBInsert, Msg: "no db-insert output found"}
	}
	if p.cut != nil {
		return &p.res, p.errs.incomplete("no Total line: %s", p.cut.Msg)
	}
	if !p.total {
		return &p.res, p.errs.incomplete("no Total line (interrupted or truncated output?)%s", cutHint(cut))
	}
	p.res.Complete = true
	return &p.res, nil
}

// shellTimes reads the times builtin's "1m5.029000s" (minutes, seconds).
func shellTimes(s string) (float64, bool) {
	m, sec, ok := strings.Cut(strings.TrimSuffix(s, "s"), "m")
	if !ok || !strings.HasSuffix(s, "s") {
		return 0, false
	}
	mi, err1 := strconv.ParseFloat(m, 64)
	se, err2 := strconv.ParseFloat(sec, 64)
	if err1 != nil || err2 != nil || mi < 0 || se < 0 {
		return 0, false
	}
	return mi*60 + se, true
}
