package bench

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Number is a decimal exactly as a benchmark tool printed it. It keeps the
// printed text so that "4.890" stays "4.890" in JSON output instead of being
// rounded through a float64. The zero Number means "not printed" and
// marshals as JSON null.
type Number struct {
	text string
}

// ParseNumber accepts a plain decimal as printf's %d, %f and %ld.%03ld
// produce it: an optional minus sign, digits without superfluous leading
// zeros, and an optional fraction. Anything else (nan, inf, exponents, "+1",
// ".5") is rejected, so every Number is also a valid JSON number literal.
func ParseNumber(s string) (Number, error) {
	if !isDecimal(s) {
		return Number{}, fmt.Errorf("not a decimal number: %q", clip(s))
	}
	return Number{text: s}, nil
}

// IsSet reports whether the tool printed this value.
func (n Number) IsSet() bool { return n.text != "" }

// String returns the printed text ("" when not set).
func (n Number) String() string { return n.text }

// Float64 returns the value as a float64 (0 when not set). Use it for
// arithmetic; use String or JSON to report the value.
func (n Number) Float64() float64 {
	f, _ := strconv.ParseFloat(n.text, 64) // text is validated: only range errors, which saturate
	return f
}

// MarshalJSON writes the printed digits verbatim, or null when not set.
func (n Number) MarshalJSON() ([]byte, error) {
	if n.text == "" {
		return []byte("null"), nil
	}
	return []byte(n.text), nil
}

// UnmarshalJSON accepts null or any JSON number literal and keeps its text,
// so results saved as JSON read back without loss.
func (n *Number) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*n = Number{}
		return nil
	}
	if !isJSONNumber(string(b)) {
		return fmt.Errorf("bench.Number: not a JSON number: %s", clip(string(b)))
	}
	*n = Number{text: string(b)}
	return nil
}

// isDecimal matches -?(0|[1-9][0-9]*)(\.[0-9]+)?
func isDecimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !allDigits(intPart) || (len(intPart) > 1 && intPart[0] == '0') {
		return false
	}
	return !hasFrac || allDigits(frac)
}

// isJSONNumber is isDecimal plus an optional exponent (RFC 8259 number).
func isJSONNumber(s string) bool {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		exp := strings.TrimLeft(s[i+1:], "+-")
		if len(s[i+1:])-len(exp) > 1 || !allDigits(exp) {
			return false
		}
		s = s[:i]
	}
	return isDecimal(s)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shiftPoint multiplies a decimal by 10^places by moving the decimal point,
// which is exact: legacy sysbench prints a latency sum in seconds ("319.7719")
// that the result reports in milliseconds ("319771.9").
func shiftPoint(n Number, places int) Number {
	if !n.IsSet() {
		return n
	}
	s, neg := strings.CutPrefix(n.text, "-")
	intPart, frac, _ := strings.Cut(s, ".")
	for len(frac) < places {
		frac += "0"
	}
	intPart, frac = intPart+frac[:places], frac[places:]
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	out := intPart
	if frac != "" {
		out += "." + frac
	}
	if neg {
		out = "-" + out
	}
	return Number{text: out}
}

// clip prepares input text for an error message: at most 80 bytes (a
// garbage line of a megabyte must not become a megabyte-long error), valid
// UTF-8, and no control characters that could break the message's one line.
func clip(s string) string {
	const max = 80
	cut := len(s) > max
	if cut {
		s = s[:max]
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if cut {
		s += "..."
	}
	return s
}
