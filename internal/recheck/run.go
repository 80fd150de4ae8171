package recheck

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// span is a stretch of load seconds an instrument touched.
type span struct{ from, to float64 }

// run is one cell recomputed from its raw files.
type run struct {
	id, label string
	// cluster and round: the run's block in the matrix's design.
	cluster    string
	round      int
	roles      map[string]string // host -> master, slave, loadbox
	client     []clientLine
	total      float64
	spans      []span
	mysql, os  map[string]*table
	offset     float64        // the load's start on the monitors' clock
	catchUp    float64        // slowest slave, seconds (NaN: not waited for)
	slavesDone []slaveCatchUp // results.json's catch_up, per slave

	delta float64 // the client's clock shift onto load seconds
	// loadOnly: the servers' transaction counters moved only from the
	// client's start (delta) to its end (delta + total), as the report
	// states when it read the shift from the load's start.
	loadOnly bool
	// fromStart: delta was read from the load's start (startShift);
	// stated and statedFromStart are the report's shift and how it got it
	// (why.json), compared with delta, never used for a figure.
	fromStart, statedFromStart bool
	stated                     float64
	kept                       [][2]float64 // the window's seconds, load clock
	series                     [][2]float64 // the window's intervals: client second, rate
	steady                     float64
	winLat                     float64 // mean of the kept intervals' percentile latency, ms
	// winLatAvg: the kept intervals' threads over their tps, ms.
	winLatAvg float64
	// Replicas table figures.
	master, apply, lagEnd, lagGrowth, windowS, sustained float64
	// costs: host -> per-transaction figure (why.json names) of the window.
	costs map[string]map[string]float64
}

// loadRun reads a cell's raw files; warm is the warm-up (client seconds).
func loadRun(dir, id, label string, warm float64, writes bool, shift float64, fromStart bool) (*run, error) {
	r := &run{id: id, label: label, roles: map[string]string{}, mysql: map[string]*table{}, os: map[string]*table{}, catchUp: math.NaN()}
	var man manifestFile
	if err := readJSONFile(join(dir, "manifest.json"), &man); err != nil {
		return nil, err
	}
	var res resultsFile
	if err := readJSONFile(join(dir, "results.json"), &res); err != nil {
		return nil, err
	}
	evs, err := readEvents(join(dir, "events.jsonl"))
	if err != nil {
		return nil, err
	}
	var zero, loadStart, loadEnd time.Time
	if res.Monitor != nil {
		zero = res.Monitor.Start
	}
	open := map[string]time.Time{}
	var stacks [][2]time.Time
	for _, e := range evs {
		switch e.Kind {
		case "monitor_start":
			if zero.IsZero() {
				zero = e.T
			}
		case "load_start":
			loadStart = e.T
		case "load_end":
			loadEnd = e.T
		case "stacks_start":
			open[e.Host] = e.T
		case "stacks_end":
			if t0, ok := open[e.Host]; ok {
				stacks = append(stacks, [2]time.Time{t0, e.T})
				delete(open, e.Host)
			}
		}
	}
	if loadStart.IsZero() {
		loadStart = zero
	}
	r.offset = loadStart.Sub(zero).Seconds()
	for _, s := range stacks {
		if !loadEnd.IsZero() && !s[0].Before(loadEnd) {
			continue // a profiling tail after the load
		}
		r.spans = append(r.spans, span{s[0].Sub(loadStart).Seconds(), s[1].Sub(loadStart).Seconds()})
	}
	for _, h := range man.Inventory.Hosts {
		r.roles[h.Name] = h.Role
		if r.mysql[h.Name], err = readTable(join(dir, "timeseries", h.Name+"-mysql.csv")); err != nil {
			return nil, err
		}
		if r.os[h.Name], err = readTable(join(dir, "timeseries", h.Name+"-os.csv")); err != nil {
			return nil, err
		}
	}
	if res.CatchUp != nil {
		r.catchUp, r.slavesDone = 0, res.CatchUp.Slaves
		for _, s := range res.CatchUp.Slaves {
			ns := s.WaitedNS
			if s.CatchUpNS != nil {
				ns = *s.CatchUpNS
			}
			r.catchUp = math.Max(r.catchUp, float64(ns)/1e9)
		}
	}
	if r.client, r.total, err = readClient(join(dir, "benchmark", "run.txt")); err != nil {
		return nil, err
	}
	if len(r.client) == 0 {
		return nil, fmt.Errorf("%s: no interval lines in benchmark/run.txt", id)
	}
	r.compute(warm, writes, shift, fromStart)
	return r, nil
}

