package report

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// The report's data is tidy: one table per kind of observation, each
// column one variable with its unit in its name (_s, _ms, _bytes,
// _per_s, _frac for a fraction 0..1, _pct for a percent, _metric for the
// unit named in the metric column). results.csv has one row per run
// (its configuration's columns repeated), configurations.csv one per
// configuration, hosts.csv one per run and host. Empty means "not
// computed"; an unbounded confidence bound is -inf or inf.

// Column is one column of a CSV file the report writes: its name, what it
// holds (the README's tables are generated from these, readme.go) and
// its value in a row. A column with no Doc shares the one before's.
type Column[T any] struct {
	Name, Doc string
	Value     func(T) string
}

// confRow is what a configuration's columns are computed from.
type confRow struct {
	rep *judge.Report
	t   *judge.Table
	g   *judge.Group
}

// runRow is a run's row: its configuration, the run, its benchmark (a
// stand-in of NaNs when it has none).
type runRow struct {
	confRow
	r *load.Run
	b *load.Bench
}

func (c confRow) base() bool { return c.g == c.t.Baseline }

// vsBase is a ratio against the baseline: 1 for the baseline itself when
// its own figure (own) was computed.
func (c confRow) vsBase(v, own float64) string {
	if c.base() && !math.IsNaN(own) {
		return "1"
	}
	return f4(v)
}

// ciBound is one bound of a Fieller interval: -inf/inf when unbounded,
// empty when not computed.
func ciBound(ci *analyse.RatioCI, err error, high bool) string {
	switch {
	case ci != nil && high:
		return f4(ci.High)
	case ci != nil:
		return f4(ci.Low)
	case errors.Is(err, analyse.ErrUnbounded) && high:
		return "inf"
	case errors.Is(err, analyse.ErrUnbounded):
		return "-inf"
	}
	return ""
}

func boolText(known, v bool) string {
	if !known {
		return ""
	}
	return strconv.FormatBool(v)
}

