package analyse

import (
	"math"
	"sort"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Offsets alignOffset tries, in seconds, and its step.
const (
	minClientOffsetS  = -1.0
	maxClientOffsetS  = 3.0
	clientOffsetStepS = 0.01
	// minAlignPoints: with fewer intervals the fit is not worth trusting.
	minAlignPoints = 5
	// minStartReadings: the start's readings must be at least two, and
	// agree (startAgreeS).
	minStartReadings = 2
	// startAgreeS: the interquartile range within which the start's
	// readings of the shift must lie (0.01-0.04 s on the lab).
	startAgreeS = 0.1
)

// CommitSeries is the client's per-interval transaction rate (nil when it
// printed none): one commit on the master per transaction.
func CommitSeries(r *load.Run) []load.Point {
	rt, ok := BenchRate(r, load.MetricTPS)
	if !ok || rt.PlotOnly {
		return nil
	}
	return rt.Series
}

// AlignOffset is the shift d by which the client's interval ending at T
// is the master's (T-step+d, T+d]. It is read from the load's start when
// the master's commits allow (startOffset); else it is the shift for which
// the master's commits in each client interval, interpolated from its
// counter, best match what the client counted in it (least squares; ties
// go to the smaller shift). 0 without a master series or enough
// intervals, or when the master did not commit about one transaction per
// client transaction (a read-only load: nothing to align on). fromStart
// says it was read from the load's start.
func AlignOffset(client []load.Point, master *load.Series) (d float64, fromStart bool) {
	cum := master.Cumulative(master.Reader("gtid_tx_ps"))
	if len(cum) < 2 || len(client) == 0 {
		return 0, false
	}
	step := load.StepOf(client)
	// Read from the start first: it needs no more than two intervals (a
	// 3 s run has three), where a fit needs five.
	if d, ok := StartOffset(client, cum, step); ok {
		return d, true
	}
	if len(client) < minAlignPoints {
		return 0, false
	}
	lo, hi := cum[0].T, cum[len(cum)-1].T
	fit := func(d float64) (sse, clientTx, masterTx float64, n int) {
		for _, p := range client {
			a, b := p.T-step+d, p.T+d
			if math.IsNaN(p.V) || a < lo || b > hi {
				continue
			}
			ca, _ := load.CumAt(cum, a)
			cb, _ := load.CumAt(cum, b)
			e := p.V*step - (cb - ca)
			sse, clientTx, masterTx, n = sse+e*e, clientTx+p.V*step, masterTx+cb-ca, n+1
		}
		return sse, clientTx, masterTx, n
	}
	if _, c, m, n := fit(0); n < minAlignPoints || m < 0.5*c || m > 2*c {
		return 0, false
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
	return math.Round(best*100) / 100, false
}

// StartOffset reads the shift from the load's start. The monitors sample
// the master before the client begins, so the client's transactions are
// the master's commits since the series' first sample, in order: the
// client's running count at the end of its interval T is reached on the
// master at T+d. Every interval end (from the first, up to a gap or the
// master's last sample) is one reading of d, the master's count
// interpolated between its samples; a per-interval fit cannot do as well,
// because the master's first sample of the load spreads the commits of a
// client that began inside it over the whole sample, and shifts that
// leave that sample out win. ok when at
// least minStartReadings readings agree (their middle half within
// startAgreeS), which they do not when the master commits more or fewer
// transactions than the client counts: the readings drift.
func StartOffset(client []load.Point, cum []load.CumPoint, step float64) (float64, bool) {
	var ds []float64
	count := 0.0
	for i, p := range client {
		if math.IsNaN(p.V) || math.Abs(p.T-float64(i+1)*step) > step/100 {
			break
		}
		count += p.V * step
		// Not in the master's last sample: the monitors' sample at Stop
		// holds the load's end and idle time after it, so a count reached
		// there reads late.
		t, ok := cumTime(cum, cum[0].C+count)
		if !ok || t > cum[len(cum)-2].T {
			break
		}
		ds = append(ds, t-p.T)
	}
	if len(ds) < minStartReadings {
		return 0, false
	}
	sort.Float64s(ds)
	n := len(ds)
	med, q1, q3 := ds[n/2], ds[n/4], ds[(3*n)/4]
	if n%2 == 0 {
		med = (ds[n/2-1] + ds[n/2]) / 2
	}
	if q3-q1 > startAgreeS || med < cum[0].T || med < minClientOffsetS || med > maxClientOffsetS {
		return 0, false
	}
	return math.Round(med*100) / 100, true
}

// cumTime is the load time at which the cumulative count first reaches c,
// interpolated between samples; false when the series never does.
func cumTime(pts []load.CumPoint, c float64) (float64, bool) {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.C >= c && b.C > a.C {
			if c <= a.C {
				return a.T, true
			}
			return a.T + (c-a.C)/(b.C-a.C)*(b.T-a.T), true
		}
	}
	return 0, false
}
