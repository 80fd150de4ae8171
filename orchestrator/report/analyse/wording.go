package analyse

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Ratio formats a ratio with three significant digits, the one form of
// every ratio the report prints in prose and tables: "0.810x", "1.63x",
// "0.0880x", "11,400x" (never "0.09x" beside "0.088x", nor "11388.41x").
func Ratio(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	return Sig(r, RatioDigits) + "x"
}

// RatioDigits are the significant digits of a printed ratio.
const RatioDigits = 3

// Sig formats v with n significant digits, trailing zeros kept (they say
// the precision), thousands separated by commas, never in e-notation:
// sig(0.81, 3) = "0.810", sig(11388.41, 3) = "11,400", sig(9.996, 3) = "10.0".
func Sig(v float64, n int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	if v == 0 {
		return "0"
	}
	// Round first, so that a value rounding up to the next power of ten
	// (9.996 -> 10.0) gets that power's decimals.
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', n, 64), 64)
	e := int(math.Floor(math.Log10(math.Abs(v))))
	if d := n - 1 - e; d > 0 {
		return strconv.FormatFloat(v, 'f', d, 64)
	}
	s := strconv.FormatFloat(v, 'f', 0, 64)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Num formats v with the given decimals; "—" when absent.
func Num(v float64, decimals int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// PctFixed formats a measured fraction as a percentage with one decimal,
// always: "7.2%", "7.0%", so that a column or a sentence of measurements
// never has "7%" beside "17.1%".
func PctFixed(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%.1f", 100*v) + "%"
}