// counter is a host's transaction counter (gtid_pos) at load seconds.
func (r *run) counter(host string) [][2]float64 {
	tb := r.mysql[host]
	if tb == nil {
		return nil
	}
	var out [][2]float64
	for _, row := range tb.rows {
		t, ok1 := tb.get(row, "elapsed_s")
		seq, ok2 := gtidSeq(row[tb.idx["gtid_pos"]])
		if ok1 && ok2 {
			out = append(out, [2]float64{t - r.offset, seq})
		}
	}
	return out
}

// inLoad is counter c of a server whose transactions were the load's
// alone, from load second from to to: the sample that straddles either
// counted them all inside, so it gets a point there at its own value
// (its value at its start for from, at its end for to).
func inLoad(c [][2]float64, from, to float64) [][2]float64 {
	var out [][2]float64
	for i, p := range c {
		if i > 0 {
			prev := c[i-1]
			if prev[0] < from && from < p[0] {
				out = append(out, [2]float64{from, prev[1]})
			}
			if prev[0] < to && to < p[0] {
				out = append(out, [2]float64{to, p[1]})
			}
		}
		out = append(out, p)
	}
	return out
}

// at interpolates a counter linearly (clamped to its samples).
func at(c [][2]float64, t float64) float64 {
	n := len(c)
	switch {
	case n == 0:
		return math.NaN()
	case t <= c[0][0]:
		return c[0][1]
	case t >= c[n-1][0]:
		return c[n-1][1]
	}
	i := sort.Search(n, func(i int) bool { return c[i][0] >= t })
	f := (t - c[i-1][0]) / (c[i][0] - c[i-1][0])
	return c[i-1][1] + f*(c[i][1]-c[i-1][1])
}

func (r *run) masterHost() string {
	for h, role := range r.roles {
		if role == "master" {
			return h
		}
	}
	return "master"
}

// compute finds the clock shift, the window's seconds and the figures.
// The shift is this package's own, from the raw series (never the
// report's, which Matrix compares with it): read from the load's start
// when the master's counter allows (startShift), else the least-squares
// search below.
func (r *run) compute(warm float64, writes bool, stated float64, fromStart bool) {
	step := 1.0 // --report-interval=1
	master := r.counter(r.masterHost())
	r.stated, r.statedFromStart = stated, fromStart
	if d, ok := r.startShift(master); ok {
		r.delta, r.fromStart = d, true
		r.loadOnly = r.total > 0
	} else {
		r.delta = r.fitShift(master, step)
	}
	last := r.client[len(r.client)-1].t
	var sum, lat, threads, tps float64
	nLat := 0
	for _, l := range r.client {
		a, b := l.t-step+r.delta, l.t+r.delta
		if l.t <= warm || l.t > last || r.touches(a, b) {
			continue
		}
		r.kept = append(r.kept, [2]float64{a, b})
		v := l.tps
		if writes {
			v = l.writes
		}
		sum += v
		r.series = append(r.series, [2]float64{l.t, v})
		threads, tps = threads+l.threads, tps+l.tps
		if !math.IsNaN(l.lat) {
			lat += l.lat
			nLat++
		}
	}
	r.winLat, r.winLatAvg = math.NaN(), math.NaN()
	if nLat > 0 {
		r.winLat = lat / float64(nLat)
	}
	if tps > 0 {
		// Closed loop (the lab's runs set no --rate): every thread has
		// one transaction in flight, so threads / rate is the mean latency.
		r.winLatAvg = 1000 * threads / tps
	}
	r.windowS = float64(len(r.kept)) * step
	r.steady = sum / float64(len(r.kept))
	r.costs = map[string]map[string]float64{}
	r.apply, r.lagEnd = math.NaN(), math.Inf(-1)
	// Hosts in name order: the slave furthest behind is chosen the same
	// way whatever order the map gives.
	hosts := make([]string, 0, len(r.roles))
	for h := range r.roles {
		hosts = append(hosts, h)
	}
	sort.Strings(hosts)
	worst := ""
	for _, h := range hosts {
		role := r.roles[h]
		if role == "loadbox" || r.mysql[h] == nil {
			continue
		}
		c := r.hostCosts(h)
		r.costs[h] = c
		switch role {
		case "master":
			r.master = c["host_tx_per_s"]
		case "slave":
			if math.IsNaN(r.apply) || c["host_tx_per_s"] < r.apply {
				r.apply = c["host_tx_per_s"]
			}
			// Furthest behind at the window's end; on a tie (both caught
			// up), the one whose lag grew fastest; on a tie of both, the
			// first by name (hosts are in name order).
			if lag, slope, ok := r.lag(h); ok {
				fasterGrowth := !math.IsNaN(slope) && (math.IsNaN(r.lagGrowth) || slope > r.lagGrowth)
				if worst == "" || lag > r.lagEnd || lag == r.lagEnd && fasterGrowth {
					r.lagEnd, r.lagGrowth, worst = lag, slope, h
				}
			}
		}
	}
	r.sustained = r.steady * r.windowS / (r.windowS + r.catchUp)
}

