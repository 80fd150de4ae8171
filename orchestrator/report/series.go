package report

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

// series is one monitor CSV (timeseries/<host>-{mysql,os}.csv), whole: the
// one reader behind the report's plots and "where the time went".
type series struct {
	col  map[string]int
	rows [][]string
	// offset is the load's start on the monitor's clock (seconds after
	// its elapsed_s zero): a row's load time is elapsed_s - offset.
	offset float64
	// mysql: a server's counters (a *-mysql.csv), which the load moves.
	mysql bool
	// applier: a slave's counters, which move after the load too (it
	// applies its backlog): its counts are spread over each sample's
	// seconds, never gathered at the load's end as the master's are.
	applier bool
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
	s := &series{col: map[string]int{}, mysql: strings.HasSuffix(path, "-mysql.csv")}
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

// cumPoint is a column's running integral at a sample: c the sum of
// value x interval_s up to it, k the seconds with a value.
type cumPoint struct{ t, c, k float64 }

// cumulative is the running integral of v (a per-second quantity over
// each row's interval) at each row's load time.
func (s *series) cumulative(v func(row []string) float64) []cumPoint {
	if s == nil {
		return nil
	}
	var pts []cumPoint
	var c, k float64
	for _, r := range s.rows {
		t := s.value(r, "elapsed_s") - s.offset
		if math.IsNaN(t) {
			continue
		}
		dt, x := s.value(r, "interval_s"), v(r)
		if !math.IsNaN(dt) && dt > 0 && !math.IsNaN(x) {
			if len(pts) == 0 {
				pts = append(pts, cumPoint{t - dt, 0, 0})
			}
			c, k = c+x*dt, k+dt
		}
		pts = append(pts, cumPoint{t, c, k})
	}
	return pts
}

// cumAt interpolates the running integral linearly at t (clamped to the
// samples' span: nothing was counted outside it).
func cumAt(pts []cumPoint, t float64) (c, k float64) {
	n := len(pts)
	switch {
	case n == 0:
		return 0, 0
	case t <= pts[0].t:
		return pts[0].c, pts[0].k
	case t >= pts[n-1].t:
		return pts[n-1].c, pts[n-1].k
	}
	i := sort.Search(n, func(i int) bool { return pts[i].t >= t })
	a, b := pts[i-1], pts[i]
	f := (t - a.t) / (b.t - a.t)
	return a.c + f*(b.c-a.c), a.k + f*(b.k-a.k)
}

// integral integrates v over the window's seconds: counts between samples
// are interpolated linearly, so the monitors are read over exactly the
// seconds the client's kept intervals cover. covered is the seconds of
// the window with a value; ok is false when there are none.
//
// loadOnly says v counts only what the load does (a server's transaction
// counters): once the load's start is known (Window.LoadQuiet), nothing of
// it is counted before then (quietBefore), nor after the client's end
// (quietAfter).
func (s *series) integral(w Window, v func(row []string) float64, loadOnly bool) (sum, covered float64, ok bool) {
	pts := s.windowPoints(w, v, loadOnly)
	for _, sg := range w.Segs {
		c1, k1 := cumAt(pts, sg[0])
		c2, k2 := cumAt(pts, sg[1])
		sum, covered = sum+c2-c1, covered+k2-k1
	}
	return sum, covered, covered > 1e-9
}

// windowPoints is v's running integral as integral reads it over w: with
// the load's start and end as knots when v counts only the load.
func (s *series) windowPoints(w Window, v func(row []string) float64, loadOnly bool) []cumPoint {
	pts := s.cumulative(v)
	if loadOnly && s != nil && s.mysql && !s.applier && w.LoadQuiet {
		pts = quietBefore(pts, w.ClientOffsetS)
		if w.ClientEndS > w.ClientOffsetS {
			pts = quietAfter(pts, w.ClientEndS)
		}
	}
	return pts
}

// edgeError is what integral miscounts of a per-second rate column over w
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
func (s *series) edgeError(col string, w Window, shape func(a, b float64) (n, known float64)) float64 {
	pts := s.windowPoints(w, s.reader(col), true)
	var e float64
	for _, sg := range w.Segs {
		for _, t := range sg {
			i := sort.Search(len(pts), func(i int) bool { return pts[i].t >= t })
			if i == 0 || i == len(pts) || pts[i].t-t < 1e-9 {
				continue
			}
			a, b := pts[i-1], pts[i]
			if whole, known := shape(a.t, b.t); whole > 0 && known >= 0.99*(b.t-a.t) {
				part, _ := shape(a.t, t)
				e += math.Abs(part/whole-(t-a.t)/(b.t-a.t)) * (b.c - a.c)
			}
		}
	}
	return e
}

// reader is a row's value reader for one column.
func (s *series) reader(name string) func(row []string) float64 {
	return func(r []string) float64 { return s.value(r, name) }
}

// total integrates a per-second rate column over the window: what it
// counted, and the seconds that covers.
func (s *series) total(col string, w Window) (sum, secs float64, ok bool) {
	return s.integral(w, s.reader(col), strings.HasSuffix(col, "_ps") || strings.HasSuffix(col, "_bps"))
}

// quietBefore is pts with nothing counted before load time t: the sample
// that holds t gets a knot there at its start's count, so its count is
// spread over its part after t only. Without it, a window from the load's
// start read the master's first sample of the load as if its commits had
// begun with the sample, before the client did (1-2% of a 20 s window's
// commits on the lab, the client starting 0.4 s into that sample).
func quietBefore(pts []cumPoint, t float64) []cumPoint { return knotAt(pts, t, false) }

// quietAfter is pts with nothing counted after load time t: the sample
// that holds t gets a knot there at its end's count. The monitors' last
// sample is taken when orch sees the client end, 0.2-0.7 s after its last
// commit: spread over that sample, the load's last commits were read as
// partly after a window ending with the client (0.7% fewer master commits
// than client transactions over a 15 s window of a 16-thread lab run).
func quietAfter(pts []cumPoint, t float64) []cumPoint { return knotAt(pts, t, true) }

// knotAt puts a point at t inside the sample that holds it, with the
// sample's count at its end (atEnd) or start; its covered seconds stay
// linear.
func knotAt(pts []cumPoint, t float64, atEnd bool) []cumPoint {
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if a.t < t && t < b.t {
			c := a.c
			if atEnd {
				c = b.c
			}
			knot := cumPoint{t, c, a.k + (t-a.t)/(b.t-a.t)*(b.k-a.k)}
			return append(append(append(make([]cumPoint, 0, len(pts)+1), pts[:i]...), knot), pts[i:]...)
		}
	}
	return pts
}

