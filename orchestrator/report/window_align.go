package report

import "math"

// The client's clock is not the monitors': sysbench counts its intervals
// from its own start, some time after load_start (an SSH round trip and
// its connections; older runs count from the monitors' start, before
// that). Misaligned by a few tenths of a second, a window's edges and an
// excluded pause read different seconds on the two sides, and the
// client's and the master's rates of one window disagree by more than a
// percent. alignOffset measures the shift instead of assuming it.

// Offsets alignOffset tries, in seconds, and its step.
const (
	minClientOffsetS  = -1.0
	maxClientOffsetS  = 3.0
	clientOffsetStepS = 0.01
	// minAlignPoints: with fewer intervals the fit is not worth trusting.
	minAlignPoints = 5
)

// commitSeries is the client's per-interval transaction rate (nil when it
// printed none): one commit on the master per transaction.
func (r *Run) commitSeries() []Point {
	rt, ok := r.benchRate(metricTPS)
	if !ok || rt.plotOnly {
		return nil
	}
	return rt.Series
}

// alignOffset is the shift d (load seconds) for which the master's
// commits in each client interval (T-step+d, T+d], interpolated from its
// counter, best match what the client counted in it (least squares;
// ties go to the smaller shift); 0 without a master series, enough
// intervals, or when the master did not commit about one transaction per
// client transaction (a read-only load: nothing to align on).
func alignOffset(client []Point, master *series) float64 {
	cum := master.cumulative(master.reader("gtid_tx_ps"))
	if len(cum) < 2 || len(client) < minAlignPoints {
		return 0
	}
	step := stepOf(client)
	lo, hi := cum[0].t, cum[len(cum)-1].t
	fit := func(d float64) (sse, clientTx, masterTx float64, n int) {
		for _, p := range client {
			a, b := p.T-step+d, p.T+d
			if math.IsNaN(p.V) || a < lo || b > hi {
				continue
			}
			ca, _ := cumAt(cum, a)
			cb, _ := cumAt(cum, b)
			e := p.V*step - (cb - ca)
			sse, clientTx, masterTx, n = sse+e*e, clientTx+p.V*step, masterTx+cb-ca, n+1
		}
		return sse, clientTx, masterTx, n
	}
	if _, c, m, n := fit(0); n < minAlignPoints || m < 0.5*c || m > 2*c {
		return 0
	}
	best, bestErr := 0.0, math.Inf(1)
	steps := int(math.Round(math.Max(-minClientOffsetS, maxClientOffsetS) / clientOffsetStepS))
	for k := 0; k <= steps; k++ {
		// 0, +0.01, -0.01, +0.02, ...: outward from no shift.
		for _, d := range []float64{float64(k) * clientOffsetStepS, -float64(k) * clientOffsetStepS} {
			if d < minClientOffsetS-1e-9 || d > maxClientOffsetS+1e-9 || (k == 0 && d != 0) {
				continue
			}
			if sse, _, _, n := fit(d); n >= minAlignPoints && sse/float64(n) < bestErr {
				best, bestErr = d, sse/float64(n)
			}
		}
	}
	return math.Round(best*100) / 100
}
