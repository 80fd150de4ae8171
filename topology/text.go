package topology

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// newError builds an Error whose message is guaranteed to be one printable
// line, whatever text (yaml.v3 messages, quoted values) went into it.
func newError(pos Pos, msg string) *Error {
	msg = strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, msg)
	return &Error{Pos: pos, Msg: msg}
}

// isControl reports runes that have no place in an inventory: C0/C1
// controls other than tab, DEL, non-characters, and the Unicode line
// separators (yaml.v3 counts those as line breaks, which would make its
// line numbers disagree with every editor).
func isControl(r rune) bool {
	switch {
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfffe, r == 0xffff:
		return true
	}
	return false
}

// checkText finds the first thing that makes data not a text inventory:
// invalid UTF-8, a NUL byte, a control character or a lone carriage return
// (CRLF line ends are fine). It returns the 1-based line and column (in
// characters) and a message, or line 0 when the text is clean.
func checkText(data []byte) (line, col int, msg string) {
	line, col = 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return line, col, fmt.Sprintf("invalid UTF-8 (byte 0x%02x); an inventory is a UTF-8 text file", data[i])
		case r == 0:
			return line, col, "binary data (NUL byte); an inventory is a text file"
		case r == '\n':
			line, col = line+1, 1
			i += size
			continue
		case r == '\r':
			if i+1 < len(data) && data[i+1] == '\n' {
				i++
				continue
			}
			return line, col, "carriage return without a line feed; use LF or CRLF line ends"
		case isControl(r):
			return line, col, fmt.Sprintf("control character U+%04X; an inventory is a text file", r)
		}
		i += size
		col++
	}
	return 0, 0, ""
}

// clip shortens a value quoted into a message so one bad value cannot
// produce a huge error line.
func clip(s string) string {
	const max = 40
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	return string([]rune(s)[:max]) + "..."
}
