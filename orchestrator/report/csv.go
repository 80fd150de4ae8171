package report

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// CSVColumns is the header of results.csv: one row per run, then its
// label's statistics (repeated on each of the label's rows so that a
// spreadsheet filter on one row keeps them). Empty cells mean "no value".
var CSVColumns = []string{
	"workload", "tool", "metric", "label", "is_baseline", "run", "rep", "state", "in_statistics",
	"engine", "knobs", "steady", "steady_source", "final",
	"lat_avg_ms", "lat_percentile", "lat_pct_ms", "lat_max_ms", "errors",
	"table_bytes", "datadir_bytes", "semisync_fallback_s", "semisync_no_tx", "max_lag_s", "max_lag_tx",
	"stalls", "consistency", "failed_checks",
	"label_n", "label_mean", "label_sd", "label_ci95_low", "label_ci95_high",
	"ratio_vs_baseline", "p_value", "significant", "no_effect", "verdict", "source",
	// Added with the replica-aware verdicts; units in the names, rates in
	// the unit of "metric" where the name says "metric".
	"warmup_s", "warmup_source", "run_s", "master_tx_ps", "replica_apply_tx_ps", "lag_end_tx", "lag_end_s",
	"lag_growth_tx_ps", "catchup_s", "sustained_metric", "replicas_kept_up",
	"label_median", "label_cv", "label_noisy", "ratio_ci95_low", "ratio_ci95_high", "mann_whitney_p", "reps_needed",
	"label_master_tx_ps", "label_replica_apply_tx_ps", "label_catchup_s", "label_sustained_mean",
	"sustained_ratio_vs_baseline", "sustained_ratio_ci95_low", "sustained_ratio_ci95_high", "replica_apply_ratio_vs_baseline",
	"label_kept_up",
	"disk_bytes", "binlog_bytes", "relay_log_bytes", "rows", "space_amp",
	// The run's cluster, when the matrix ran over several.
	"cluster",
	// The run's one window (load seconds), what it excluded, and the
	// invariants the run violates ("; "-separated, empty: none).
	"window_from_s", "window_to_s", "window_excluded_s", "flags",
}

// WriteCSV writes results.csv.
func (rep *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(slices.Clone(CSVColumns), WhyCSVColumns...)); err != nil {
		return err
	}
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			for _, row := range t.whyCSVRows(r, rep.csvRow(t, r)) {
				if err := cw.Write(csvRow(row)); err != nil {
					return err
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func (rep *Report) csvRow(t *Table, r *Run) []string {
	g := t.group(r.Label)
	steady, how := t.steadyOf(r)
	b := r.Bench
	if b == nil {
		b = &Bench{LatAvg: nan(), LatPct: nan(), LatMax: nan(), Errors: nan()}
	}
	h := r.Health
	rep0 := ""
	if r.Rep > 0 {
		rep0 = strconv.Itoa(r.Rep)
	}
	pctl := ""
	if b.Pctl > 0 {
		pctl = strconv.Itoa(b.Pctl)
	}
	p, sig := "", ""
	if g.Test != nil {
		p, sig = strconv.FormatFloat(g.Test.P, 'g', 4, 64), strconv.FormatBool(g.Test.Significant())
	}
	ratio := ""
	if g != t.Baseline {
		ratio = f4(g.Ratio)
	}
	return append([]string{
		t.Workload, t.Tool, t.Metric, r.Label, strconv.FormatBool(g == t.Baseline), r.ID, rep0, r.State,
		strconv.FormatBool(r.usable()), r.Engine, r.KnobString(), f4(steady), how, f(b.final(t.Metric)),
		f(b.LatAvg), pctl, f(b.LatPct), f(b.LatMax), f(b.Errors),
		f(h.TableBytes), f(h.DatadirBytes), f(h.FallbackS), f(h.NoTx), f(h.MaxLagS), f(h.MaxLagTx),
		strconv.Itoa(h.Stalls), h.Consistency, strings.Join(h.FailedChecks, "; "),
		strconv.Itoa(g.Rate.N), f4(g.Rate.Mean), f4(g.Rate.SD), f4(g.Rate.CILow), f4(g.Rate.CIHigh),
		ratio, p, sig, strings.Join(g.NoEffect, " "), g.Verdict, r.Source,
	}, rep.csvMore(t, g, r)...)
}

// csvMore is the replica, warm-up and noise columns of a run's row.
func (rep *Report) csvMore(t *Table, g *Group, r *Run) []string {
	rf, gf := r.Repl, g.Replica
	kept := func(known, ok bool) string {
		if !known {
			return ""
		}
		return strconv.FormatBool(ok)
	}
	warm, how := "", ""
	if r.Bench != nil {
		warm, how = f4(r.WarmupS), r.WarmupHow
	}
	base := g == t.Baseline
	cmp := func(v float64) string {
		if base {
			return ""
		}
		return f4(v)
	}
	ciLo, ciHi, sLo, sHi, mw := "", "", "", "", ""
	if g.RatioCI != nil {
		ciLo, ciHi = f4(g.RatioCI.Low), f4(g.RatioCI.High)
	}
	if g.SustainedCI != nil {
		sLo, sHi = f4(g.SustainedCI.Low), f4(g.SustainedCI.High)
	}
	if g.UTest != nil {
		mw = strconv.FormatFloat(g.UTest.P, 'g', 4, 64)
	}
	reps := ""
	if g.RepsNeeded > 0 {
		reps = strconv.Itoa(g.RepsNeeded)
	}
	return []string{
		warm, how, f4(rf.RunS), f4(rf.MasterTxPS), f4(rf.ApplyTxPS), f4(rf.LagEndTx), f4(rf.LagEndS),
		f4(rf.LagGrowthTxPS), f4(rf.CatchUpS), f4(rf.Sustained), kept(rf.Known(), rf.KeptUp()),
		f4(g.Median), f4(g.CV), strconv.FormatBool(g.Noisy), ciLo, ciHi, mw, reps,
		f4(gf.MasterTxPS), f4(gf.ApplyTxPS), f4(gf.CatchUpS), f4(g.SustainedRate.Mean),
		cmp(g.SustainedRatio), sLo, sHi, cmp(g.ApplyRatio), kept(gf.Known(), g.KeptUp),
		f(r.Health.DiskBytes), f(r.Health.BinlogBytes), f(r.Health.RelayBytes), f(r.Health.Rows), f4(r.spaceAmp()),
		r.Cluster,
		f4(r.Win.FromS), f4(r.Win.ToS), f4(r.Win.excludedS()), strings.Join(r.Flags, "; "),
	}
}

// f formats a figure as the tool printed it: the fewest digits that read
// back exactly. NaN (no value) is empty.
func f(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// f4 formats a derived figure (a mean, a ratio) to 4 decimals, without
// trailing zeros: more would be noise, and differ across CPUs.
func f4(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		return "0"
	}
	return s
}
