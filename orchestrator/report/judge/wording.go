package judge

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
)

// RatioInterval is "[0.680, 0.800]" in a ratio's digits; a lower bound
// below 0 (the numerator's mean not significantly above 0) reads as 0, and
// says it was clipped: "[0 (clipped from -0.248), 1.25]".
func RatioInterval(low, high float64) string {
	lo := analyse.Sig(math.Max(0, low), analyse.RatioDigits)
	if low < 0 {
		lo += " (clipped from " + analyse.Sig(low, analyse.RatioDigits) + ")"
	}
	return "[" + lo + ", " + analyse.Sig(high, analyse.RatioDigits) + "]"
}

// Significance words a t-test outcome: "p=0.003, significant",
// "p=0.412, not significant", or why there is none ("n/a (one run)").
func Significance(t *analyse.TTest, err error) string {
	if t == nil {
		if err == nil {
			err = errors.New("n/a")
		}
		return err.Error()
	}
	word := "not significant"
	if t.Significant() {
		word = "significant"
	}
	if t.M > 1 {
		// Holm's level for this comparison, among the table's M.
		word += fmt.Sprintf(" at %s, Holm over %d comparisons", strconv.FormatFloat(t.DecidedAt(), 'g', 3, 64), t.M)
	}
	return PValueAt(t.P, t.DecidedAt()) + ", " + word
}

// PValueAt is PValue for a p judged at level: with more significant
// digits where three would print it equal to the level as the report
// prints levels (%.3g), or on the wrong side of it: p=0.01138 judged at
// 0.0114 (a round's share of 5%) read "p=0.0114, significant".
func PValueAt(p, level float64) string {
	shown, _ := strconv.ParseFloat(strconv.FormatFloat(level, 'g', 3, 64), 64)
	if p < 0.001 && level > 0.001 || math.IsNaN(p) {
		return PValue(p)
	}
	for d := 3; d <= 6; d++ {
		s := strconv.FormatFloat(p, 'g', d, 64)
		if v, _ := strconv.ParseFloat(s, 64); v != shown && (v < shown) == (p < level) {
			return "p=" + s
		}
	}
	return "p=" + strconv.FormatFloat(p, 'g', -1, 64)
}

// PValue formats a p-value with three significant digits, so that one
// just under 0.05 never reads as 0.050: "p=0.0499", "p=0.204", "p<0.001".
func PValue(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3g", p)
}

func Dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func Plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// noisePhrase is the verdict's noise clause: which side is noisy, with
// both CVs named, "noisy: innodb CV 22.6% above 5% (rocksdb 1.5%)".
func noisePhrase(base, g *Group) string {
	var hi, lo []string
	for _, x := range []*Group{g, base} {
		switch {
		case x.Noisy:
			hi = append(hi, x.Label+" CV "+Pct(x.CV))
		case !math.IsNaN(x.CV):
			lo = append(lo, x.Label+" "+Pct(x.CV))
		}
	}
	s := "noisy: " + strings.Join(hi, ", ") + " above " + Pct(analyse.MaxCV)
	if len(lo) > 0 {
		s += " (" + strings.Join(lo, ", ") + ")"
	}
	return s
}

// QueueCell is a run queue's median with its 90th percentile: "1.0 (p90 12.0)".
func QueueCell(median, p90 float64) string {
	if math.IsNaN(p90) {
		return analyse.Num(median, 1)
	}
	return analyse.Num(median, 1) + " (p90 " + analyse.Num(p90, 1) + ")"
}