// rate is a rate column over the window, time-weighted: what it counted
// over the seconds it covered (never a mean of per-sample rates, which
// over-weights short samples). NaN when no row had it.
func (s *series) rate(col string, w Window) float64 {
	sum, secs, ok := s.total(col, w)
	if !ok {
		return math.NaN()
	}
	return sum / secs
}

// mean is a gauge or share column's time-weighted mean over the window
// (each sample holds over its interval); NaN when no row had it.
func (s *series) mean(col string, w Window) float64 { return s.rate(col, w) }

// rowsIn calls f for each row sampled inside the window's seconds.
func (s *series) rowsIn(w Window, f func(t float64, row []string)) {
	if s == nil {
		return
	}
	for _, r := range s.rows {
		if t := s.value(r, "elapsed_s") - s.offset; w.covers(t) {
			f(t, r)
		}
	}
}

// last is the column's value at the window's last sample that has it
// (NaN when none).
func (s *series) last(col string, w Window) float64 {
	v := math.NaN()
	s.rowsIn(w, func(_ float64, r []string) {
		if x := s.value(r, col); !math.IsNaN(x) {
			v = x
		}
	})
	return v
}

// max is the column's largest value in the window (NaN when none).
func (s *series) max(col string, w Window) float64 {
	v := math.NaN()
	s.rowsIn(w, func(_ float64, r []string) { v = maxNaN(v, s.value(r, col)) })
	return v
}

// spread is the column's median and 90th percentile over the window's
// samples (NaN when none): a gauge such as a run queue spikes (10-18
// runnable for a second on the lab, 1-2 most seconds), and its mean
// reads as saturation the host mostly did not have.
func (s *series) spread(col string, w Window) (median, p90 float64) {
	var xs []float64
	s.rowsIn(w, func(_ float64, r []string) {
		if v := s.value(r, col); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	})
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(xs)
	return Median(xs), xs[int(math.Ceil(0.9*float64(len(xs))))-1]
}

// points is (load time, column) of the window's samples that have it.
func (s *series) points(col string, w Window) []Point {
	var out []Point
	s.rowsIn(w, func(t float64, r []string) {
		if v := s.value(r, col); !math.IsNaN(v) {
			out = append(out, Point{t, v})
		}
	})
	return out
}
