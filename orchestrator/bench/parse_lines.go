package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine bounds the memory one line may take. Benchmark report lines are
// short; a longer line (a huge SQL statement echoed by mysqlslap -vvv,
// binary garbage) is cut to its first maxLine bytes instead of failing.
const maxLine = 64 << 10

// lineReader yields lines without their line ending (\n or \r\n).
// bufio.Scanner would fail with ErrTooLong on an over-long line; this keeps
// going, so a stray long line never hides the report after it.
type lineReader struct {
	br         *bufio.Reader
	buf        []byte // a line longer than br's buffer, assembled
	n          int    // number of the current line, 1-based
	text       string // current line
	terminated bool   // the current line ended with a newline
	done       bool
	err        error // read error other than io.EOF
}

func newLineReader(r io.Reader) *lineReader {
	// A small buffer keeps short inputs cheap; NewReaderSize reuses r when it
	// already is a *bufio.Reader (ParseAuto's sniffing reader).
	return &lineReader{br: bufio.NewReaderSize(r, 4096)}
}

func (l *lineReader) next() bool {
	if l.done {
		return false
	}
	chunk, err := l.br.ReadSlice('\n')
	line := chunk
	if errors.Is(err, bufio.ErrBufferFull) {
		// Assemble up to maxLine bytes of a long line; drop the rest.
		l.buf = append(l.buf[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = l.br.ReadSlice('\n')
			l.buf = append(l.buf, chunk[:min(len(chunk), max(0, maxLine-len(l.buf)))]...)
		}
		line = l.buf
	}
	l.terminated = err == nil
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		l.done = true
		if len(line) == 0 {
			return false
		}
	default:
		l.done, l.err = true, err
		return false
	}
	l.n++
	line = bytes.TrimSuffix(line, []byte("\n"))
	l.text = string(bytes.TrimSuffix(line, []byte("\r")))
	return true
}

// feed calls parse with every newline-terminated line of r and reports
// whether the input ended in a line without a newline. That line is not
// parsed: output cut mid-line (a killed client, a file still being written)
// could otherwise pass "959574.0" cut from "959574.00" as a whole value.
func feed(r io.Reader, errs lineError, parse func(n int, line string) error) (cut bool, err error) {
	lr := newLineReader(r)
	for lr.next() {
		if !lr.terminated {
			return true, nil
		}
		if err := parse(lr.n, lr.text); err != nil {
			return false, err
		}
	}
	if lr.err != nil {
		return false, &ParseError{File: errs.file, Line: lr.n + 1, Tool: errs.tool, Msg: "read", Err: lr.err}
	}
	return false, nil
}

// cutHint explains an incomplete result whose last line was dropped.
func cutHint(cut bool) string {
	if cut {
		return "; the last line has no newline and was ignored"
	}
	return ""
}

// lineError builds errors about one line of one input.
type lineError struct {
	file string
	tool Tool
}

func (e lineError) at(line int, format string, args ...any) *ParseError {
	return &ParseError{File: e.file, Line: line, Tool: e.tool, Msg: fmt.Sprintf(format, args...)}
}

func (e lineError) malformed(line int, what, text string) *ParseError {
	return e.at(line, "malformed %s: %q", what, clip(strings.TrimSpace(text)))
}

func (e lineError) incomplete(format string, args ...any) *ParseError {
	return &ParseError{File: e.file, Tool: e.tool, Msg: fmt.Sprintf(format, args...), Incomplete: true}
}

// parseCount parses a printed integer (%d, %lu): digits, optional minus.
func parseCount(s string) (int64, bool) {
	if !isDecimal(s) || strings.Contains(s, ".") {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// parseWithUnit parses "30.0459s" or "0.35ms": a decimal followed by unit.
func parseWithUnit(s, unit string) (Number, bool) {
	v, ok := strings.CutSuffix(s, unit)
	if !ok {
		return Number{}, false
	}
	n, err := ParseNumber(v)
	return n, err == nil
}

// splitLabel splits "  total time:   30.0459s" into "total time" and the
// value's whitespace-separated fields. Runs of spaces inside the label are
// folded ("approx.  95 percentile" becomes "approx. 95 percentile").
func splitLabel(t string) (label string, fields []string, ok bool) {
	l, v, ok := strings.Cut(t, ":")
	if !ok {
		return "", nil, false
	}
	return strings.Join(strings.Fields(l), " "), strings.Fields(v), true
}
