package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
)

// series is one monitor CSV (timeseries/<host>-{mysql,os}.csv), whole: the
// one reader behind the report's plots and "where the time went".
type series struct {
	col  map[string]int
	rows [][]string
}

func readSeries(path string) (*series, error) {
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
	header, err := cr.Read()
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s := &series{col: map[string]int{}}
	for i, h := range header {
		s.col[h] = i
	}
	for {
		rec, err := cr.Read()
		if err != nil {
			break // EOF, or a torn last row while the file still grows
		}
		s.rows = append(s.rows, rec)
	}
	return s, nil
}

// value is a row's cell as a number (NaN when empty or absent).
func (s *series) value(row []string, col string) float64 {
	i, ok := s.col[col]
	if !ok || i >= len(row) || row[i] == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(row[i], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// window calls f for each row sampled in (from, to] seconds.
func (s *series) window(from, to float64, f func(row []string)) {
	if s == nil {
		return
	}
	for _, r := range s.rows {
		if t := s.value(r, "elapsed_s"); t > from && t <= to {
			f(r)
		}
	}
}

// total integrates a per-second rate column over the window: the sum of
// rate x interval_s (rows without either left out). ok is false when no
// row had the column.
func (s *series) total(col string, from, to float64) (sum float64, ok bool) {
	s.window(from, to, func(r []string) {
		v, dt := s.value(r, col), s.value(r, "interval_s")
		if !math.IsNaN(v) && !math.IsNaN(dt) {
			sum += v * dt
			ok = true
		}
	})
	return sum, ok
}

// mean averages a column over the window (NaN when no row had it).
func (s *series) mean(col string, from, to float64) float64 {
	sum, n := 0.0, 0
	s.window(from, to, func(r []string) {
		if v := s.value(r, col); !math.IsNaN(v) {
			sum += v
			n++
		}
	})
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
