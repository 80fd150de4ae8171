package recheck

import (
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerance is how far a recomputed figure may be from the report's.
const Tolerance = 0.01

// Result is a recomputation: how many figures were compared and those
// that differ beyond Tolerance.
type Result struct {
	Compared int
	Problems []string
	// Steady and Master are each run's recomputed client and master rates.
	Steady, Master map[string]float64
	// Uncovered are the head's and verdicts' figures no recomputation
	// covers (head.go), with their line.
	Uncovered []string
	// Shifts say, per run, the client clock shift this package found and
	// the report's.
	Shifts []string
	// NotRecomputed are figures of those lines not recomputed, each with
	// why: the report's own checks rather than figures of the runs (its
	// invariant flags' count), and decisions a simulated critical value
	// cannot make (a statistic within its simulation error: the report's
	// answer taken, statistic and band given).
	NotRecomputed []string
	// Lines counts the head and verdict lines read.
	Lines       int
	comparisons map[string]*comparison
	cvs         map[string]float64     // label -> run-to-run CV of its steady rates
	until       *until                 // matrix.json's stopping rule (nil: none)
	phases      map[string]*phases     // label -> its steady-state test (steady.go)
	replicas    map[string]replicaRuns // label -> its runs' replicas judged (replicas.go)
	levels      map[string][3]float64  // label -> mean, sd, n of its steady rates
	steady      steadyChecks
}

func (res *Result) near(what string, report string, want, slack float64) {
	got, err := strconv.ParseFloat(report, 64)
	res.Compared++
	switch {
	case report == "" && math.IsNaN(want):
	case err != nil:
		res.Problems = append(res.Problems, fmt.Sprintf("%s: report says %q, recomputed %.6g", what, report, want))
	case math.Abs(got-want) > Tolerance*math.Max(math.Abs(got), math.Abs(want))+slack:
		res.Problems = append(res.Problems, fmt.Sprintf("%s: report %.6g, recomputed %.6g", what, got, want))
	}
}

// Matrix recomputes the report of a matrix directory (results.csv and
// why.json in out, as orch report wrote them) from its cells' raw files.
func Matrix(dir, out string) (*Result, error) {
	var m matrixFile
	if err := readJSONFile(join(dir, "matrix.json"), &m); err != nil {
		return nil, err
	}
	rows, err := readCSVFile(join(out, "results.csv"))
	if err != nil {
		return nil, err
	}
	var why whyFile
	if err := readJSONFile(join(out, "why.json"), &why); err != nil {
		return nil, err
	}
	res := &Result{Steady: map[string]float64{}, Master: map[string]float64{}, comparisons: map[string]*comparison{}, cvs: map[string]float64{}, until: m.Until,
		phases: map[string]*phases{}, steady: steadyChecks{seen: map[string]bool{}}, replicas: map[string]replicaRuns{}, levels: map[string][3]float64{}}
	if m.Until != nil {
		for _, c := range m.Cells {
			if c.State == "skipped" {
				m.Until.skipped++
			}
		}
	}
	byRun := map[string]map[string]string{}
	for _, row := range rows {
		byRun[row["run"]] = row // results.csv has one row per run
	}
	runs := map[string][]*run{}
	var labels []string
	for _, c := range m.Cells {
		row := byRun[c.ID]
		if row == nil || row["in_statistics"] != "true" {
			continue
		}
		warm := 0.0
		if m.WarmupS != nil {
			warm = *m.WarmupS
		} else if warm, err = strconv.ParseFloat(row["warmup_s"], 64); err != nil {
			return nil, fmt.Errorf("%s: warmup_s %q", c.ID, row["warmup_s"])
		}
		shift, fromStart := why.clientShift(c.ID)
		r, err := loadRun(join(dir, c.Dir), c.ID, c.Label, warm, row["metric"] == "writes/s", shift, fromStart)
		if err != nil {
			return nil, err
		}
		if _, ok := runs[c.Label]; !ok {
			labels = append(labels, c.Label)
		}
		r.cluster, r.round = m.clusterOf(c.ID), c.Rep
		runs[c.Label] = append(runs[c.Label], r)
		res.Steady[c.ID], res.Master[c.ID] = r.steady, r.master
		res.checkRun(r, row, why.runHosts(c.ID))
	}
	base := m.Baseline
	if base == "" && len(labels) > 0 {
		base = labels[0]
	}
	// The analysis is the design's (a matrix runs in rounds: blocked)
	// unless matrix.json pre-registered the other.
	blocked := m.Analysis != "unpaired"
	for _, l := range labels {
		res.checkGroup(l, runs[l], runs[base], l == base, blocked, byLabel(rows, l), why.groupHosts(l))
		res.phases[l] = testPhases(l, runs[l])
		res.replicas[l] = judgeRuns(runs[l])
		res.checkSteadyCSV(res.phases[l], byRun, byLabel(rows, l))
	}
	md, err := os.ReadFile(join(out, "report.md"))
	if err != nil {
		return nil, fmt.Errorf("the head and verdict lines: %w", err)
	}
	res.checkLines(string(md), base, labels)
	return res, nil
}

// checkRun compares one run's row of results.csv and its why.json hosts.
func (res *Result) checkRun(r *run, row map[string]string, hosts map[string]map[string]any) {
	id := r.id + " "
	how := map[bool]string{true: "from the load's start", false: "by least squares"}
	res.Shifts = append(res.Shifts, fmt.Sprintf("%s: own %.2f s (%s), report %.2f s (%s)", r.id, r.delta, how[r.fromStart], r.stated, how[r.statedFromStart]))
	if !math.IsNaN(r.stated) {
		// Two alignments of one run agree to 0.02 s (two of their steps),
		// or the window's seconds differ and so may every figure.
		res.near(id+"client clock shift s (own alignment vs the report's)", strconv.FormatFloat(r.stated, 'f', -1, 64), r.delta, 0.02)
	}
	res.near(id+"steady", row["steady_metric"], r.steady, 0)
	res.near(id+"master tx/s (Replicas)", row["master_tx_per_s"], r.master, 0)
	res.near(id+"applied tx/s", row["replica_apply_tx_per_s"], r.apply, 0)
	// Lag figures near 0 are compared on the scale of the master's rate.
	res.near(id+"lag at end tx", row["lag_end_tx"], r.lagEnd, Tolerance*r.master)
	res.near(id+"lag growth tx/s", row["lag_growth_tx_per_s"], r.lagGrowth, Tolerance*r.master)
	res.near(id+"catch-up s", row["catchup_s"], r.catchUp, 0.0005)
	res.near(id+"window s", row["run_s"], r.windowS, 0)
	res.near(id+"sustained", row["sustained_metric"], r.sustained, 0)
	res.near(id+"pNN latency in the window", row["lat_pctl_window_ms"], r.winLat, 0)
	res.near(id+"mean latency in the window", row["lat_avg_window_ms"], r.winLatAvg, 0)
	if j := r.judgeReplicas(); j.has {
		res.near(id+"peak lag tx", row["peak_lag_tx"], j.peak, Tolerance*r.master)
		res.near(id+"peak lag at s", row["peak_lag_at_s"], j.peakAt, 0.0005)
		if res.Compared++; row["peak_lag_host"] != j.peakHost {
			res.Problems = append(res.Problems, fmt.Sprintf("%speak lag's slave: report %q, recomputed %q", id, row["peak_lag_host"], j.peakHost))
		}
		if res.Compared++; (row["replicas_kept_up"] == "true") != j.keptUp || (row["replicas_behind_why"] == "") != j.keptUp {
			res.Problems = append(res.Problems, fmt.Sprintf("%skept up: report %q (%q), recomputed %v", id, row["replicas_kept_up"], row["replicas_behind_why"], j.keptUp))
		}
	}
	for h, want := range r.costs {
		got := hosts[h]
		for _, k := range sortedNames(want) {
			res.near(id+h+" "+k+" (Per transaction)", jsonNum(got[k]), want[k], 0)
		}
	}
}

// checkGroup compares a configuration's statistics, its replica means and
// its verdict.
func (res *Result) checkGroup(label string, rs, base []*run, isBase, blocked bool, row map[string]string, hosts map[string]map[string]any) {
	steady, sust, master, apply, catchUp := field(rs, func(r *run) float64 { return r.steady }), field(rs, func(r *run) float64 { return r.sustained }),
		field(rs, func(r *run) float64 { return r.master }), field(rs, func(r *run) float64 { return r.apply }), field(rs, func(r *run) float64 { return r.catchUp })
	bSteady, bSust, bApply := field(base, func(r *run) float64 { return r.steady }), field(base, func(r *run) float64 { return r.sustained }),
		field(base, func(r *run) float64 { return r.apply })
	bMaster := field(base, func(r *run) float64 { return r.master })
	n := float64(len(steady))
	mean, sd := stat.MeanStdDev(steady, nil)
	l := label + " "
	res.near(l+"n", row["label_n"], n, 0)
	res.levels[label] = [3]float64{mean, sd, n}
	res.near(l+"mean", row["label_mean_metric"], mean, 0)
	res.near(l+"median", row["label_median_metric"], median(steady), 0)
	if n > 1 {
		res.cvs[label] = sd / mean
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(0.975) * sd / math.Sqrt(n)
		res.near(l+"sd", row["label_sd_metric"], sd, 0)
		res.near(l+"cv %", row["label_cv_pct"], 100*sd/mean, 0)
		res.near(l+"ci95 low", row["label_ci95_low_metric"], mean-half, Tolerance*mean)
		res.near(l+"ci95 high", row["label_ci95_high_metric"], mean+half, Tolerance*mean)
	}
	res.near(l+"master tx/s", row["label_master_tx_per_s"], stat.Mean(master, nil), 0)
	res.near(l+"applied tx/s", row["label_replica_apply_tx_per_s"], stat.Mean(apply, nil), 0)
	res.near(l+"catch-up s", row["label_catchup_s"], stat.Mean(catchUp, nil), 0.0005)
	res.near(l+"sustained", row["label_sustained_mean_metric"], stat.Mean(sust, nil), 0)
	res.near(l+"pNN latency in the window", row["label_lat_pctl_window_ms"], stat.Mean(field(rs, func(r *run) float64 { return r.winLat }), nil), 0)
	res.near(l+"mean latency in the window", row["label_lat_avg_window_ms"], stat.Mean(field(rs, func(r *run) float64 { return r.winLatAvg }), nil), 0)
	for h, got := range hosts {
		per := map[string][]float64{}
		for _, r := range rs {
			for k, v := range r.costs[h] {
				if !math.IsNaN(v) {
					per[k] = append(per[k], v)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(per)) {
			res.near(l+h+" "+k+" (Per transaction, mean of runs)", jsonNum(got[k]), stat.Mean(per[k], nil), 0)
		}
	}
	if isBase {
		return
	}
	c := &comparison{label: label, n: len(steady), nBase: len(bSteady), applied: stat.Mean(apply, nil) / stat.Mean(bApply, nil),
		lagGrowth: stat.Mean(field(rs, func(r *run) float64 { return r.lagGrowth }), nil), catchUp: stat.Mean(catchUp, nil),
		runsNeeded: runsNeeded(steady, bSteady), masterRatio: stat.Mean(master, nil) / stat.Mean(bMaster, nil)}
	okP, okCI, okS := false, false, false
	if blocked {
		c.runsNeeded = roundsNeeded(rs, base)
		c.ratio, c.p, c.lo, c.hi, okP = byRounds(rs, base, func(r *run) float64 { return r.steady })
		c.sRatio, _, c.sLo, c.sHi, okS = byRounds(rs, base, func(r *run) float64 { return r.sustained })
		okCI = okP
	} else {
		c.ratio, c.sRatio = mean/stat.Mean(bSteady, nil), stat.Mean(sust, nil)/stat.Mean(bSust, nil)
		c.p, okP = welch(steady, bSteady)
		c.lo, c.hi, okCI = fieller(steady, bSteady)
		c.sLo, c.sHi, okS = fieller(sust, bSust)
	}
	if !okP {
		c.p = math.NaN()
	}
	if !okCI {
		c.lo, c.hi = math.NaN(), math.NaN()
	}
	if !okS {
		c.sLo, c.sHi = math.NaN(), math.NaN()
	}
	res.comparisons[label] = c
	res.near(l+"ratio", row["ratio_vs_baseline"], c.ratio, 0)
	res.near(l+"sustained ratio", row["sustained_ratio_vs_baseline"], c.sRatio, 0)
	res.near(l+"applied ratio", row["replica_apply_ratio_vs_baseline"], c.applied, 0)
	if okP {
		res.near(l+"p", row["p_value"], c.p, 0)
	}
	if okCI {
		res.near(l+"ratio ci95 low", row["ratio_ci95_low"], c.lo, 0)
		res.near(l+"ratio ci95 high", row["ratio_ci95_high"], c.hi, 0)
	}
	if okS {
		res.near(l+"sustained ratio ci95 low", row["sustained_ratio_ci95_low"], c.sLo, 0)
		res.near(l+"sustained ratio ci95 high", row["sustained_ratio_ci95_high"], c.sHi, 0)
	}
}

// comparison is one configuration against the baseline, recomputed: the
// figures the report's head and verdict lines print (head.go).
type comparison struct {
	label                  string
	n, nBase, runsNeeded   int
	ratio, p, lo, hi       float64
	sRatio, sLo, sHi       float64
	applied, lagGrowth, cv float64
	masterRatio            float64 // the master's commit rates'
	catchUp                float64 // seconds
}

// runsNeeded is the runs per configuration a two-sided Welch test at 5%
// would need to detect the observed difference with 80% power, by the
// formula the report's Method names: the smallest n with
// n >= (t(0.975, ν) + t(0.8, ν))² (s_a² + s_b²) / d², ν the
// Welch-Satterthwaite df of n runs a side; 0 when not computable.
func runsNeeded(a, b []float64) int {
	if len(a) < 2 || len(b) < 2 {
		return 0
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	d := ma - mb
	if d == 0 || va+vb == 0 {
		return 0
	}
	for n := 2; n <= 1_000_000; n++ {
		nu := (va + vb) * (va + vb) / ((va*va + vb*vb) / float64(n-1))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}
		z := t.Quantile(0.975) + t.Quantile(0.8)
		if float64(n) >= z*z*(va+vb)/(d*d) {
			return n
		}
	}
	return 1_000_000
}

// byRounds is the blocked analysis as the report's Method states it,
// computed here from the runs' own figures: each round's (on its
// cluster) log ratio of the configuration's run to the baseline's, their
// mean m and standard error se with Student's t (rounds-1 df); over
// several clusters, each cluster's mean log ratio, t across clusters
// (clusters-1 df), se never below sqrt(Σ s_c²/n_c)/k. The ratio is exp(m),
// the 95% interval exp(m ± t·se), p two-sided.
func byRounds(rs, base []*run, f func(*run) float64) (ratio, p, lo, hi float64, ok bool) {
	logs, clusters := roundLogs(rs, base, f)
	var ys []float64
	var floor float64
	switch len(clusters) {
	case 0:
		return math.NaN(), 0, 0, 0, false
	case 1:
		ys = logs[clusters[0]]
	default:
		for _, c := range clusters {
			m, v := stat.MeanVariance(logs[c], nil)
			ys = append(ys, m)
			floor += v / float64(len(logs[c]))
		}
		floor = math.Sqrt(floor) / float64(len(clusters))
		if math.IsNaN(floor) {
			floor = 0
		}
	}
	k := float64(len(ys))
	m := stat.Mean(ys, nil)
	if k < 2 {
		return math.Exp(m), 0, 0, 0, false
	}
	se := math.Max(stat.StdDev(ys, nil)/math.Sqrt(k), floor)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: k - 1}
	q := t.Quantile(0.975)
	return math.Exp(m), 2 * t.Survival(math.Abs(m/se)), math.Exp(m - q*se), math.Exp(m + q*se), se > 0
}

// roundLogs are each round's log ratio of a configuration's run to the
// baseline's in the same round on the same cluster, by cluster (in the
// order the runs first name them).
func roundLogs(rs, base []*run, f func(*run) float64) (map[string][]float64, []string) {
	type key struct {
		cluster string
		round   int
	}
	b := map[key]float64{}
	for _, r := range base {
		b[key{r.cluster, r.round}] = f(r)
	}
	logs := map[string][]float64{}
	var clusters []string
	for _, r := range rs {
		v, found := b[key{r.cluster, r.round}]
		if !found || v <= 0 || f(r) <= 0 {
			continue
		}
		if _, seen := logs[r.cluster]; !seen {
			clusters = append(clusters, r.cluster)
		}
		logs[r.cluster] = append(logs[r.cluster], math.Log(f(r)/v))
	}
	return logs, clusters
}

// roundsNeeded is the blocked analysis's runs needed, as the Method
// states it: the smallest n with n >= (t(0.975, n-1) + t(0.8, n-1))² s² / m²,
// m and s the mean and standard deviation of the rounds' log ratios (one
// cluster; 0 over several, or when not computable).
func roundsNeeded(rs, base []*run) int {
	logs, clusters := roundLogs(rs, base, func(r *run) float64 { return r.steady })
	if len(clusters) != 1 || len(logs[clusters[0]]) < 2 {
		return 0
	}
	m, sd := stat.MeanStdDev(logs[clusters[0]], nil)
	if m == 0 || sd == 0 {
		return 0
	}
	for n := 2; n <= 1_000_000; n++ {
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
		z := t.Quantile(0.975) + t.Quantile(0.8)
		if float64(n) >= z*z*sd*sd/(m*m) {
			return n
		}
	}
	return 1_000_000
}

// welch is Welch's two-sided p.
func welch(a, b []float64) (float64, bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, false
	}
	ma, va := stat.MeanVariance(a, nil)
	mb, vb := stat.MeanVariance(b, nil)
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	if sa+sb == 0 {
		return 0, false
	}
	df := (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	t := math.Abs(ma-mb) / math.Sqrt(sa+sb)
	return 2 * (1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(t)), true
}

// fieller is Fieller's 95% interval of mean(a)/mean(b) as the README
// defines it: every ratio r that Welch's test of a against r·b does not
// reject at 0.05 (so the degrees of freedom are those of each r). Found
// here by its definition, with this file's own welch: walk out from the
// estimate until p drops below 0.05, then bisect on p.
func fieller(a, b []float64) (lo, hi float64, ok bool) {
	if len(a) < 2 || len(b) < 2 {
		return 0, 0, false
	}
	r := stat.Mean(a, nil) / stat.Mean(b, nil)
	inside := func(x float64) bool {
		scaled := make([]float64, len(b))
		for i, v := range b {
			scaled[i] = x * v
		}
		p, ok := welch(a, scaled)
		return !ok || p >= 0.05
	}
	edge := func(dir float64) (float64, bool) {
		in, step := r, dir*math.Abs(r)*0.01
		out := math.NaN()
		for i := 0; i < 40; i++ {
			if x := r + step; !inside(x) {
				out = x
				break
			} else {
				in = x
			}
			step *= 2
		}
		if math.IsNaN(out) {
			return 0, false // unbounded on this side
		}
		for i := 0; i < 100; i++ {
			mid := (in + out) / 2
			if inside(mid) {
				in = mid
			} else {
				out = mid
			}
		}
		return in, true
	}
	lo, okLo := edge(-1)
	hi, okHi := edge(1)
	return lo, hi, okLo && okHi
}

func field(rs []*run, f func(*run) float64) []float64 {
	out := make([]float64, 0, len(rs))
	for _, r := range rs {
		out = append(out, f(r))
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func byLabel(rows []map[string]string, label string) map[string]string {
	for _, r := range rows {
		if r["label"] == label && r["in_statistics"] == "true" {
			return r
		}
	}
	return map[string]string{}
}

func sortedNames(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
