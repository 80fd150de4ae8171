package render

import (
	"math"
	"strconv"
	"strings"
)

// f formats a figure as the tool printed it: the fewest digits that read
// back exactly. NaN (no value) is empty.
func f(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// F4 formats a derived figure (a mean, a ratio) to 4 decimals, without
// trailing zeros: more would be noise, and differ across CPUs.
func F4(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