// fitShift is the shift, searched by brute force over -1..3 s by
// 0.01 s, for which the master's commits in each client interval (its
// counter interpolated) best match the client's transactions (least
// squares).
func (r *run) fitShift(master [][2]float64, step float64) float64 {
	best, delta := math.Inf(1), 0.0
	for i := -100; i <= 300; i++ {
		d := float64(i) / 100
		sse, n := 0.0, 0
		for _, l := range r.client {
			a, b := l.t-step+d, l.t+d
			if len(master) < 2 || a < master[0][0] || b > master[len(master)-1][0] {
				continue
			}
			e := l.tps*step - (at(master, b) - at(master, a))
			sse += e * e
			n++
		}
		if n >= 5 && sse/float64(n) < best {
			best, delta = sse/float64(n), d
		}
	}
	return delta
}

// startShift reads the shift from the load's start: the master's counter
// starts before the client does, so the client's running total at the
// end of its k-th interval (second k of its clock) is reached on the
// master at k + d. Each interval end up to the master's second-to-last
// sample (the last one holds the load's end and idle time) is one
// reading; the shift is their median, when there are at least two and
// their middle half lies within 0.1 s (they drift apart when the master
// commits more or fewer transactions than the client counts).
func (r *run) startShift(master [][2]float64) (float64, bool) {
	if len(master) < 3 {
		return 0, false
	}
	var reads []float64
	total := 0.0
	for k, l := range r.client {
		if math.Abs(l.t-float64(k+1)) > 0.01 {
			break // a gap: the running total is no longer the client's
		}
		total += l.tps
		t, ok := reach(master, master[0][1]+total)
		if !ok || t > master[len(master)-2][0] {
			break
		}
		reads = append(reads, t-l.t)
	}
	if len(reads) < 2 {
		return 0, false
	}
	sort.Float64s(reads)
	n := len(reads)
	mid := reads[n/2]
	if n%2 == 0 {
		mid = (reads[n/2-1] + reads[n/2]) / 2
	}
	if reads[(3*n)/4]-reads[n/4] > 0.1 || mid < master[0][0] || mid < -1 || mid > 3 {
		return 0, false
	}
	return math.Round(mid*100) / 100, true
}

// reach is when counter c first reaches v, interpolated linearly.
func reach(c [][2]float64, v float64) (float64, bool) {
	for i := 1; i < len(c); i++ {
		if c[i][1] >= v && c[i][1] > c[i-1][1] {
			if v <= c[i-1][1] {
				return c[i-1][0], true
			}
			return c[i-1][0] + (v-c[i-1][1])/(c[i][1]-c[i-1][1])*(c[i][0]-c[i-1][0]), true
		}
	}
	return 0, false
}

func (r *run) touches(a, b float64) bool {
	for _, s := range r.spans {
		if a < s.to && b > s.from {
			return true
		}
	}
	return false
}

// inKept reports whether load time t is inside the window's seconds.
func (r *run) inKept(t float64) bool {
	for _, k := range r.kept {
		if t > k[0] && t <= k[1] {
			return true
		}
	}
	return false
}

