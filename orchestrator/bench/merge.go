package bench

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"time"
)

// ClientRun is the result of one load box's sysbench in a run that drove
// the cluster from several load boxes at once.
type ClientRun struct {
	Name string // the load box, as the inventory names it
	// Start is when this client's clock started (its interval timestamps
	// count from there): the common barrier release plus this client's own
	// delay in starting.
	Start  time.Time
	Result *Sysbench
}

// Merged is several clients' results seen as one benchmark.
//
// Throughput (tps, qps, counts) is summed. Latency percentiles come from
// the merged --histogram buckets, computed the way sysbench computes its
// own (nearest rank on the bucket grid); they are never averaged over
// clients, since the mean of percentiles is not a percentile of anything.
// Min and max are the clients' extremes, the average is weighted by events
// (total latency over total events). Per-client figures stay in Clients.
type Merged struct {
	// Sysbench holds the merged figures; its Intervals are not used (the
	// merged series is Merged.Intervals, which says who covered each slot).
	Sysbench
	// PercentileFrom says where LatencyMS.Pct comes from: "merged histogram",
	// or why it is missing (then Pct is unset).
	PercentileFrom string           `json:"percentile_from"`
	Intervals      []MergedInterval `json:"intervals"`
	// IntervalS is the report interval shared by every client; 0 when there
	// are no interval lines.
	IntervalS int64 `json:"interval_s"`
	// MaxSkewMS is the largest distance between a client's interval end and
	// the merged slot it was put in: how far apart the clients' clocks were.
	MaxSkewMS float64        `json:"max_skew_ms"`
	Clients   []ClientFigure `json:"clients"`
}

// MergedInterval is one slot of the merged time series: T seconds after the
// earliest client's start, summed over the clients that reported for it.
// LatMS is unset: an interval line has only one client's percentile, which
// cannot be merged (the per-client series keep it).
type MergedInterval struct {
	Interval
	Clients int `json:"clients"` // how many clients reported for this slot
	// Complete is true when every client reported for the slot; a sum over
	// fewer clients understates the throughput.
	Complete bool `json:"complete"`
}

// ClientFigure is one client's own result, beside the merged one.
type ClientFigure struct {
	Name string `json:"name"`
	// OffsetMS is how long after the earliest client this one started.
	OffsetMS float64   `json:"offset_ms"`
	Result   *Sysbench `json:"result"`
}

// MergeSysbench merges the results of clients that ran at the same time.
// It fails when they cannot be compared: different percentile ranks or
// report intervals, or no clients.
func MergeSysbench(runs []ClientRun) (*Merged, error) {
	if len(runs) == 0 {
		return nil, errors.New("merge: no client results")
	}
	origin := runs[0].Start
	for _, r := range runs {
		if r.Result == nil {
			return nil, fmt.Errorf("merge: %s: no result", r.Name)
		}
		if r.Start.Before(origin) {
			origin = r.Start
		}
	}
	m := &Merged{Sysbench: Sysbench{Tool: ToolSysbench, Version: runs[0].Result.Version, Complete: true, Percentile: -1}}
	var tps, qps, latSum []Number
	var min, max, dur []Number
	for _, r := range runs {
		res := r.Result
		if m.Percentile >= 0 && res.Percentile != m.Percentile {
			return nil, fmt.Errorf("merge: %s reports the %dth percentile, %s the %dth: run every client with the same --percentile",
				r.Name, res.Percentile, runs[0].Name, m.Percentile)
		}
		m.Percentile = res.Percentile
		if res.Version != m.Version {
			m.Version = "mixed"
		}
		m.Complete = m.Complete && res.Complete
		m.Threads += res.Threads
		m.RateLimited = m.RateLimited || res.RateLimited
		m.Events += res.Events
		m.Transactions += res.Transactions
		m.Queries += res.Queries
		m.Errors += res.Errors
		m.Reconnects += res.Reconnects
		tps, qps = append(tps, res.TPS), append(qps, res.QPS)
		latSum = append(latSum, res.LatencyMS.Sum)
		min, max = append(min, res.LatencyMS.Min), append(max, res.LatencyMS.Max)
		dur = append(dur, res.DurationS)
		m.Clients = append(m.Clients, ClientFigure{Name: r.Name, OffsetMS: ms(r.Start.Sub(origin)), Result: res})
	}
	m.TPS, m.QPS = sumNumbers(tps), sumNumbers(qps)
	m.DurationS = extreme(dur, 1) // the clients ran side by side: the longest is the run's
	m.LatencyMS = Latency{Min: extreme(min, -1), Max: extreme(max, 1), Sum: sumNumbers(latSum), Percentile: m.Percentile}
	if m.LatencyMS.Sum.IsSet() && m.Events > 0 {
		m.LatencyMS.Avg = formatFloat(m.LatencyMS.Sum.Float64()/float64(m.Events), 2)
	}
	m.mergeHistograms(runs)
	if err := m.mergeIntervals(runs, origin); err != nil {
		return nil, err
	}
	return m, nil
}

