package bench

import (
	"errors"
	"fmt"
	"strings"
)

// ErrIncomplete matches (errors.Is) a ParseError for output that stops
// before the tool's final report: an interrupted, failed or still running
// benchmark. The parser then also returns the partial result it built.
var ErrIncomplete = errors.New("incomplete benchmark output")

// ParseError is an error in a tool's output. Its text is one line:
// "FILE:LINE: TOOL: message" or, for the input as a whole, "FILE: TOOL: message".
type ParseError struct {
	File string
	Line int  // 1-based; 0 when the problem is not at one line
	Tool Tool // "" when the tool could not be recognised
	Msg  string
	// Incomplete is set when the output ended before the final report.
	Incomplete bool
	// Err is an underlying cause (a read error), or nil.
	Err error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Tool != "" {
		b.WriteString(string(e.Tool) + ": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return strings.ReplaceAll(b.String(), "\n", " ")
}

func (e *ParseError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrIncomplete) report truncated output.
func (e *ParseError) Is(target error) bool {
	return target == ErrIncomplete && e.Incomplete
}

// displayName is how errors name an input given no name.
func displayName(name string) string {
	if name == "" {
		return "<input>"
	}
	return name
}
