package report

import (
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// readLag reads the slaves' timeseries/<host>-mysql.csv files and returns
// the worst slave's lag in transactions (lag_tx) per second since the
// monitor start. Seconds_Behind_Master (lag_s) is not plotted: it reads 0
// on a slave whose link is down. roles may be empty (older manifests): then
// every file with lag_tx values counts, which only slaves fill.
func readLag(dir string, roles map[string]string) ([]Point, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.Dir(schema.TimeseriesMySQL("x")), "*-mysql.csv"))
	if err != nil {
		return nil, err
	}
	worst := map[int]float64{}
	for _, f := range files {
		host := strings.TrimSuffix(filepath.Base(f), "-mysql.csv")
		if role, ok := roles[host]; ok && role != "slave" {
			continue
		}
		pts, err := csvColumn(f, "lag_tx")
		if err != nil {
			return nil, err
		}
		for _, p := range pts {
			s := int(math.Round(p.T))
			if v, ok := worst[s]; !ok || p.V > v {
				worst[s] = p.V
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
	return out, nil
}

// csvColumn reads (elapsed_s, column) pairs from a monitor CSV, skipping
// empty cells ("no value"); nil when the file has neither column (an older
// or different layout: nothing to plot).
func csvColumn(path, column string) ([]Point, error) {
	s, err := readSeries(path)
	if err != nil || s == nil {
		return nil, err
	}
	var out []Point
	for _, r := range s.rows {
		t, v := s.value(r, "elapsed_s"), s.value(r, column)
		if !math.IsNaN(t) && !math.IsNaN(v) {
			out = append(out, Point{t, v})
		}
	}
	return out, nil
}
