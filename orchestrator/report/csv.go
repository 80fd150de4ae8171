package report

import (
	"encoding/csv"
	"io"
	"math"
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
	"ratio_vs_baseline", "p_value", "significant", "no_effect", "verdict", "source", "cluster",
}

// WriteCSV writes results.csv.
func (rep *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	for _, t := range rep.Tables {
		for _, r := range t.Runs {
			if err := cw.Write(rep.csvRow(t, r)); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

func (rep *Report) csvRow(t *Table, r *Run) []string {
	g := t.group(r.Label)
	steady, how := t.steadyOf(r, rep.WarmupS)
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
	return []string{
		t.Workload, t.Tool, t.Metric, r.Label, strconv.FormatBool(g == t.Baseline), r.ID, rep0, r.State,
		strconv.FormatBool(r.usable()), r.Engine, r.KnobString(), f4(steady), how, f(b.final(t.Metric)),
		f(b.LatAvg), pctl, f(b.LatPct), f(b.LatMax), f(b.Errors),
		f(h.TableBytes), f(h.DatadirBytes), f(h.FallbackS), f(h.NoTx), f(h.MaxLagS), f(h.MaxLagTx),
		strconv.Itoa(h.Stalls), h.Consistency, strings.Join(h.FailedChecks, "; "),
		strconv.Itoa(g.Rate.N), f4(g.Rate.Mean), f4(g.Rate.SD), f4(g.Rate.CILow), f4(g.Rate.CIHigh),
		ratio, p, sig, strings.Join(g.NoEffect, " "), g.Verdict, r.Source, r.Cluster,
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
