package analyse

import (
	"fmt"
	"math"
)

// StackShareHeader is the Top stacks tables' first column.
const StackShareHeader = "share [95% CI] (count/samples)"

// StackShare is a stack's share of a profile's samples with its 95%
// Wilson score interval and the count it is read from: "27.1% [22.0%,
// 32.9%] (70/258)". A few hundred samples of one round leave a share a
// few points either way; the interval treats samples as independent,
// which the threads of one gdb snapshot are not, so it is the least the
// uncertainty is (the profile's title says how many snapshots).
func StackShare(count, samples int) string {
	if samples <= 0 {
		return "—"
	}
	lo, hi := wilson(count, samples)
	p := float64(count) / float64(samples)
	return fmt.Sprintf("%s [%s, %s] (%d/%d)", PctFixed(p), PctFixed(lo), PctFixed(hi), count, samples)
}

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}
