package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// readLag reads the slaves' timeseries/<host>-mysql.csv files and returns
// the worst slave's lag in transactions (lag_tx) per second since the
// monitor start. Seconds_Behind_Master (lag_s) is not plotted: it reads 0
// on a slave whose link is down. roles may be empty (older manifests): then
// every file with lag_tx values counts, which only slaves fill.
func readLag(dir string, roles map[string]string) ([]Point, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.Dir(rundir.TimeseriesMySQL("x")), "*-mysql.csv"))
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
// empty cells ("no value") and a torn last row (the file may still grow).
func csvColumn(path, column string) ([]Point, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ti, vi := slices.Index(header, "elapsed_s"), slices.Index(header, column)
	if ti < 0 || vi < 0 {
		return nil, nil // an older or different layout: nothing to plot
	}
	var out []Point
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return out, nil // stop at a malformed row: a torn last one while the file grows
		}
		if len(rec) <= max(ti, vi) || rec[vi] == "" {
			continue
		}
		t, err1 := strconv.ParseFloat(rec[ti], 64)
		v, err2 := strconv.ParseFloat(rec[vi], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		out = append(out, Point{t, v})
	}
	return out, nil
}
