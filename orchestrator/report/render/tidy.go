package render

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// Column is one column of a CSV file the report writes: its name, what it
// holds (the README's tables are generated from these, readme.go) and
// its value in a row. A column with no Doc shares the one before's.
type Column[T any] struct {
	Name, Doc string
	Value     func(T) string
}

// ConfRow is what a configuration's columns are computed from.
type ConfRow struct {
	Rep *judge.Report
	T   *judge.Table
	G   *judge.Group
}

// RunRow is a run's row: its configuration, the run, its benchmark (a
// stand-in of NaNs when it has none).
type RunRow struct {
	ConfRow
	R *load.Run
	B *load.Bench
}

func (c ConfRow) base() bool { return c.G == c.T.Baseline }

// vsBase is a ratio against the baseline: 1 for the baseline itself when
// its own figure (own) was computed.
func (c ConfRow) vsBase(v, own float64) string {
	if c.base() && !math.IsNaN(own) {
		return "1"
	}
	return F4(v)
}

// ciBound is one bound of a Fieller interval: -inf/inf when unbounded,
// empty when not computed.
func ciBound(ci *analyse.RatioCI, err error, high bool) string {
	switch {
	case ci != nil && high:
		return F4(ci.High)
	case ci != nil:
		return F4(ci.Low)
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

// TableColumns name the table a row belongs to and its configuration: the
// first columns of results.csv and configurations.csv.
var TableColumns = []Column[ConfRow]{
	{"workload", "the table the row is in: workload, client and its compared figure (`writes/s`, `tps`, `queries/s`, `rows/s`, or `s to run all queries` for mysqlslap: the unit of every `_metric` column)",
		func(c ConfRow) string { return c.T.Workload }},
	{"tool", "", func(c ConfRow) string { return c.T.Tool }},
	{"metric", "", func(c ConfRow) string { return c.T.Metric }},
	{"label", "the configuration", func(c ConfRow) string { return c.G.Label }},
	{"is_baseline", "whether it is the baseline", func(c ConfRow) string { return strconv.FormatBool(c.base()) }},
}

// RunColumns are a run's own figures in results.csv.
var RunColumns = []Column[RunRow]{
	{"run", "run id, repetition, how the run ended, whether it counts in the statistics", func(r RunRow) string { return r.R.ID }},
	{"rep", "", func(r RunRow) string { return count(r.R.Rep) }},
	{"state", "", func(r RunRow) string { return r.R.State }},
	{"in_statistics", "", func(r RunRow) string { return strconv.FormatBool(r.R.Usable()) }},
	{"engine", "the run's engine and knob settings", func(r RunRow) string { return r.R.Engine }},
	{"knobs", "", func(r RunRow) string { return r.R.KnobString() }},
	{"steady_metric", "steady-state figure over the run's window, and whether it is the mean of the `intervals` or the tool's `final` figure",
		func(r RunRow) string { v, _ := r.T.SteadyOf(r.R); return F4(v) }},
	{"steady_source", "", func(r RunRow) string { _, how := r.T.SteadyOf(r.R); return how }},
	{"final_metric", "the tool's own whole-run figure", func(r RunRow) string { return f(r.B.Final(r.T.Metric)) }},
	{"lat_avg_window_ms", "the mean latency in the run's window: client threads over its transaction rate there (Little's law; empty for a --rate run)",
		func(r RunRow) string { return f(r.B.WindowLatAvg(r.R.Win)) }},
	{"lat_pctl_window_ms", "the mean of the client's per-interval pNN latency over the run's window (the rank is lat_percentile)",
		func(r RunRow) string { return f(r.B.WindowLat(r.R.Win)) }},
	{"whole_run_lat_avg_ms", "the client's whole-run latency summary (warm-up included, so not of the window): average, the percentile's rank (95 for p95) and value, max; error count",
		func(r RunRow) string { return f(r.B.LatAvg) }},
	{"lat_percentile", "", func(r RunRow) string { return count(r.B.Pctl) }},
	{"whole_run_lat_pctl_ms", "", func(r RunRow) string { return f(r.B.LatPct) }},
	{"whole_run_lat_max_ms", "", func(r RunRow) string { return f(r.B.LatMax) }},
	{"errors", "", func(r RunRow) string { return f(r.B.Errors) }},
	{"table_bytes", "the benchmark tables on the master as the engine reports them, the master's datadir on disk",
		func(r RunRow) string { return f(r.R.Health.TableBytes) }},
	{"datadir_bytes", "", func(r RunRow) string { return f(r.R.Health.DatadirBytes) }},
	{"semisync_fallback_s", "seconds the master ran asynchronously, commits without an acknowledgement", func(r RunRow) string { return f(r.R.Health.FallbackS) }},
	{"semisync_no_tx", "", func(r RunRow) string { return f(r.R.Health.NoTx) }},
	{"max_lag_s", "worst replica lag (seconds: Seconds_Behind_Master, whole seconds, 0 while under 1 s behind; transactions), stalls seen", func(r RunRow) string { return f(r.R.Health.MaxLagS) }},
	{"max_lag_tx", "", func(r RunRow) string { return f(r.R.Health.MaxLagTx) }},
	{"stalls", "", func(r RunRow) string { return strconv.Itoa(r.R.Health.Stalls) }},
	{"consistency", "`ok`/`MISMATCH`, the failed checks (`; `-separated)", func(r RunRow) string { return r.R.Health.Consistency }},
	{"failed_checks", "", func(r RunRow) string { return strings.Join(r.R.Health.FailedChecks, "; ") }},
	{"source", "the input path", func(r RunRow) string { return r.R.Source }},
	{"warmup_s", "the run's warm-up (the window's start) and `detected`, `--warmup`, `matrix.json`, `default` or `whole run: ...`",
		func(r RunRow) string { return r.bench(func() string { return F4(r.R.WarmupS) }) }},
	{"warmup_source", "", func(r RunRow) string { return r.bench(func() string { return r.R.WarmupHow }) }},
	{"run_s", "seconds the run's window covers (exclusions out; mysqlslap: its duration)", func(r RunRow) string { return F4(r.R.Repl.RunS) }},
	{"master_tx_per_s", "master's commit rate and slowest slave's apply rate over the window (gtid_tx_ps integrated over the window's seconds)",
		func(r RunRow) string { return F4(r.R.Repl.MasterTxPS) }},
	{"replica_apply_tx_per_s", "", func(r RunRow) string { return F4(r.R.Repl.ApplyTxPS) }},
	{"lag_end_tx", "lag at the window's end (transactions; seconds: Seconds_Behind_Master, whole seconds per run, 0 while under 1 s behind) and least-squares growth through the window of the slave furthest behind at the window's end (on a tie, the one whose lag grew fastest; named in report.md)",
		func(r RunRow) string { return F4(r.R.Repl.LagEndTx) }},
	{"lag_end_s", "", func(r RunRow) string { return F4(r.R.Repl.LagEndS) }},
	{"lag_growth_tx_per_s", "", func(r RunRow) string { return F4(r.R.Repl.LagGrowthTxPS) }},
	{"catchup_s", "time until every slave applied the master's last transaction: from the load's end (`catch_up_ns`) when the run recorded it, else from the wait's start",
		func(r RunRow) string { return F4(r.R.Repl.CatchUpS) }},
	{"sustained_metric", "steady x window / (window + catch-up), so never above `steady_metric` (mysqlslap: run + catch-up seconds); whether the replicas kept up",
		func(r RunRow) string { return F4(r.R.Repl.Sustained) }},
	{"replicas_kept_up", "", func(r RunRow) string { return boolText(analyse.Known(r.R.Repl), analyse.KeptUp(r.R.Repl)) }},
	{"replicas_behind_why", "why the run fell behind (empty when it kept up): a slave's lag grew over the window's last 5 s, never caught up, or caught up too slowly",
		func(r RunRow) string {
			if !analyse.Known(r.R.Repl) || analyse.KeptUp(r.R.Repl) {
				return ""
			}
			return judge.BehindWhy(r.R.Repl)
		}},
	{"peak_lag_tx", "the largest lag of any slave in the window (transactions, each slave's sample against the master's position interpolated at its instant), that slave, when it peaked and since when it rose (load seconds)",
		func(r RunRow) string { return F4(r.R.Repl.PeakLagTx) }},
	{"peak_lag_host", "", func(r RunRow) string { return r.R.Repl.PeakHost }},
	{"peak_lag_at_s", "", func(r RunRow) string { return F4(r.R.Repl.PeakAtS) }},
	{"peak_lag_from_s", "", func(r RunRow) string { return F4(r.R.Repl.PeakFromS) }},
	{"disk_bytes", "the benchmark tables' files of the run's engine on the master (`.ibd`, `#rocksdb`, `.tokudb`), the master's binary logs, the largest slave relay logs (`du -b`)",
		func(r RunRow) string { return f(r.R.Health.DiskBytes) }},
	{"binlog_bytes", "", func(r RunRow) string { return f(r.R.Health.BinlogBytes) }},
	{"relay_log_bytes", "", func(r RunRow) string { return f(r.R.Health.RelayBytes) }},
	{"rows", "the master's rows after the run (consistency check); `disk_bytes` / (rows x logical row bytes, 188 for sysbench oltp tables)",
		func(r RunRow) string { return f(r.R.Health.Rows) }},
	{"space_amp", "", func(r RunRow) string { return F4(analyse.SpaceAmp(r.R)) }},
	{"cluster", "the run's cluster, in a matrix over several", func(r RunRow) string { return r.R.Cluster }},
	{"window_from_s", "the run's window in the client's seconds, and the seconds of it left out for instrument spans", func(r RunRow) string { return F4(r.R.Win.FromS) }},
	{"window_to_s", "", func(r RunRow) string { return F4(r.R.Win.ToS) }},
	{"window_excluded_s", "", func(r RunRow) string { return F4(analyse.ExcludedS(r.R.Win)) }},
	{"flags", "the invariants the run violates, `; `-separated (empty: none)", func(r RunRow) string { return strings.Join(r.R.Flags, "; ") }},
	{"shift_found", "the run's own level-shift test over its window (steady state; the report decides on its configuration's runs together): whether a shift of 10% or more is significant, the best split's relative change (later / earlier level - 1) and the client second where the later level begins; empty when the window had too few intervals",
		func(r RunRow) string {
			return r.shift(func(s load.Shift) string { return strconv.FormatBool(s.Found) })
		}},
	{"shift_rel", "", func(r RunRow) string { return r.shift(func(s load.Shift) string { return F4(s.Rel) }) }},
	{"shift_at_s", "", func(r RunRow) string { return r.shift(func(s load.Shift) string { return F4(s.AtS) }) }},
}

// shift is v of the run's level-shift test, empty when it was not tested.
func (r RunRow) shift(v func(load.Shift) string) string {
	if !r.R.Shift.Tested {
		return ""
	}
	return v(r.R.Shift)
}

// bench is v when the run has benchmark output, else empty.
func (r RunRow) bench(v func() string) string {
	if r.R.Bench == nil {
		return ""
	}
	return v()
}

// ConfColumns are a configuration's statistics: configurations.csv, and
// repeated on each of its runs' rows in results.csv.
var ConfColumns = []Column[ConfRow]{
	{"label_n", "runs in the statistics; mean, sd, Student's t 95% CI of the mean, median of their steady figures; coefficient of variation in percent, `label_noisy` when above 5%",
		func(c ConfRow) string { return strconv.Itoa(c.G.Rate.N) }},
	{"label_mean_metric", "", func(c ConfRow) string { return F4(c.G.Rate.Mean) }},
	{"label_sd_metric", "", func(c ConfRow) string { return F4(c.G.Rate.SD) }},
	{"label_ci95_low_metric", "", func(c ConfRow) string { return F4(c.G.Rate.CILow) }},
	{"label_ci95_high_metric", "", func(c ConfRow) string { return F4(c.G.Rate.CIHigh) }},
	{"label_median_metric", "", func(c ConfRow) string { return F4(c.G.Median) }},
	{"label_cv_pct", "", func(c ConfRow) string { return F4(100 * c.G.CV) }},
	{"label_noisy", "", func(c ConfRow) string { return strconv.FormatBool(c.G.Noisy) }},
	{"ratio_vs_baseline", "ratio to the baseline (1 for the baseline) and its 95% CI, from the analysis the report's Method states: blocked, the geometric mean of the rounds' ratios and t across rounds; unpaired, the ratio of means and Fieller's CI (`-inf`/`inf`: unbounded, the baseline's mean not significantly above 0)",
		func(c ConfRow) string { return c.vsBase(c.G.Ratio, c.G.Rate.Mean) }},
	{"ratio_ci95_low", "", func(c ConfRow) string { return ciBound(c.G.RatioCI, c.G.RatioCIErr, false) }},
	{"ratio_ci95_high", "", func(c ConfRow) string { return ciBound(c.G.RatioCI, c.G.RatioCIErr, true) }},
	{"p_value", "the same analysis's p (blocked: Student's t on the rounds' log ratios; unpaired: Welch's), p below its level, Mann-Whitney U p (5+ runs per side), runs per configuration needed to resolve the difference",
		func(c ConfRow) string {
			if c.G.Test == nil {
				return ""
			}
			return strconv.FormatFloat(c.G.Test.P, 'g', 4, 64)
		}},
	{"significant", "", func(c ConfRow) string {
		if c.G.Test == nil {
			return ""
		}
		return strconv.FormatBool(c.G.Test.Significant())
	}},
	{"mann_whitney_p", "", func(c ConfRow) string {
		if c.G.UTest == nil {
			return ""
		}
		return strconv.FormatFloat(c.G.UTest.P, 'g', 4, 64)
	}},
	{"reps_needed", "", func(c ConfRow) string { return count(c.G.RepsNeeded) }},
	{"no_effect", "knobs the server ignores, the verdict line", func(c ConfRow) string { return strings.Join(c.G.NoEffect, " ") }},
	{"verdict", "", func(c ConfRow) string { return c.G.Verdict }},
	{"label_master_tx_per_s", "the configuration's means of the replica figures; whether every run kept up (each judged on its own)",
		func(c ConfRow) string { return F4(c.G.Replica.MasterTxPS) }},
	{"label_replica_apply_tx_per_s", "", func(c ConfRow) string { return F4(c.G.Replica.ApplyTxPS) }},
	{"label_catchup_s", "", func(c ConfRow) string { return F4(c.G.Replica.CatchUpS) }},
	{"label_sustained_mean_metric", "", func(c ConfRow) string { return F4(c.G.SustainedRate.Mean) }},
	{"label_kept_up", "", func(c ConfRow) string { return boolText(analyse.Known(c.G.Replica), c.G.KeptUp) }},
	{"sustained_ratio_vs_baseline", "sustained rate ratio (1 for the baseline) and its Fieller CI; slowest replicas' apply rate ratio",
		func(c ConfRow) string { return c.vsBase(c.G.SustainedRatio, c.G.SustainedRate.Mean) }},
	{"sustained_ratio_ci95_low", "", func(c ConfRow) string { return ciBound(c.G.SustainedCI, c.G.SustainedCIErr, false) }},
	{"sustained_ratio_ci95_high", "", func(c ConfRow) string { return ciBound(c.G.SustainedCI, c.G.SustainedCIErr, true) }},
	{"replica_apply_ratio_vs_baseline", "", func(c ConfRow) string {
		if !analyse.Known(c.G.Replica) {
			return ""
		}
		return c.vsBase(c.G.ApplyRatio, c.G.Replica.ApplyTxPS)
	}},
	{"label_lat_avg_window_ms", "the Latency, footprint and health table: the means of the runs' lat_avg_window_ms and lat_pctl_window_ms", func(c ConfRow) string { return F4(c.G.WinLatAvg) }},
	{"label_lat_pctl_window_ms", "", func(c ConfRow) string { return F4(c.G.WinLatPct) }},
	{"label_whole_run_lat_avg_ms", "the client's whole-run latency (warm-up included, not in any table of the report): avg and pNN (means of the runs'), max (the largest); errors (total)",
		func(c ConfRow) string { return F4(c.G.LatAvg) }},
	{"label_whole_run_lat_pctl_ms", "", func(c ConfRow) string { return F4(c.G.LatPct) }},
	{"label_whole_run_lat_max_ms", "", func(c ConfRow) string { return F4(c.G.LatMax) }},
	{"label_errors", "", func(c ConfRow) string { return f(c.G.Errors) }},
	{"label_table_bytes", "means of the runs' tables as the engine reports them, datadir, the engine's files on disk, binary and relay logs, space amplification",
		func(c ConfRow) string { return F4(c.G.TableBytes) }},
	{"label_datadir_bytes", "", func(c ConfRow) string { return F4(c.G.DatadirBytes) }},
	{"label_disk_bytes", "", func(c ConfRow) string { return F4(c.G.DiskBytes) }},
	{"label_binlog_bytes", "", func(c ConfRow) string { return F4(c.G.BinlogBytes) }},
	{"label_relay_log_bytes", "", func(c ConfRow) string { return F4(c.G.RelayBytes) }},
	{"label_space_amp", "", func(c ConfRow) string { return F4(c.G.SpaceAmp) }},
	{"label_steady_state", "the level-shift test of the configuration's runs together (their mean per-second profile over the seconds their windows share, each run over its own mean): `false` when a shift of 10% or more is significant at 5%, empty when no window had enough intervals; the shift's relative change, the client second where the later level begins, and the runs that shifted with it",
		func(c ConfRow) string {
			return c.phases(func(p judge.Phases) string { return strconv.FormatBool(!p.Pooled.Found) })
		}},
	{"label_shift_rel", "", func(c ConfRow) string { return c.phases(func(p judge.Phases) string { return F4(p.Rel) }) }},
	{"label_shift_at_s", "", func(c ConfRow) string { return c.phases(func(p judge.Phases) string { return F4(p.AtS) }) }},
	{"label_shift_runs", "", func(c ConfRow) string {
		return c.phases(func(p judge.Phases) string { return strconv.Itoa(p.Shifted) })
	}},
}

// phases is v of the configuration's level-shift test, empty when none
// of its runs was tested.
func (c ConfRow) phases(v func(judge.Phases) string) string {
	p := c.T.Phases(c.G)
	if !p.Pooled.Tested {
		return ""
	}
	return v(p)
}

// NanBench stands in for a run without benchmark output: every figure NaN.
var NanBench = &load.Bench{LatAvg: math.NaN(), LatPct: math.NaN(), LatMax: math.NaN(), Errors: math.NaN(), DurationS: math.NaN()}

func Header[T any](cols ...[]Column[T]) []string {
	var out []string
	for _, cs := range cols {
		for _, c := range cs {
			out = append(out, c.Name)
		}
	}
	return out
}

func Values[T any](row T, cols []Column[T]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Value(row)
	}
	return out
}