func count(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// tableColumns name the table a row belongs to and its configuration: the
// first columns of results.csv and configurations.csv.
var tableColumns = []Column[confRow]{
	{"workload", "the table the row is in: workload, client and its compared figure (`writes/s`, `tps`, `queries/s`, `rows/s`, or `s to run all queries` for mysqlslap: the unit of every `_metric` column)",
		func(c confRow) string { return c.t.Workload }},
	{"tool", "", func(c confRow) string { return c.t.Tool }},
	{"metric", "", func(c confRow) string { return c.t.Metric }},
	{"label", "the configuration", func(c confRow) string { return c.g.Label }},
	{"is_baseline", "whether it is the baseline", func(c confRow) string { return strconv.FormatBool(c.base()) }},
}

// runColumns are a run's own figures in results.csv.
var runColumns = []Column[runRow]{
	{"run", "run id, repetition, how the run ended, whether it counts in the statistics", func(r runRow) string { return r.r.ID }},
	{"rep", "", func(r runRow) string { return count(r.r.Rep) }},
	{"state", "", func(r runRow) string { return r.r.State }},
	{"in_statistics", "", func(r runRow) string { return strconv.FormatBool(r.r.Usable()) }},
	{"engine", "the run's engine and knob settings", func(r runRow) string { return r.r.Engine }},
	{"knobs", "", func(r runRow) string { return r.r.KnobString() }},
	{"steady_metric", "steady-state figure over the run's window, and whether it is the mean of the `intervals` or the tool's `final` figure",
		func(r runRow) string { v, _ := r.t.SteadyOf(r.r); return f4(v) }},
	{"steady_source", "", func(r runRow) string { _, how := r.t.SteadyOf(r.r); return how }},
	{"final_metric", "the tool's own whole-run figure", func(r runRow) string { return f(r.b.Final(r.t.Metric)) }},
	{"lat_avg_window_ms", "the mean latency in the run's window: client threads over its transaction rate there (Little's law; empty for a --rate run)",
		func(r runRow) string { return f(r.b.WindowLatAvg(r.r.Win)) }},
	{"lat_pctl_window_ms", "the mean of the client's per-interval pNN latency over the run's window (the rank is lat_percentile)",
		func(r runRow) string { return f(r.b.WindowLat(r.r.Win)) }},
	{"whole_run_lat_avg_ms", "the client's whole-run latency summary (warm-up included, so not of the window): average, the percentile's rank (95 for p95) and value, max; error count",
		func(r runRow) string { return f(r.b.LatAvg) }},
	{"lat_percentile", "", func(r runRow) string { return count(r.b.Pctl) }},
	{"whole_run_lat_pctl_ms", "", func(r runRow) string { return f(r.b.LatPct) }},
	{"whole_run_lat_max_ms", "", func(r runRow) string { return f(r.b.LatMax) }},
	{"errors", "", func(r runRow) string { return f(r.b.Errors) }},
	{"table_bytes", "the benchmark tables on the master as the engine reports them, the master's datadir on disk",
		func(r runRow) string { return f(r.r.Health.TableBytes) }},
	{"datadir_bytes", "", func(r runRow) string { return f(r.r.Health.DatadirBytes) }},
	{"semisync_fallback_s", "seconds the master ran asynchronously, commits without an acknowledgement", func(r runRow) string { return f(r.r.Health.FallbackS) }},
	{"semisync_no_tx", "", func(r runRow) string { return f(r.r.Health.NoTx) }},
	{"max_lag_s", "worst replica lag (seconds: Seconds_Behind_Master, whole seconds, 0 while under 1 s behind; transactions), stalls seen", func(r runRow) string { return f(r.r.Health.MaxLagS) }},
	{"max_lag_tx", "", func(r runRow) string { return f(r.r.Health.MaxLagTx) }},
	{"stalls", "", func(r runRow) string { return strconv.Itoa(r.r.Health.Stalls) }},
	{"consistency", "`ok`/`MISMATCH`, the failed checks (`; `-separated)", func(r runRow) string { return r.r.Health.Consistency }},
	{"failed_checks", "", func(r runRow) string { return strings.Join(r.r.Health.FailedChecks, "; ") }},
	{"source", "the input path", func(r runRow) string { return r.r.Source }},
	{"warmup_s", "the run's warm-up (the window's start) and `detected`, `--warmup`, `matrix.json`, `default` or `whole run: ...`",
		func(r runRow) string { return r.bench(func() string { return f4(r.r.WarmupS) }) }},
	{"warmup_source", "", func(r runRow) string { return r.bench(func() string { return r.r.WarmupHow }) }},
	{"run_s", "seconds the run's window covers (exclusions out; mysqlslap: its duration)", func(r runRow) string { return f4(r.r.Repl.RunS) }},
	{"master_tx_per_s", "master's commit rate and slowest slave's apply rate over the window (gtid_tx_ps integrated over the window's seconds)",
		func(r runRow) string { return f4(r.r.Repl.MasterTxPS) }},
	{"replica_apply_tx_per_s", "", func(r runRow) string { return f4(r.r.Repl.ApplyTxPS) }},
	{"lag_end_tx", "lag at the window's end (transactions; seconds: Seconds_Behind_Master, whole seconds per run, 0 while under 1 s behind) and least-squares growth through the window of the slave furthest behind at the window's end (on a tie, the one whose lag grew fastest; named in report.md)",
		func(r runRow) string { return f4(r.r.Repl.LagEndTx) }},
	{"lag_end_s", "", func(r runRow) string { return f4(r.r.Repl.LagEndS) }},
	{"lag_growth_tx_per_s", "", func(r runRow) string { return f4(r.r.Repl.LagGrowthTxPS) }},
	{"catchup_s", "time until every slave applied the master's last transaction: from the load's end (`catch_up_ns`) when the run recorded it, else from the wait's start",
		func(r runRow) string { return f4(r.r.Repl.CatchUpS) }},
	{"sustained_metric", "steady x window / (window + catch-up), so never above `steady_metric` (mysqlslap: run + catch-up seconds); whether the replicas kept up",
		func(r runRow) string { return f4(r.r.Repl.Sustained) }},
	{"replicas_kept_up", "", func(r runRow) string { return boolText(analyse.Known(r.r.Repl), analyse.KeptUp(r.r.Repl)) }},
	{"replicas_behind_why", "why the run fell behind (empty when it kept up): a slave's lag grew over the window's last 5 s, never caught up, or caught up too slowly",
		func(r runRow) string {
			if !analyse.Known(r.r.Repl) || analyse.KeptUp(r.r.Repl) {
				return ""
			}
			return judge.BehindWhy(r.r.Repl)
		}},
	{"peak_lag_tx", "the largest lag of any slave in the window (transactions, each slave's sample against the master's position interpolated at its instant), that slave, when it peaked and since when it rose (load seconds)",
		func(r runRow) string { return f4(r.r.Repl.PeakLagTx) }},
	{"peak_lag_host", "", func(r runRow) string { return r.r.Repl.PeakHost }},
	{"peak_lag_at_s", "", func(r runRow) string { return f4(r.r.Repl.PeakAtS) }},
	{"peak_lag_from_s", "", func(r runRow) string { return f4(r.r.Repl.PeakFromS) }},
	{"disk_bytes", "the benchmark tables' files of the run's engine on the master (`.ibd`, `#rocksdb`, `.tokudb`), the master's binary logs, the largest slave relay logs (`du -b`)",
		func(r runRow) string { return f(r.r.Health.DiskBytes) }},
	{"binlog_bytes", "", func(r runRow) string { return f(r.r.Health.BinlogBytes) }},
	{"relay_log_bytes", "", func(r runRow) string { return f(r.r.Health.RelayBytes) }},
	{"rows", "the master's rows after the run (consistency check); `disk_bytes` / (rows x logical row bytes, 188 for sysbench oltp tables)",
		func(r runRow) string { return f(r.r.Health.Rows) }},
	{"space_amp", "", func(r runRow) string { return f4(analyse.SpaceAmp(r.r)) }},
	{"cluster", "the run's cluster, in a matrix over several", func(r runRow) string { return r.r.Cluster }},
	{"window_from_s", "the run's window in the client's seconds, and the seconds of it left out for instrument spans", func(r runRow) string { return f4(r.r.Win.FromS) }},
	{"window_to_s", "", func(r runRow) string { return f4(r.r.Win.ToS) }},
	{"window_excluded_s", "", func(r runRow) string { return f4(analyse.ExcludedS(r.r.Win)) }},
	{"flags", "the invariants the run violates, `; `-separated (empty: none)", func(r runRow) string { return strings.Join(r.r.Flags, "; ") }},
	{"shift_found", "the run's own level-shift test over its window (steady state; the report decides on its configuration's runs together): whether a shift of 10% or more is significant, the best split's relative change (later / earlier level - 1) and the client second where the later level begins; empty when the window had too few intervals",
		func(r runRow) string {
			return r.shift(func(s load.Shift) string { return strconv.FormatBool(s.Found) })
		}},
	{"shift_rel", "", func(r runRow) string { return r.shift(func(s load.Shift) string { return f4(s.Rel) }) }},
	{"shift_at_s", "", func(r runRow) string { return r.shift(func(s load.Shift) string { return f4(s.AtS) }) }},
}

// shift is v of the run's level-shift test, empty when it was not tested.
func (r runRow) shift(v func(load.Shift) string) string {
	if !r.r.Shift.Tested {
		return ""
	}
	return v(r.r.Shift)
}

// bench is v when the run has benchmark output, else empty.
func (r runRow) bench(v func() string) string {
	if r.r.Bench == nil {
		return ""
	}
	return v()
}

// confColumns are a configuration's statistics: configurations.csv, and
// repeated on each of its runs' rows in results.csv.
var confColumns = []Column[confRow]{
	{"label_n", "runs in the statistics; mean, sd, Student's t 95% CI of the mean, median of their steady figures; coefficient of variation in percent, `label_noisy` when above 5%",
		func(c confRow) string { return strconv.Itoa(c.g.Rate.N) }},
	{"label_mean_metric", "", func(c confRow) string { return f4(c.g.Rate.Mean) }},
	{"label_sd_metric", "", func(c confRow) string { return f4(c.g.Rate.SD) }},
	{"label_ci95_low_metric", "", func(c confRow) string { return f4(c.g.Rate.CILow) }},
	{"label_ci95_high_metric", "", func(c confRow) string { return f4(c.g.Rate.CIHigh) }},
	{"label_median_metric", "", func(c confRow) string { return f4(c.g.Median) }},
	{"label_cv_pct", "", func(c confRow) string { return f4(100 * c.g.CV) }},
	{"label_noisy", "", func(c confRow) string { return strconv.FormatBool(c.g.Noisy) }},
	{"ratio_vs_baseline", "ratio to the baseline (1 for the baseline) and its 95% CI, from the analysis the report's Method states: blocked, the geometric mean of the rounds' ratios and t across rounds; unpaired, the ratio of means and Fieller's CI (`-inf`/`inf`: unbounded, the baseline's mean not significantly above 0)",
		func(c confRow) string { return c.vsBase(c.g.Ratio, c.g.Rate.Mean) }},
	{"ratio_ci95_low", "", func(c confRow) string { return ciBound(c.g.RatioCI, c.g.RatioCIErr, false) }},
	{"ratio_ci95_high", "", func(c confRow) string { return ciBound(c.g.RatioCI, c.g.RatioCIErr, true) }},
	{"p_value", "the same analysis's p (blocked: Student's t on the rounds' log ratios; unpaired: Welch's), p below its level, Mann-Whitney U p (5+ runs per side), runs per configuration needed to resolve the difference",
		func(c confRow) string {
			if c.g.Test == nil {
				return ""
			}
			return strconv.FormatFloat(c.g.Test.P, 'g', 4, 64)
		}},
	{"significant", "", func(c confRow) string {
		if c.g.Test == nil {
			return ""
		}
		return strconv.FormatBool(c.g.Test.Significant())
	}},
	{"mann_whitney_p", "", func(c confRow) string {
		if c.g.UTest == nil {
			return ""
		}
		return strconv.FormatFloat(c.g.UTest.P, 'g', 4, 64)
	}},
	{"reps_needed", "", func(c confRow) string { return count(c.g.RepsNeeded) }},
	{"no_effect", "knobs the server ignores, the verdict line", func(c confRow) string { return strings.Join(c.g.NoEffect, " ") }},
	{"verdict", "", func(c confRow) string { return c.g.Verdict }},
	{"label_master_tx_per_s", "the configuration's means of the replica figures; whether every run kept up (each judged on its own)",
		func(c confRow) string { return f4(c.g.Replica.MasterTxPS) }},
	{"label_replica_apply_tx_per_s", "", func(c confRow) string { return f4(c.g.Replica.ApplyTxPS) }},
	{"label_catchup_s", "", func(c confRow) string { return f4(c.g.Replica.CatchUpS) }},
	{"label_sustained_mean_metric", "", func(c confRow) string { return f4(c.g.SustainedRate.Mean) }},
	{"label_kept_up", "", func(c confRow) string { return boolText(analyse.Known(c.g.Replica), c.g.KeptUp) }},
	{"sustained_ratio_vs_baseline", "sustained rate ratio (1 for the baseline) and its Fieller CI; slowest replicas' apply rate ratio",
		func(c confRow) string { return c.vsBase(c.g.SustainedRatio, c.g.SustainedRate.Mean) }},
	{"sustained_ratio_ci95_low", "", func(c confRow) string { return ciBound(c.g.SustainedCI, c.g.SustainedCIErr, false) }},
	{"sustained_ratio_ci95_high", "", func(c confRow) string { return ciBound(c.g.SustainedCI, c.g.SustainedCIErr, true) }},
	{"replica_apply_ratio_vs_baseline", "", func(c confRow) string {
		if !analyse.Known(c.g.Replica) {
			return ""
		}
		return c.vsBase(c.g.ApplyRatio, c.g.Replica.ApplyTxPS)
	}},
	{"label_lat_avg_window_ms", "the Latency, footprint and health table: the means of the runs' lat_avg_window_ms and lat_pctl_window_ms", func(c confRow) string { return f4(c.g.WinLatAvg) }},
	{"label_lat_pctl_window_ms", "", func(c confRow) string { return f4(c.g.WinLatPct) }},
	{"label_whole_run_lat_avg_ms", "the client's whole-run latency (warm-up included, not in any table of the report): avg and pNN (means of the runs'), max (the largest); errors (total)",
		func(c confRow) string { return f4(c.g.LatAvg) }},
	{"label_whole_run_lat_pctl_ms", "", func(c confRow) string { return f4(c.g.LatPct) }},
	{"label_whole_run_lat_max_ms", "", func(c confRow) string { return f4(c.g.LatMax) }},
	{"label_errors", "", func(c confRow) string { return f(c.g.Errors) }},
	{"label_table_bytes", "means of the runs' tables as the engine reports them, datadir, the engine's files on disk, binary and relay logs, space amplification",
		func(c confRow) string { return f4(c.g.TableBytes) }},
	{"label_datadir_bytes", "", func(c confRow) string { return f4(c.g.DatadirBytes) }},
	{"label_disk_bytes", "", func(c confRow) string { return f4(c.g.DiskBytes) }},
	{"label_binlog_bytes", "", func(c confRow) string { return f4(c.g.BinlogBytes) }},
	{"label_relay_log_bytes", "", func(c confRow) string { return f4(c.g.RelayBytes) }},
	{"label_space_amp", "", func(c confRow) string { return f4(c.g.SpaceAmp) }},
	{"label_steady_state", "the level-shift test of the configuration's runs together (their mean per-second profile over the seconds their windows share, each run over its own mean): `false` when a shift of 10% or more is significant at 5%, empty when no window had enough intervals; the shift's relative change, the client second where the later level begins, and the runs that shifted with it",
		func(c confRow) string {
			return c.phases(func(p judge.Phases) string { return strconv.FormatBool(!p.Pooled.Found) })
		}},
	{"label_shift_rel", "", func(c confRow) string { return c.phases(func(p judge.Phases) string { return f4(p.Rel) }) }},
	{"label_shift_at_s", "", func(c confRow) string { return c.phases(func(p judge.Phases) string { return f4(p.AtS) }) }},
	{"label_shift_runs", "", func(c confRow) string {
		return c.phases(func(p judge.Phases) string { return strconv.Itoa(p.Shifted) })
	}},
}

// phases is v of the configuration's level-shift test, empty when none
// of its runs was tested.
func (c confRow) phases(v func(judge.Phases) string) string {
	p := c.t.Phases(c.g)
	if !p.Pooled.Tested {
		return ""
	}
	return v(p)
}

// nanBench stands in for a run without benchmark output: every figure NaN.
var nanBench = &load.Bench{LatAvg: math.NaN(), LatPct: math.NaN(), LatMax: math.NaN(), Errors: math.NaN(), DurationS: math.NaN()}

func header[T any](cols ...[]Column[T]) []string {
	var out []string
	for _, cs := range cols {
		for _, c := range cs {
			out = append(out, c.Name)
		}
	}
	return out
}

func values[T any](row T, cols []Column[T]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Value(row)
	}
	return out
}
