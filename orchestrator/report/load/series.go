package load

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Series is one monitor CSV (timeseries/<host>-{mysql,os}.csv), whole: the
// one reader behind the report's plots and "where the time went".
type Series struct {
	Col  map[string]int
	Rows [][]string
	// offset is the load's start on the monitor's clock (seconds after
	// its elapsed_s zero): a row's load time is elapsed_s - offset.
	Offset float64
	// mysql: a server's counters (a *-mysql.csv), which the load moves.
	Mysql bool
	// applier: a slave's counters, which move after the load too (it
	// applies its backlog): its counts are spread over each sample's
	// seconds, never gathered at the load's end as the master's are.
	Applier bool
}

func ReadSeries(path string) (*Series, error) {
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
	s := &Series{Col: map[string]int{}, Mysql: strings.HasSuffix(path, "-mysql.csv")}
	for i, h := range header {
		s.Col[h] = i
	}
	for {
		rec, err := cr.Read()
		if err != nil {
			break // EOF, or a torn last row while the file still grows
		}
		s.Rows = append(s.Rows, rec)
	}
	return s, nil
}

// Value is a row's cell as a number (NaN when empty or absent).
func (s *Series) Value(row []string, col string) float64 {
	i, ok := s.Col[col]
	if !ok || i >= len(row) || row[i] == "" {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(row[i], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// CumPoint is a column's running integral at a sample: c the sum of
// value x interval_s up to it, k the seconds with a value.
type CumPoint struct{ T, C, k float64 }

// Cumulative is the running integral of v (a per-second quantity over
// each row's interval) at each row's load time.
func (s *Series) Cumulative(v func(row []string) float64) []CumPoint {
	if s == nil {
		return nil
	}
	var pts []CumPoint
	var c, k float64
	for _, r := range s.Rows {
		t := s.Value(r, "elapsed_s") - s.Offset
		if math.IsNaN(t) {
			continue
		}
		dt, x := s.Value(r, "interval_s"), v(r)
		if !math.IsNaN(dt) && dt > 0 && !math.IsNaN(x) {
			if len(pts) == 0 {
				pts = append(pts, CumPoint{t - dt, 0, 0})
			}
			c, k = c+x*dt, k+dt
		}
		pts = append(pts, CumPoint{t, c, k})
	}
	return pts
}

// CumAt interpolates the running integral linearly at t (clamped to the
// samples' span: nothing was counted outside it).
func CumAt(pts []CumPoint, t float64) (c, k float64) {
	n := len(pts)
	switch {
	case n == 0:
		return 0, 0
	case t <= pts[0].T:
		return pts[0].C, pts[0].k
	case t >= pts[n-1].T:
		return pts[n-1].C, pts[n-1].k
	}
	i := sort.Search(n, func(i int) bool { return pts[i].T >= t })
	a, b := pts[i-1], pts[i]
	f := (t - a.T) / (b.T - a.T)
	return a.C + f*(b.C-a.C), a.k + f*(b.k-a.k)
}

// Integral integrates v over the window's seconds: counts between samples
// are interpolated linearly, so the monitors are read over exactly the
// seconds the client's kept intervals cover. covered is the seconds of
// the window with a value; ok is false when there are none.
//
// loadOnly says v counts only what the load does (a server's transaction
// counters): once the load's start is known (Window.LoadQuiet), nothing of
// it is counted before then (quietBefore), nor after the client's end
// (quietAfter).
func (s *Series) Integral(w Window, v func(row []string) float64, loadOnly bool) (sum, covered float64, ok bool) {
	pts := s.windowPoints(w, v, loadOnly)
	for _, sg := range w.Segs {
		c1, k1 := CumAt(pts, sg[0])
		c2, k2 := CumAt(pts, sg[1])
		sum, covered = sum+c2-c1, covered+k2-k1
	}
	return sum, covered, covered > 1e-9
}

// windowPoints is v's running integral as integral reads it over w: with
// the load's start and end as knots when v counts only the load.
func (s *Series) windowPoints(w Window, v func(row []string) float64, loadOnly bool) []CumPoint {
	pts := s.Cumulative(v)
	if loadOnly && s != nil && s.Mysql && !s.Applier && w.LoadQuiet {
		pts = quietBefore(pts, w.ClientOffsetS)
		if w.ClientEndS > w.ClientOffsetS {
			pts = quietAfter(pts, w.ClientEndS)
		}
	}
	return pts
}

// EdgeError is what integral miscounts of a per-second rate column over w
// because its ends fall inside samples, whose count it splits in
// proportion to time, when the column moved as shape says (shape(a, b):
// what moved between load times a and b, and the seconds of that it
// knows; the client's count, for the master's commits). A window end on a
// sample's edge or on a knot (the load's start or end) is exact; one in a
// sample shape does not wholly know is counted exact too (the client's
// last interval is often not printed), which errs toward a flag, never
// away from one. Both ends' errors are added, as if they did not cancel.
// On the lab, whose rates swing by a third between seconds, that is a
// few percent of a 2 s window and a tenth of a percent of a 60 s one.
func (s *Series) EdgeError(col string, w Window, shape func(a, b float64) (n, known float64)) float64 {
	pts := s.windowPoints(w, s.Reader(col), true)
	var e float64
	for _, sg := range w.Segs {
		for _, t := range sg {
			i := sort.Search(len(pts), func(i int) bool { return pts[i].T >= t })
			if i == 0 || i == len(pts) || pts[i].T-t < 1e-9 {
				continue
			}
			a, b := pts[i-1], pts[i]
			if whole, known := shape(a.T, b.T); whole > 0 && known >= 0.99*(b.T-a.T) {
				part, _ := shape(a.T, t)
				e += math.Abs(part/whole-(t-a.T)/(b.T-a.T)) * (b.C - a.C)
			}
		}
	}
	return e
}

// Reader is a row's value reader for one column.
func (s *Series) Reader(name string) func(row []string) float64 {
	return func(r []string) float64 { return s.Value(r, name) }
}

// Total integrates a per-second rate column over the window: what it
// counted, and the seconds that covers.
func (s *Series) Total(col string, w Window) (sum, secs float64, ok bool) {
	return s.Integral(w, s.Reader(col), strings.HasSuffix(col, "_ps") || strings.HasSuffix(col, "_bps"))
}

// quietBefore is pts with nothing counted before load time t: the sample
// that holds t gets a knot there at its start's count, so its count is
// spread over its part after t only. Without it, a window from the load's
// start read the master's first sample of the load as if its commits had
// begun with the sample, before the client did (1-2% of a 20 s window's
// commits on the lab, the client starting 0.4 s into that sample).
func quietBefore(pts []CumPoint, t float64) []CumPoint { return knotAt(pts, t, false) }

// quietAfter is pts with nothing counted after load time t: the sample
// that holds t gets a knot there at its end's count. The monitors' last
// sample is taken when orch sees the client end, 0.2-0.7 s after its last
// commit: spread over that sample, the load's last commits were read as
// partly after a window ending with the client (0.7% fewer master commits
// than client transactions over a 15 s window of a 16-thread lab run).
func quietAfter(pts []CumPoint, t float64) []CumPoint { return knotAt(pts, t, true) }

// knotAt puts a point at t inside the sample that holds it, with the
// sample's count at its end (atEnd) or start; its covered seconds stay
// linear.
func knotAt(pts []CumPoint, t float64, atEnd bool) []CumPoint {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if a.T < t && t < b.T {
			c := a.C
			if atEnd {
				c = b.C
			}
			knot := CumPoint{t, c, a.k + (t-a.T)/(b.T-a.T)*(b.k-a.k)}
			return append(append(append(make([]CumPoint, 0, len(pts)+1), pts[:i]...), knot), pts[i:]...)
		}
	}
	return pts
}

// Rate is a rate column over the window, time-weighted: what it counted
// over the seconds it covered (never a mean of per-sample rates, which
// over-weights short samples). NaN when no row had it.
func (s *Series) Rate(col string, w Window) float64 {
	sum, secs, ok := s.Total(col, w)
	if !ok {
		return math.NaN()
	}
	return sum / secs
}

// Mean is a gauge or share column's time-weighted mean over the window
// (each sample holds over its interval); NaN when no row had it.
func (s *Series) Mean(col string, w Window) float64 { return s.Rate(col, w) }

// rowsIn calls f for each row sampled inside the window's seconds.
func (s *Series) rowsIn(w Window, f func(t float64, row []string)) {
	if s == nil {
		return
	}
	for _, r := range s.Rows {
		if t := s.Value(r, "elapsed_s") - s.Offset; w.covers(t) {
			f(t, r)
		}
	}
}

// Last is the column's value at the window's last sample that has it
// (NaN when none).
func (s *Series) Last(col string, w Window) float64 {
	v := math.NaN()
	s.rowsIn(w, func(_ float64, r []string) {
		if x := s.Value(r, col); !math.IsNaN(x) {
			v = x
		}
	})
	return v
}

// Max is the column's largest value in the window (NaN when none).
func (s *Series) Max(col string, w Window) float64 {
	v := math.NaN()
	s.rowsIn(w, func(_ float64, r []string) { v = MaxNaN(v, s.Value(r, col)) })
	return v
}

// Spread is the column's median and 90th percentile over the window's
// samples (NaN when none): a gauge such as a run queue spikes (10-18
// runnable for a second on the lab, 1-2 most seconds), and its mean
// reads as saturation the host mostly did not have.
func (s *Series) Spread(col string, w Window) (median, p90 float64) {
	var xs []float64
	s.rowsIn(w, func(_ float64, r []string) {
		if v := s.Value(r, col); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	})
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(xs)
	return Median(xs), xs[int(math.Ceil(0.9*float64(len(xs))))-1]
}

// Points is (load time, column) of the window's samples that have it.
func (s *Series) Points(col string, w Window) []Point {
	var out []Point
	s.rowsIn(w, func(t float64, r []string) {
		if v := s.Value(r, col); !math.IsNaN(v) {
			out = append(out, Point{t, v})
		}
	})
	return out
}
