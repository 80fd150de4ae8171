package report

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
		if rp.my == nil {
			continue
		}
		for _, r := range rp.my.rows {
			t, v := rp.my.value(r, "elapsed_s"), rp.my.value(r, "lag_tx")
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
		m = maxNaN(m, rp.my.max("lag_tx", allTime))
	}
	return m
}
