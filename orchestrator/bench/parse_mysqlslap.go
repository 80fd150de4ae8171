package bench

import (
	"io"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseMysqlslap parses the output of one mysqlslap or mariadb-slap run
// (stdout, optionally with stderr for --debug-info): one block per engine ×
// concurrency combination. name is the file name errors report.
//
// The --debug-info resource usage is printed once per process, before the
// blocks when stdout is a pipe, after them on a terminal; it is attached to
// every block. Input with nothing from mysqlslap, a malformed line or two
// --debug-info blocks (two runs in one file) yields a nil result and a
// *ParseError. Output that stops inside a block, or has no block at all
// (e.g. the client failed to connect), yields the complete blocks and a
// *ParseError matching ErrIncomplete.
func ParseMysqlslap(name string, r io.Reader) (Mysqlslap, error) {
	p := &slapParser{errs: lineError{file: displayName(name), tool: ToolMysqlslap}}
	cut, err := feed(r, p.errs, p.line)
	if err != nil {
		return nil, err
	}
	return p.finish(cut)
}

// slapField is a bit per line of a Benchmark block or --debug-info block.
type slapField uint8

const (
	sAvg slapField = 1 << iota
	sMin
	sMax
	sClients
	sQueries
)

const (
	rUser slapField = 1 << iota
	rRSS
	rCS
	rusageFields = rUser | rRSS | rCS
)

// Labels of a Benchmark block (print_conclusions), in print order.
const (
	labelAvg     = "Average number of seconds to run all queries"
	labelMin     = "Minimum number of seconds to run all queries"
	labelMax     = "Maximum number of seconds to run all queries"
	labelClients = "Number of clients running queries"
	labelQueries = "Average number of queries per client"
)

var slapBlockLines = []struct {
	label string
	f     slapField
}{{labelAvg, sAvg}, {labelMin, sMin}, {labelMax, sMax}, {labelClients, sClients}, {labelQueries, sQueries}}

// my_end's getrusage report (mysys). MySQL 8 indents the second line.
var (
	userTimeRE  = regexp.MustCompile(`^User time (\S+), System time (\S+)$`)
	maxRSSRE    = regexp.MustCompile(`^Maximum resident set size (\S+), Integral resident set size \S+$`)
	ctxSwitchRE = regexp.MustCompile(`^Voluntary context switches (\S+), Involuntary context switches (\S+)$`)
)

type slapParser struct {
	errs       lineError
	blocks     Mysqlslap
	cur        *MysqlslapBlock // block being read
	curLine    int
	curSeen    slapField
	rusage     *Rusage
	rusageSeen slapField
	recognised bool
	message    string // last "mysqlslap: ..." line (an error, usually)
}

func (p *slapParser) line(n int, raw string) error {
	t := strings.TrimSpace(raw)
	if p.cur != nil {
		// Block lines are tab-indented; a blank or unindented line ends it.
		if t != "" && (raw[0] == '\t' || raw[0] == ' ') {
			return p.blockLine(n, t)
		}
		if err := p.endBlock(); err != nil {
			return err
		}
	}
	switch {
	case t == "":
	case t == "Benchmark":
		p.recognised = true
		p.cur = &MysqlslapBlock{Tool: ToolMysqlslap}
		p.curLine, p.curSeen = n, 0
	case strings.HasPrefix(t, "mysqlslap: "), strings.HasPrefix(t, "mariadb-slap: "):
		p.recognised = true
		p.message = t
	default:
		return p.rusageLine(n, t)
	}
	return nil
}

func (p *slapParser) blockLine(n int, t string) error {
	if engine, ok := strings.CutPrefix(t, "Running for engine "); ok {
		engine = strings.TrimSpace(engine)
		if !isEngineName(engine) {
			return p.errs.malformed(n, "Benchmark line", t)
		}
		p.cur.Engine = engine
		return nil
	}
	label, fields, _ := splitLabel(t)
	b := p.cur
	var secs *Number
	var f slapField
	var ok bool
	switch label {
	case labelAvg:
		secs, f = &b.AvgS, sAvg
	case labelMin:
		secs, f = &b.MinS, sMin
	case labelMax:
		secs, f = &b.MaxS, sMax
	case labelClients:
		b.Clients, ok = oneCount(fields)
		f = sClients
	case labelQueries:
		b.QueriesPerClient, ok = oneCount(fields)
		f = sQueries
	default:
		return nil // lines other forks add (e.g. "Standard Deviation") are skipped
	}
	if secs != nil {
		*secs, ok = slapSeconds(fields)
	}
	if !ok {
		return p.errs.malformed(n, "Benchmark line", t)
	}
	p.curSeen |= f
	return nil
}

// isEngineName accepts what --engine can name: one word of printable UTF-8.
func isEngineName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// slapSeconds parses "4.890 seconds" (printed as %ld.%03ld).
func slapSeconds(fields []string) (Number, bool) {
	// A duration is never negative: a minus sign is a corrupt figure.
	if len(fields) != 2 || fields[1] != "seconds" || strings.HasPrefix(fields[0], "-") {
		return Number{}, false
	}
	return parseWithUnit(fields[0], "")
}

// endBlock closes the block being read; a block that lacks a line is
// malformed (output truncated inside a block ends at EOF: finish).
func (p *slapParser) endBlock() error {
	if missing := p.missingBlockLine(); missing != "" {
		return p.errs.at(p.curLine, "Benchmark block has no %q line", missing)
	}
	p.blocks = append(p.blocks, *p.cur)
	p.cur = nil
	return nil
}

func (p *slapParser) missingBlockLine() string {
	for _, l := range slapBlockLines {
		if p.curSeen&l.f == 0 {
			return l.label
		}
	}
	return ""
}

func (p *slapParser) rusageLine(n int, t string) error {
	var f slapField
	switch {
	case strings.HasPrefix(t, "User time "):
		m := userTimeRE.FindStringSubmatch(t)
		if p.rusage != nil {
			return p.errs.at(n, "second --debug-info block: one mysqlslap run per file")
		}
		p.rusage = &Rusage{}
		if m == nil || !setNumbers(m[1:3], &p.rusage.UserS, &p.rusage.SysS) {
			return p.errs.malformed(n, "--debug-info line", t)
		}
		f = rUser
	case strings.HasPrefix(t, "Maximum resident set size "):
		m := maxRSSRE.FindStringSubmatch(t)
		if m == nil || p.rusage == nil {
			return p.errs.malformed(n, "--debug-info line", t)
		}
		var ok bool
		if p.rusage.MaxRSSKB, ok = parseCount(m[1]); !ok {
			return p.errs.malformed(n, "--debug-info line", t)
		}
		f = rRSS
	case strings.HasPrefix(t, "Voluntary context switches "):
		m := ctxSwitchRE.FindStringSubmatch(t)
		if m == nil || p.rusage == nil {
			return p.errs.malformed(n, "--debug-info line", t)
		}
		var ok1, ok2 bool
		p.rusage.VoluntaryCS, ok1 = parseCount(m[1])
		p.rusage.InvoluntaryCS, ok2 = parseCount(m[2])
		if !ok1 || !ok2 {
			return p.errs.malformed(n, "--debug-info line", t)
		}
		f = rCS
	default:
		return nil // other rusage lines, warnings, shell noise
	}
	p.recognised = true
	p.rusageSeen |= f
	return nil
}

func (p *slapParser) finish(cut bool) (Mysqlslap, error) {
	if !p.recognised {
		return nil, &ParseError{File: p.errs.file, Tool: ToolMysqlslap, Msg: "no mysqlslap output found"}
	}
	var reason string
	if p.cur != nil {
		if missing := p.missingBlockLine(); missing != "" {
			reason = "last Benchmark block has no \"" + missing + "\" line (truncated output?)"
		} else {
			p.blocks = append(p.blocks, *p.cur)
		}
	}
	if p.rusage != nil && p.rusageSeen != rusageFields && reason == "" {
		reason = "--debug-info block is incomplete (truncated output?)"
	}
	if len(p.blocks) == 0 && reason == "" {
		reason = "no Benchmark block found"
	}
	if p.rusage != nil && p.rusageSeen == rusageFields {
		for i := range p.blocks {
			ru := *p.rusage // a copy each: blocks share no memory
			p.blocks[i].Rusage = &ru
		}
	}
	if p.blocks == nil {
		p.blocks = Mysqlslap{}
	}
	if reason != "" {
		if p.message != "" {
			reason += "; mysqlslap said: " + clip(p.message)
		}
		return p.blocks, p.errs.incomplete("%s%s", reason, cutHint(cut))
	}
	return p.blocks, nil
}
