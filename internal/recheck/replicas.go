package recheck

import (
	"math"
	"sort"
)

// Whether replicas kept up, judged run by run as docs/reports.md states
// it, recomputed from the raw series: each slave's lag at its own samples
// (the master's gtid_pos counter interpolated at the slave's sample time,
// less the slave's), over the window's seconds. A run fell behind when a
// slave's lag grew by more than 5% of the master's rate over the window's
// last 5 s to more than the master commits in 10% of the window, a slave
// never caught up, or catch-up took more than 10% of the window.
const (
	lagGrowthShare = 0.05 // of the master's rate
	catchUpShare   = 0.10 // of the window
	endTrendS      = 5.0  // the window's last seconds the trend is read over
	// backlogShare: a slave whose lag fell through the window by more than
	// this share of the master's rate applied a backlog from before it.
	backlogShare = 0.02
)

// replicaRun is one run's replicas judged.
type replicaRun struct {
	r                    *run
	has                  bool
	endSlope, endLag     float64 // the steepest (or behind) slave's
	endBehind            bool
	peak, peakAt, peakFr float64
	peakHost             string
	notCaughtUp, atFirst bool
	keptUp, backlog      bool
}

// slaveLag is a slave's lag at its samples inside the window: (load
// second, transactions).
func (r *run) slaveLag(h string, master [][2]float64) [][2]float64 {
	tb := r.mysql[h]
	if tb == nil || len(master) == 0 {
		return nil
	}
	var out [][2]float64
	for _, row := range tb.rows {
		t, ok := tb.get(row, "elapsed_s")
		i, has := tb.idx["gtid_pos"]
		if !ok || !has || i >= len(row) {
			continue
		}
		seq, ok := gtidSeq(row[i])
		if t -= r.offset; !ok || !r.inKept(t) {
			continue
		}
		out = append(out, [2]float64{t, math.Max(0, at(master, t)-seq)})
	}
	return out
}

// lsSlope is the least-squares slope of the points; NaN with fewer than 3.
func lsSlope(ps [][2]float64) float64 {
	var sx, sy, sxx, sxy, n float64
	for _, p := range ps {
		sx, sy, sxx, sxy, n = sx+p[0], sy+p[1], sxx+p[0]*p[0], sxy+p[0]*p[1], n+1
	}
	d := n*sxx - sx*sx
	if n < 3 || d == 0 {
		return math.NaN()
	}
	return (n*sxy - sx*sy) / d
}

// judgeReplicas judges one run's replicas.
func (r *run) judgeReplicas() replicaRun {
	j := replicaRun{r: r, endSlope: math.NaN(), endLag: math.NaN(), peak: math.NaN(), atFirst: true}
	var slaves []string
	for h, role := range r.roles {
		if role == "slave" && r.mysql[h] != nil {
			slaves = append(slaves, h)
		}
	}
	sort.Strings(slaves)
	master := r.counter(r.masterHost())
	for _, h := range slaves {
		j.has = true
		pts := r.slaveLag(h, master)
		if len(pts) == 0 {
			continue
		}
		end := pts[len(pts)-1]
		var tail [][2]float64
		for _, p := range pts {
			if p[0] >= end[0]-endTrendS {
				tail = append(tail, p)
			}
		}
		s := lsSlope(tail)
		behind := s > lagGrowthShare*r.master && end[1] > catchUpShare*r.windowS*r.master
		if !math.IsNaN(s) && (behind && !j.endBehind || behind == j.endBehind && (math.IsNaN(j.endSlope) || s > j.endSlope)) {
			j.endSlope, j.endLag, j.endBehind = s, end[1], behind
		}
		k := 0
		for i, p := range pts {
			if p[1] > pts[k][1] {
				k = i
			}
		}
		if !math.IsNaN(j.peak) && pts[k][1] <= j.peak {
			continue
		}
		from := pts[0][0]
		for i := k - 1; i >= 0; i-- {
			if pts[i][1] <= pts[k][1]/10 {
				from = pts[i][0]
				break
			}
		}
		j.peak, j.peakAt, j.peakFr, j.peakHost = pts[k][1], pts[k][0], from, h
	}
	for _, s := range r.slavesDone {
		j.notCaughtUp = j.notCaughtUp || !s.CaughtUp
		j.atFirst = j.atFirst && s.BehindTx != nil && *s.BehindTx == 0
	}
	if len(r.slavesDone) == 0 {
		j.atFirst = false
	}
	j.keptUp = !j.notCaughtUp && !j.endBehind && !(r.catchUp > catchUpShare*r.windowS)
	j.backlog = r.lagGrowth < -backlogShare*r.master && !math.IsNaN(r.lagEnd) && !math.IsInf(r.lagEnd, 0)
	return j
}

// replicaRuns is a configuration's runs judged.
type replicaRuns struct {
	n, behind, backlog   int
	worst, peak          *replicaRun
	maxCatchUp           float64
	notCaughtUp, atFirst bool
}

// judgeRuns sums up the runs (in the matrix's order) with replicas.
func judgeRuns(rs []*run) replicaRuns {
	out := replicaRuns{maxCatchUp: math.NaN(), atFirst: true}
	for _, r := range rs {
		j := r.judgeReplicas()
		if !j.has {
			continue
		}
		out.n++
		if !math.IsNaN(r.catchUp) && !(r.catchUp <= out.maxCatchUp) {
			out.maxCatchUp = r.catchUp
		}
		out.notCaughtUp = out.notCaughtUp || j.notCaughtUp
		out.atFirst = out.atFirst && j.atFirst
		if j.backlog {
			out.backlog++
		}
		if j.peakHost != "" && !math.IsNaN(j.peak) && (out.peak == nil || j.peak > out.peak.peak) {
			out.peak = &j
		}
		if j.keptUp {
			continue
		}
		out.behind++
		if out.worst == nil || worse(j, *out.worst) {
			jj := j
			out.worst = &jj
		}
	}
	return out
}

// worse: never caught up first, then behind at the end, then the steeper
// end slope, then the longer catch-up.
func worse(a, b replicaRun) bool {
	if a.notCaughtUp != b.notCaughtUp {
		return a.notCaughtUp
	}
	if a.endBehind != b.endBehind {
		return a.endBehind
	}
	or := func(v, d float64) float64 {
		if math.IsNaN(v) {
			return d
		}
		return v
	}
	if x, y := or(a.endSlope, math.Inf(-1)), or(b.endSlope, math.Inf(-1)); x != y {
		return x > y
	}
	return or(a.r.catchUp, 0) > or(b.r.catchUp, 0)
}
