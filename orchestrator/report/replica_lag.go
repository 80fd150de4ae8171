package report

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator/report/load"
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

// SlaveLags reads the monitor series under dir (timeseries/<host>-mysql.csv)
// of the master and the slaves named and returns each slave's lag at its
// samples as the report reads it: (elapsed_s, transactions) with the
// master's position interpolated at the slave's sample time; NaN where it
// is not known. The monitors' lab test holds it against the master's
// position polled every few milliseconds on the same clock.
func SlaveLags(dir, master string, slaves []string) (map[string][]load.Point, error) {
	m, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesMySQL(master)))
	if err != nil {
		return nil, err
	}
	knots, hold := load.MasterKnots(m, load.FinalPosition{At: math.NaN()})
	out := map[string][]load.Point{}
	for _, h := range slaves {
		s, err := load.ReadSeries(filepath.Join(dir, schema.TimeseriesMySQL(h)))
		if err != nil {
			return nil, err
		}
		if s == nil {
			return nil, fmt.Errorf("%s: no mysql series in %s", h, dir)
		}
		load.InstantLag(s, knots, hold)
		for _, r := range s.Rows {
			out[h] = append(out[h], load.Point{T: s.Value(r, "elapsed_s"), V: s.Value(r, "lag_tx")})
		}
	}
	return out, nil
}
