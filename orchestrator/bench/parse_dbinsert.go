package bench

import (
	"io"
	"regexp"
	"strings"
)

// ParseDBInsert parses the verbose output of TokuDB's db-insert example
// (db-benchmark-test): a header, one line per batch, then the shutdown and
// total lines. name is the file name errors report.
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
	switch f[0] {
	case "serial", "random", "cumulative":
		return p.batchLine(n, t, f)
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

// batchLine parses "serial %9.6fs %8.0f/s    random %9.6fs %8.0f/s
// cumulative %9.6fs %8.0f/s"; the serial or random part is missing under
// --noserial or --norandom.
func (p *dbInsertParser) batchLine(n int, t string, f []string) error {
	if p.total {
		return p.errs.at(n, "batch line after the total: one run per file")
	}
	var b DBInsertBatch
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
		if len(order) == 0 || len(f) < 3 {
			return p.errs.malformed(n, "batch line", t)
		}
		dst := parts[f[0]]
		secs, ok1 := parseWithUnit(f[1], "s")
		rate, ok2 := parseWithUnit(f[2], "/s")
		if !ok1 || !ok2 {
			return p.errs.malformed(n, "batch line", t)
		}
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
	if !p.total {
		return &p.res, p.errs.incomplete("no Total line (interrupted or truncated output?)%s", cutHint(cut))
	}
	p.res.Complete = true
	return &p.res, nil
}