// overlap integrates a per-second column of tb over the window's seconds:
// each row's value holds over (t - interval_s, t], or, for a server's
// transaction counters (load) when r.loadOnly, over its part inside the
// load.
func (r *run) overlap(tb *table, value func(row []string) (float64, bool), load bool) float64 {
	if tb == nil {
		return math.NaN()
	}
	sum, any := 0.0, false
	for _, row := range tb.rows {
		t, ok1 := tb.get(row, "elapsed_s")
		dt, ok2 := tb.get(row, "interval_s")
		v, ok3 := value(row)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		t -= r.offset
		from := t - dt
		if load && r.loadOnly {
			// The row's count happened inside the load: spread over its
			// part of the row's seconds.
			lo, hi := math.Max(from, r.delta), math.Min(t, r.delta+r.total)
			if hi <= lo {
				continue
			}
			v, from, t = v*dt/(hi-lo), lo, hi
		}
		for _, k := range r.kept {
			if o := math.Min(t, k[1]) - math.Max(from, k[0]); o > 0 {
				sum += v * o
				any = true
			}
		}
	}
	if !any {
		return math.NaN()
	}
	return sum
}

func col(tb *table, names ...string) func(row []string) (float64, bool) {
	return func(row []string) (float64, bool) {
		sum, any := 0.0, false
		for _, n := range names {
			if v, ok := tb.get(row, n); ok {
				sum += v
				any = true
			}
		}
		return sum, any
	}
}

// hostCosts is a host's transactions per second and per-transaction
// costs over the window. The rate is the counter's growth over the
// window's seconds its samples cover, divided by those seconds: where the
// monitor's samples stop before the window does (its last sample a
// fraction of a second before the client's last interval ends, more on a
// loaded machine), a clamped counter would count no transactions there
// and understate the rate by that fraction.
func (r *run) hostCosts(h string) map[string]float64 {
	c := r.counter(h)
	// Only the master's counts are the load's alone: a slave goes on
	// applying its backlog after the load, and those are not the load's.
	master := r.roles[h] == "master"
	if r.loadOnly && master {
		c = inLoad(c, r.delta, r.delta+r.total)
	}
	tx, secs := 0.0, 0.0
	if n := len(c); n > 0 {
		for _, k := range r.kept {
			lo, hi := math.Max(k[0], c[0][0]), math.Min(k[1], c[n-1][0])
			if hi > lo {
				tx += at(c, hi) - at(c, lo)
				secs += hi - lo
			}
		}
	}
	my, osr := r.mysql[h], r.os[h]
	out := map[string]float64{"host_tx_per_s": tx / secs}
	per := func(tb *table, scale float64, names ...string) float64 {
		if tb == nil {
			return math.NaN()
		}
		return r.overlap(tb, col(tb, names...), tb == my && master) * scale / tx
	}
	out["fsync_per_tx"] = per(my, 1, "innodb_data_fsyncs_ps", "rocksdb_wal_synced_ps", "tokudb_fsyncs_ps")
	out["binlog_bytes_per_tx"] = per(my, 1, "binlog_bytes_written_bps")
	out["binlog_groups_per_tx"] = per(my, 1, "binlog_group_commits_ps")
	out["cpu_us_per_tx"] = per(osr, 1, "server_cpu_us_ps")
	out["cs_per_tx"] = per(osr, 1, "server_cs_ps", "server_vcs_ps", "server_ivcs_ps") // the latter two in older runs
	out["write_kib_per_tx"] = per(osr, 1.0/1024, "server_write_bps")
	return out
}

// lag is a slave's lag at the window's last sample and its least-squares
// slope over the window's samples: the master's counter interpolated at
// each of the slave's sample times less the slave's own (never the
// monitor's lag_tx, read against the master's latest sample).
func (r *run) lag(h string) (end, slope float64, ok bool) {
	tb := r.mysql[h]
	master := r.counter(r.masterHost())
	var sx, sy, sxx, sxy, n float64
	for _, row := range tb.rows {
		t, ok1 := tb.get(row, "elapsed_s")
		seq, ok2 := gtidSeq(row[tb.idx["gtid_pos"]])
		if !ok1 || !ok2 || !r.inKept(t-r.offset) || len(master) == 0 {
			continue
		}
		t -= r.offset
		v := math.Max(0, at(master, t)-seq)
		end, ok = v, true
		sx, sy, sxx, sxy, n = sx+t, sy+v, sxx+t*t, sxy+t*v, n+1
	}
	if slope = math.NaN(); n >= 3 { // as the report: no slope from fewer than 3 samples
		slope = (n*sxy - sx*sy) / (n*sxx - sx*sx)
	}
	return end, slope, ok
}
