package load

import (
	"math"
	"slices"
)

// worstLag is the worst slave's lag in transactions (lag_tx, at each
// sample's instant: instantLag) per second since the monitor start.
// Seconds_Behind_Master (lag_s) is not plotted: it reads 0 on a slave
// whose link is down.
func worstLag(replicas []Replica) []Point {
	worst := map[int]float64{}
	for _, rp := range replicas {
		if rp.My == nil {
			continue
		}
		for _, r := range rp.My.Rows {
			t, v := rp.My.Value(r, "elapsed_s"), rp.My.Value(r, "lag_tx")
			if math.IsNaN(t) || math.IsNaN(v) {
				continue
			}
			s := int(math.Round(t))
			if w, ok := worst[s]; !ok || v > w {
				worst[s] = v
			}
		}
	}
	secs := make([]int, 0, len(worst))
	for s := range worst {
		secs = append(secs, s)
	}
	slices.Sort(secs)
	out := make([]Point, len(secs))
	for i, s := range secs {
		out[i] = Point{float64(s), worst[s]}
	}
	return out
}

// maxLag is the largest lag_tx of any slave over the whole run (NaN: none
// recorded).
func maxLag(replicas []Replica) float64 {
	m := math.NaN()
	for _, rp := range replicas {
		m = MaxNaN(m, rp.My.Max("lag_tx", AllTime))
	}
	return m
}