// mergeHistograms adds the clients' buckets and takes the percentile from
// the sum. sysbench's bucket grid is fixed (exp(i/mult+deduct), printed
// %.3f), so equal printed values are the same bucket on every client.
func (m *Merged) mergeHistograms(runs []ClientRun) {
	var missing []string
	counts := map[string]int64{}
	values := map[string]Number{}
	for _, r := range runs {
		if len(r.Result.Histogram) == 0 {
			missing = append(missing, r.Name)
			continue
		}
		for _, row := range r.Result.Histogram {
			counts[row.ValueMS.String()] += row.Count
			values[row.ValueMS.String()] = row.ValueMS
		}
	}
	switch {
	case m.Percentile == 0:
		m.PercentileFrom = "not reported (--percentile=0)"
		return
	case len(missing) > 0:
		m.PercentileFrom = "not computed: no --histogram output from " + strings.Join(missing, ", ")
		return
	}
	for k, c := range counts {
		m.Histogram = append(m.Histogram, HistogramRow{ValueMS: values[k], Count: c})
	}
	sort.Slice(m.Histogram, func(i, j int) bool { return m.Histogram[i].ValueMS.Float64() < m.Histogram[j].ValueMS.Float64() })
	m.LatencyMS.Pct, _ = HistogramPercentile(m.Histogram, float64(m.Percentile))
	m.PercentileFrom = "merged histogram"
}

// HistogramPercentile returns the p-th percentile of a latency histogram
// the way sysbench computes the one it prints (sb_histogram_snapshot_get_pct):
// the value of the first bucket at which the cumulative count reaches
// floor(total*p/100 + 0.5). Rows must be sorted by value. It reports false
// for an empty histogram.
func HistogramPercentile(rows []HistogramRow, p float64) (Number, bool) {
	var total int64
	for _, r := range rows {
		total += r.Count
	}
	if total == 0 {
		return Number{}, false
	}
	rank := int64(math.Floor(float64(total)*p/100 + 0.5))
	var cum int64
	for _, r := range rows {
		cum += r.Count
		if cum >= rank {
			return r.ValueMS, true
		}
	}
	return rows[len(rows)-1].ValueMS, true
}

