package report

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// A slave's lag is the master's position at the slave's sample time less
// what the slave had applied then. The monitor samples each server on its
// own ticker and wrote lag_tx against the master's latest sample, which
// for a slave read before the master in the same tick is the previous
// tick's: on the lab 96 of 336 samples, 20 of them reading 0 while the
// slave was over 1,000 transactions behind, and the run's maximum lag
// understated up to 2.1x. The report recomputes every lag_tx from the
// recorded positions (gtid_pos, with each row's time on orch's one clock):
// the master's position is interpolated between its samples either side
// of the slave's, so no sample is compared with a stale one.

// masterKnot is one master sample: its time (elapsed_s) and position.
type masterKnot struct {
	t   float64
	pos string
	n   float64 // transactions the position covers
}

// finalPosition is the master's position once the load has ended
// (results.json catch_up.master_gtid) and when it ended (elapsed_s; NaN:
// not recorded): nothing moves the master after it.
type finalPosition struct {
	pos string
	at  float64
}

// masterKnots are the master's samples that recorded a position, in time
// order, with the final position as a last knot when it is known and
// later than the samples.
func masterKnots(master *series, final finalPosition) (knots []masterKnot, hold bool) {
	if master == nil {
		return nil, false
	}
	for _, r := range master.rows {
		t, pos := master.value(r, "elapsed_s"), master.text(r, "gtid_pos")
		if pos == "" || math.IsNaN(t) {
			continue
		}
		if n, err := flavor.RecordedGTIDCount(pos); err == nil {
			knots = append(knots, masterKnot{t, pos, float64(n)})
		}
	}
	if final.pos == "" || math.IsNaN(final.at) {
		return knots, false
	}
	n, err := flavor.RecordedGTIDCount(final.pos)
	if err != nil || len(knots) > 0 && float64(n) < knots[len(knots)-1].n {
		return knots, false
	}
	at := final.at
	if len(knots) > 0 {
		at = math.Max(at, knots[len(knots)-1].t)
	}
	return append(knots, masterKnot{at, final.pos, float64(n)}), true
}

// sameInstantS: a slave sample with the master's sample on one side only
// (the first and last rows) is read against it when they are this close:
// the monitor samples the servers together, a few milliseconds apart, and
// that is what the error can be (the master's commits in that time: 1% of
// a 1,000-transaction lag at 4,000 tx/s and 3 ms).
const sameInstantS = 0.05

// lagAt is how many transactions of the master's position at time t a
// slave that had applied pos lacked: the gap to the master's next sample,
// less what the master wrote between t and it (its count interpolated
// linearly between its samples either side of t). ok is false when the
// master has no sample on one side of t and none within sameInstantS on
// the other (after the load's end its final position holds): the lag is
// then not known, never read off a stale sample.
func lagAt(knots []masterKnot, hold bool, t float64, pos string) (float64, bool) {
	j := sort.Search(len(knots), func(i int) bool { return knots[i].t >= t })
	gap := func(k masterKnot) (float64, bool) {
		g, err := flavor.RecordedGTIDGap(k.pos, pos)
		return float64(g), err == nil
	}
	switch {
	case j == len(knots) && j > 0 && (hold || t-knots[j-1].t <= sameInstantS):
		return gap(knots[j-1])
	case j == len(knots):
		return math.NaN(), false
	case knots[j].t == t || j == 0 && knots[0].t-t <= sameInstantS:
		return gap(knots[j])
	case j == 0:
		return math.NaN(), false
	}
	a, b := knots[j-1], knots[j]
	if b.n < a.n { // the master's position went back (RESET MASTER, restart)
		return math.NaN(), false
	}
	g, err := flavor.RecordedGTIDGap(b.pos, pos)
	if err != nil {
		return math.NaN(), false
	}
	written := (b.n - a.n) * (b.t - t) / (b.t - a.t)
	return math.Max(0, float64(g)-written), true
}

// instantLag rewrites the slave's lag_tx cells with its lag at each of its
// samples (lagAt), empty where that is not known. A series without
// positions (older runs) keeps the lag the monitor wrote.
func instantLag(slave *series, knots []masterKnot, hold bool) {
	if slave == nil || len(knots) == 0 {
		return
	}
	lagCol, okL := slave.col["lag_tx"]
	if _, okP := slave.col["gtid_pos"]; !okL || !okP {
		return
	}
	for _, r := range slave.rows {
		t, pos := slave.value(r, "elapsed_s"), slave.text(r, "gtid_pos")
		if lagCol >= len(r) || pos == "" || math.IsNaN(t) {
			continue
		}
		r[lagCol] = ""
		if lag, ok := lagAt(knots, hold, t, pos); ok {
			r[lagCol] = strconv.FormatFloat(math.Round(lag), 'f', 0, 64)
		}
	}
}

// text is a row's cell as it was written ("" when absent).
func (s *series) text(row []string, col string) string {
	i, ok := s.col[col]
	if !ok || i >= len(row) {
		return ""
	}
	return row[i]
}

// SlaveLags reads the monitor series under dir (timeseries/<host>-mysql.csv)
// of the master and the slaves named and returns each slave's lag at its
// samples as the report reads it: (elapsed_s, transactions) with the
// master's position interpolated at the slave's sample time; NaN where it
// is not known. The monitors' lab test holds it against the master's
// position polled every few milliseconds on the same clock.
func SlaveLags(dir, master string, slaves []string) (map[string][]Point, error) {
	m, err := readSeries(filepath.Join(dir, schema.TimeseriesMySQL(master)))
	if err != nil {
		return nil, err
	}
	knots, hold := masterKnots(m, finalPosition{at: math.NaN()})
	out := map[string][]Point{}
	for _, h := range slaves {
		s, err := readSeries(filepath.Join(dir, schema.TimeseriesMySQL(h)))
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, fmt.Errorf("%s: no mysql series in %s", h, dir)
		}
		instantLag(s, knots, hold)
		for _, r := range s.rows {
			out[h] = append(out[h], Point{s.value(r, "elapsed_s"), s.value(r, "lag_tx")})
		}
	}
	return out, nil
}
