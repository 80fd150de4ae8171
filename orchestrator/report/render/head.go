package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// durabilityVars are the server settings that decide how much a commit
// costs and what a cache holds: the report's head shows them per
// configuration (master), so a reader sees at once whether two
// configurations were equally durable.
var durabilityVars = []string{
	"innodb_flush_log_at_trx_commit", "innodb_log_file_buffering", "sync_binlog", "innodb_doublewrite", "innodb_flush_method",
	"innodb_buffer_pool_size", "rocksdb_flush_log_at_trx_commit", "rocksdb_block_cache_size",
	"rocksdb_use_direct_io_for_flush_and_compaction", "rocksdb_use_direct_reads",
	"tokudb_commit_sync", "tokudb_cache_size", "tokudb_directio", "gtid_pos_auto_engines",
	"rpl_semi_sync_master_enabled", "rpl_semi_sync_master_wait_point", "binlog_format",
}

// Head is the details under a table's verdicts (what was run and on
// what is in setting): comparability, the data the tables held, the axes,
// n per configuration and the durability settings, one line each.
func Head(rep *judge.Report, t *judge.Table) []string {
	var out []string
	if len(t.Mixed) > 0 {
		out = append(out, "NOT COMPARABLE, compared as asked (--allow-mixed): "+strings.Join(t.Mixed, "; "))
	}
	// What the client really did with its parameters: oltp_insert with
	// auto_inc=off takes table_size and still starts from empty tables.
	if d := firstRunWith(t, func(r *load.Run) bool { return r.Data != "" }); d != nil {
		out = append(out, "Data: "+d.Data)
	}
	if ax := Axes(t); ax != "" {
		out = append(out, "Axes: "+ax)
	}
	ns := make([]string, len(t.Groups))
	for i, g := range t.Groups {
		ns[i] = fmt.Sprintf("%s n=%d", g.Label, g.Rate.N)
	}
	out = append(out, "Runs in the statistics: "+strings.Join(ns, ", "))
	for _, g := range t.Groups {
		if d := durability(g); d != "" {
			out = append(out, "Durability and caches, "+g.Label+" (master): "+d)
		}
	}
	return out
}

func firstRunWith(t *judge.Table, ok func(*load.Run) bool) *load.Run {
	for _, r := range t.Runs {
		if ok(r) {
			return r
		}
	}
	return nil
}

// Axes lists what the configurations vary: engines and knob names.
func Axes(t *judge.Table) string {
	var engines, knobs []string
	for _, r := range t.Runs {
		if r.Engine != "" && !slices.Contains(engines, r.Engine) {
			engines = append(engines, r.Engine)
		}
		for _, k := range r.Knobs {
			if !slices.Contains(knobs, k.Name) {
				knobs = append(knobs, k.Name)
			}
		}
	}
	// A knob with one value on every run is no axis: a matrix leaves it
	// out of the labels, so it is stated here once.
	values := map[string]map[string]bool{}
	for _, r := range t.Runs {
		for _, k := range r.Knobs {
			if values[k.Name] == nil {
				values[k.Name] = map[string]bool{}
			}
			values[k.Name][k.Value] = true
		}
	}
	var parts, fixed []string
	if len(engines) > 0 {
		parts = append(parts, "engine ("+strings.Join(engines, ", ")+")")
	}
	for _, k := range knobs {
		if vs := load.SortedKeys(values[k]); len(vs) == 1 && knobOnEveryRun(t, k) {
			fixed = append(fixed, k+"="+vs[0])
			continue
		}
		parts = append(parts, k)
	}
	s := strings.Join(parts, ", ")
	if len(fixed) > 0 {
		s += "; set on every configuration: " + strings.Join(fixed, " ")
	}
	return s
}

// knobOnEveryRun reports whether every run of t set the knob name.
func knobOnEveryRun(t *judge.Table, name string) bool {
	for _, r := range t.Runs {
		if !slices.ContainsFunc(r.Knobs, func(k load.Knob) bool { return k.Name == name }) {
			return false
		}
	}
	return true
}

