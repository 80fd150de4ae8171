package load

import (
	"math"
	"sort"
	"strconv"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// MasterKnot is one master sample: its time (elapsed_s) and position.
type MasterKnot struct {
	T   float64
	Pos string
	N   float64 // transactions the position covers
}

// FinalPosition is the master's position once the load has ended
// (results.json catch_up.master_gtid) and when it ended (elapsed_s; NaN:
// not recorded): nothing moves the master after it.
type FinalPosition struct {
	pos string
	At  float64
}

// MasterKnots are the master's samples that recorded a position, in time
// order, with the final position as a last knot when it is known and
// later than the samples.
func MasterKnots(master *Series, final FinalPosition) (knots []MasterKnot, hold bool) {
	if master == nil {
		return nil, false
	}
	for _, r := range master.Rows {
		t, pos := master.Value(r, "elapsed_s"), master.Text(r, "gtid_pos")
		if pos == "" || math.IsNaN(t) {
			continue
		}
		if n, err := flavor.RecordedGTIDCount(pos); err == nil {
			knots = append(knots, MasterKnot{t, pos, float64(n)})
		}
	}
	if final.pos == "" || math.IsNaN(final.At) {
		return knots, false
	}
	n, err := flavor.RecordedGTIDCount(final.pos)
	if err != nil || len(knots) > 0 && float64(n) < knots[len(knots)-1].N {
		return knots, false
	}
	at := final.At
	if len(knots) > 0 {
		at = math.Max(at, knots[len(knots)-1].T)
	}
	return append(knots, MasterKnot{at, final.pos, float64(n)}), true
}

// sameInstantS: a slave sample with the master's sample on one side only
// (the first and last rows) is read against it when they are this close:
// the monitor samples the servers together, a few milliseconds apart, and
// that is what the error can be (the master's commits in that time: 1% of
// a 1,000-transaction lag at 4,000 tx/s and 3 ms).
const sameInstantS = 0.05

// LagAt is how many transactions of the master's position at time t a
// slave that had applied pos lacked: the gap to the master's next sample,
// less what the master wrote between t and it (its count interpolated
// linearly between its samples either side of t). ok is false when the
// master has no sample on one side of t and none within sameInstantS on
// the other (after the load's end its final position holds): the lag is
// then not known, never read off a stale sample.
func LagAt(knots []MasterKnot, hold bool, t float64, pos string) (float64, bool) {
	j := sort.Search(len(knots), func(i int) bool { return knots[i].T >= t })
	gap := func(k MasterKnot) (float64, bool) {
		g, err := flavor.RecordedGTIDGap(k.Pos, pos)
		return float64(g), err == nil
	}
	switch {
	case j == len(knots) && j > 0 && (hold || t-knots[j-1].T <= sameInstantS):
		return gap(knots[j-1])
	case j == len(knots):
		return math.NaN(), false
	case knots[j].T == t || j == 0 && knots[0].T-t <= sameInstantS:
		return gap(knots[j])
	case j == 0:
		return math.NaN(), false
	}
	a, b := knots[j-1], knots[j]
	if b.N < a.N { // the master's position went back (RESET MASTER, restart)
		return math.NaN(), false
	}
	g, err := flavor.RecordedGTIDGap(b.Pos, pos)
	if err != nil {
		return math.NaN(), false
	}
	written := (b.N - a.N) * (b.T - t) / (b.T - a.T)
	return math.Max(0, float64(g)-written), true
}

// InstantLag rewrites the slave's lag_tx cells with its lag at each of its
// samples (lagAt), empty where that is not known. A series without
// positions (older runs) keeps the lag the monitor wrote.
func InstantLag(slave *Series, knots []MasterKnot, hold bool) {
	if slave == nil || len(knots) == 0 {
		return
	}
	lagCol, okL := slave.Col["lag_tx"]
	if _, okP := slave.Col["gtid_pos"]; !okL || !okP {
		return
	}
	for _, r := range slave.Rows {
		t, pos := slave.Value(r, "elapsed_s"), slave.Text(r, "gtid_pos")
		if lagCol >= len(r) || pos == "" || math.IsNaN(t) {
			continue
		}
		r[lagCol] = ""
		if lag, ok := LagAt(knots, hold, t, pos); ok {
			r[lagCol] = strconv.FormatFloat(math.Round(lag), 'f', 0, 64)
		}
	}
}

// Text is a row's cell as it was written ("" when absent).
func (s *Series) Text(row []string, col string) string {
	i, ok := s.Col[col]
	if !ok || i >= len(row) {
		return ""
	}
	return row[i]
}