// mergeIntervals puts every client's interval lines on one time grid: an
// interval ending at Start+T goes to the slot whose end is nearest, counted
// from the earliest start. Aligning by line number instead would add up
// different seconds whenever a client started late or skipped a report.
func (m *Merged) mergeIntervals(runs []ClientRun, origin time.Time) error {
	period, err := reportInterval(runs)
	if err != nil || period == 0 {
		m.Intervals = []MergedInterval{}
		return err
	}
	m.IntervalS = period
	step := time.Duration(period) * time.Second
	type slot struct {
		clients    int
		threads    int64
		tps, qps   []Number
		r, w, o    []Number
		err, recon []Number
	}
	slots := map[int64]*slot{}
	for _, r := range runs {
		seen := map[int64]bool{}
		for _, iv := range r.Result.Intervals {
			end := r.Start.Add(time.Duration(iv.T) * time.Second).Sub(origin)
			k := int64(math.Round(float64(end) / float64(step)))
			m.MaxSkewMS = math.Max(m.MaxSkewMS, math.Abs(ms(end-time.Duration(k)*step)))
			if seen[k] {
				return fmt.Errorf("merge: %s: two interval lines fall in the slot ending at %ds: its clock is off by half an interval", r.Name, k*period)
			}
			seen[k] = true
			s := slots[k]
			if s == nil {
				s = &slot{}
				slots[k] = s
			}
			s.clients++
			s.threads += iv.Threads
			s.tps, s.qps = append(s.tps, iv.TPS), append(s.qps, iv.QPS)
			s.r, s.w, s.o = append(s.r, iv.Reads), append(s.w, iv.Writes), append(s.o, iv.Others)
			s.err, s.recon = append(s.err, iv.Errors), append(s.recon, iv.Reconnects)
		}
	}
	keys := make([]int64, 0, len(slots))
	for k := range slots {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	m.Intervals = make([]MergedInterval, 0, len(keys))
	for _, k := range keys {
		s := slots[k]
		m.Intervals = append(m.Intervals, MergedInterval{Clients: s.clients, Complete: s.clients == len(runs), Interval: Interval{
			T: k * period, Threads: s.threads,
			TPS: sumNumbers(s.tps), QPS: sumNumbers(s.qps), Reads: sumNumbers(s.r), Writes: sumNumbers(s.w),
			Others: sumNumbers(s.o), Errors: sumNumbers(s.err), Reconnects: sumNumbers(s.recon),
		}})
	}
	return nil
}

// reportInterval is the clients' common --report-interval, read from the
// first two timestamps of each client that has them.
func reportInterval(runs []ClientRun) (int64, error) {
	var period int64
	var from string
	for _, r := range runs {
		iv := r.Result.Intervals
		if len(iv) < 2 {
			continue
		}
		p := iv[1].T - iv[0].T
		if period != 0 && p != period {
			return 0, fmt.Errorf("merge: %s reports every %ds, %s every %ds: run every client with the same --report-interval", r.Name, p, from, period)
		}
		period, from = p, r.Name
	}
	if period == 0 {
		for _, r := range runs {
			if len(r.Result.Intervals) == 1 {
				period = r.Result.Intervals[0].T // one line: it ends the first interval
			}
		}
	}
	return period, nil
}

// sumNumbers adds printed decimals exactly, keeping the most decimals any
// of them had. It is unset when any of them is (a sum that misses a client
// is not the total).
func sumNumbers(ns []Number) Number {
	if len(ns) == 0 {
		return Number{}
	}
	sum, places := new(big.Rat), 0
	for _, n := range ns {
		if !n.IsSet() {
			return Number{}
		}
		r, ok := new(big.Rat).SetString(n.text)
		if !ok {
			return Number{}
		}
		sum.Add(sum, r)
		if _, frac, ok := strings.Cut(n.text, "."); ok {
			places = max(places, len(frac))
		}
	}
	return Number{text: sum.FloatString(places)}
}

// extreme returns the smallest (sign -1) or largest (sign 1) set number.
func extreme(ns []Number, sign float64) Number {
	var best Number
	for _, n := range ns {
		if n.IsSet() && (!best.IsSet() || sign*(n.Float64()-best.Float64()) > 0) {
			best = n
		}
	}
	return best
}

// formatFloat prints a computed value with a fixed number of decimals.
func formatFloat(v float64, places int) Number {
	s := new(big.Float).SetFloat64(v).Text('f', places)
	if s == "-0" || strings.HasPrefix(s, "-0.") && strings.Trim(s[3:], "0") == "" {
		s = s[1:]
	}
	return Number{text: s}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// SumIntervals adds the interval lines several clients printed for the
// same report: a live display's figure (the result's series is
// MergeSysbench's, aligned by time). The latency of several is unset:
// percentiles do not add up; one client's report is returned whole.
func SumIntervals(ivs []Interval) Interval {
	if len(ivs) == 1 {
		return ivs[0] // one client's report is the sum, latency and all
	}
	var out Interval
	var tps, qps, errs []Number
	for _, iv := range ivs {
		out.T = max(out.T, iv.T)
		out.Threads += iv.Threads
		tps, qps, errs = append(tps, iv.TPS), append(qps, iv.QPS), append(errs, iv.Errors)
	}
	out.TPS, out.QPS, out.Errors = sumNumbers(tps), sumNumbers(qps), sumNumbers(errs)
	return out
}