// durability is the master's durability and cache settings of the
// group's first run with evidence.
func durability(g *judge.Group) string {
	for _, r := range g.Runs {
		if r.Evidence == nil || len(r.Evidence.Variables) == 0 {
			continue
		}
		host := "master"
		if len(r.Evidence.Hosts) > 0 {
			host = r.Evidence.Hosts[0]
		}
		vars := r.Evidence.Variables[host]
		var parts []string
		for _, name := range durabilityVars {
			if v, ok := vars[name]; ok {
				if v == "" {
					v = "''"
				}
				parts = append(parts, name+"="+v)
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

// hasReplicas reports whether any run of the table had replicas.
func hasReplicas(t *judge.Table) bool {
	for _, g := range t.Groups {
		if analyse.Known(g.Replica) {
			return true
		}
	}
	return false
}

// replicaNote explains the replica table.
var replicaNote = fmt.Sprintf("Over each run's window, means of the runs: master: its commit rate (gtid_tx_ps: committed transactions over the seconds sampled); "+
	"applied: the slowest slave's apply rate, the same way, up to the load's end (the report's one applied rate and ratio: every section uses them); "+
	"lag at end is that of the slave furthest behind at the window's end, named, each slave's lag read at its own sample time against the master's position "+
	"interpolated there; peak lag: the largest of any run, when it peaked and since when it rose; catch-up (after the load, not in any rate): time from the "+
	"load's end (older runs: from the wait's start) until every slave had applied the master's last transaction; sustained: the steady rate x window / "+
	"(window + catch-up), never above the steady rate. Kept up is judged run by run, never on these means: a run fell behind when a slave's lag grew by more "+
	"than %s of the master's rate over the window's last %s s to more than the master commits in %s of the window, a slave never caught up, or catch-up "+
	"took more than %s of the window.", judge.Pct(analyse.MaxLagGrowthShare), analyse.Num(analyse.EndTrendS, 0), judge.Pct(analyse.MaxCatchUpShare), judge.Pct(analyse.MaxCatchUpShare))

func replicaHeader(t *judge.Table) []string {
	return []string{"configuration", "master tx/s", "applied tx/s", "applied vs baseline", "lag at end tx / s", "peak lag tx",
		"catch-up s", "window s", "sustained " + t.Metric, "sustained vs baseline", "runs behind"}
}

func replicaRows(t *judge.Table) [][]string {
	var rows [][]string
	for _, g := range t.Groups {
		f := g.Replica
		applied, sust := "baseline", "baseline"
		if !analyse.Known(f) {
			applied, sust = "—", "—"
		}
		if g != t.Baseline && analyse.Known(f) {
			applied, sust = analyse.Ratio(g.ApplyRatio), analyse.Ratio(g.SustainedRatio)+judge.CIPhrase(g.SustainedCI, nil)
		}
		rr, kept, peak := g.ReplicaRuns, "—", "—"
		if analyse.Known(f) && rr.N > 0 {
			kept = fmt.Sprintf("%d of %d", rr.Behind, rr.N)
		}
		if p := rr.Peak; p != nil {
			peak = fmt.Sprintf("%s (%s %s)", analyse.Num(p.Repl.PeakLagTx, 0), p.ID, p.Repl.PeakHost)
		}
		rows = append(rows, []string{g.Label, analyse.Num(f.MasterTxPS, 0), analyse.Num(f.ApplyTxPS, 0), applied,
			analyse.Num(f.LagEndTx, 0) + " / " + lagSecs(f.LagEndS, f.LagEndTx) + slaveName(f.Worst), peak, secsCell(f.CatchUpS), analyse.Num(f.RunS, 1),
			analyse.Num(f.Sustained, 2), sust, kept})
	}
	return rows
}

// cvText is the CV cell, flagged above MaxCV.
func cvText(g *judge.Group) string {
	if math.IsNaN(g.CV) {
		return "—"
	}
	if g.Noisy {
		return judge.Pct(g.CV) + " (noisy)"
	}
	return judge.Pct(g.CV)
}

// ratioCIText is the ratio's 95% CI cell.
func ratioCIText(g, base *judge.Group) string {
	if g == base {
		return ""
	}
	if s := strings.TrimSpace(judge.CIPhrase(g.RatioCI, g.RatioCIErr)); s != "" {
		return s
	}
	return "—"
}

// slaveName is " (slave2)", or "" when unknown or several runs disagree.
func slaveName(h string) string {
	if h == "" {
		return ""
	}
	return " (" + h + ")"
}

// secsCell formats seconds with 3 decimals (catch-up is often ms).
func secsCell(v float64) string { return analyse.Num(v, 3) }

// warmupLine is where the time charts mark the end of the warm-up: the
// median of the runs' warm-ups.
func warmupLine(t *judge.Table) float64 {
	var ws []float64
	for _, r := range t.Runs {
		if r.Bench != nil {
			ws = append(ws, r.WarmupS)
		}
	}
	if m := load.Median(ws); !math.IsNaN(m) {
		return m
	}
	return 0
}

// warmupSummary says how the warm-ups were decided and what they were.
func warmupSummary(rep *judge.Report) string {
	var detected, fixed []float64
	intervals := false
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			if r.Bench == nil {
				continue
			}
			if rt, ok := r.Bench.Rates[t.Metric]; ok && len(rt.Series) > 0 && !rt.PlotOnly {
				intervals = true
			}
			if r.WarmupHow == "detected" {
				detected = append(detected, r.WarmupS)
			} else {
				fixed = append(fixed, r.WarmupS)
			}
		}
	}
	if !intervals {
		return "" // no per-second series: no warm-up to speak of
	}
	switch rep.WarmupFrom {
	case "--warmup":
		return fmt.Sprintf("Warm-up: given: %s s (orch report --warmup), the warm-up of every run; not detected (a given warm-up is used as given).", analyse.Num(rep.WarmupS, 0))
	case load.FileMatrix:
		return fmt.Sprintf("Warm-up: given: %s s (orch matrix --warmup, %s), the warm-up of every run; not detected (a given warm-up is used as given).", analyse.Num(rep.WarmupS, 0), load.FileMatrix)
	}
	s := "Warm-up: none given (--warmup)"
	if len(detected) > 0 {
		slices.Sort(detected)
		s = fmt.Sprintf("Warm-up: detected: %s-%s s (median %s s) over %s; none given (--warmup)", analyse.Num(detected[0], 0), analyse.Num(detected[len(detected)-1], 0),
			analyse.Num(load.Median(detected), 0), judge.Plural(len(detected), "run"))
	}
	s += ", so detected per run as a sustained level change from the start of its per-second rate " +
		"(a dip that recovers within the first half is not a warm-up)"
	if len(fixed) > 0 {
		s += fmt.Sprintf("; %s s (%s) for %s with too few intervals to detect one", analyse.Num(rep.WarmupS, 0), rep.WarmupFrom, judge.Plural(len(fixed), "run"))
	}
	return s + "."
}
