package load

import (
	"math"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// Run is one benchmark result: a matrix cell, a run directory or one
// document of an `orch parse` file. Absent figures are NaN.
type Run struct {
	// ID names the run uniquely: the cell id, or the directory or file name.
	ID string
	// Label names the configuration; repetitions share it.
	Label  string
	Rep    int
	Source string // the path it was read from
	// inMatrix: read from a matrix, which labels it (load_group.go).
	inMatrix bool
	Dir      string // its run directory, "" for parse output
	// Workload is the workload's name, "" for parse output.
	Workload string
	Tool     string
	Engine   string
	Knobs    []Knob
	// State is ok, failed, interrupted, pending or running; "" for parse
	// output, which has no run around it.
	State string
	Error string
	// Cluster ran the run, in a matrix over several clusters ("" else);
	// Excluded says why such a run is left out of the statistics.
	Cluster, Excluded string

	Bench    *Bench // nil when there is no parsed benchmark output
	Health   Health
	Spans    []Span  // semi-sync off, stalls, faults: seconds since the monitor start
	Lag      []Point // worst slave's lag in transactions, per second
	Evidence *Evidence

	// Replicas are the slaves' apply rates, lags and catch-up; master is
	// the master's mysql.csv (its commit rate gtid_tx_ps).
	Replicas []Replica
	Master   *Series
	// Repl is the run's replica figures in its table's metric.
	Repl ReplicaFigures
	// WarmupS is where this run's steady state starts (seconds since the
	// start) and WarmupHow how that was decided: "detected", "--warmup",
	// or the fallback's source when detection had too few intervals.
	WarmupS   float64
	WarmupHow string
	// Win is the run's one window (window.go): every figure of the run is
	// computed over it. WarmupS and WarmupHow are its start.
	Win Window
	// Shift is its window's level-shift test (levelshift.go).
	Shift Shift
	// LoadOffsetS is the load's start (load_start) on the monitors' clock,
	// 0 in older runs; LoadEndS the load's end (load_end) in load seconds,
	// NaN when not recorded. Instrument are the stack-sampling spans
	// inside the load, in load seconds.
	LoadOffsetS, LoadEndS float64
	Instrument            []Span
	// Instruments says what watched the run ("" when not recorded).
	Instruments string
	// Flags are the invariants the run's figures violate (invariants.go):
	// shown in the Runs table and results.csv, never silently averaged.
	Flags []string
	// tableMetric is the metric of the table the run is in.
	TableMetric string
	// Params are the workload's effective parameters and Topology the
	// cluster it ran on, for the report's head and the comparability check;
	// SemiSync is Topology's semi-sync state ("semi-sync on", "" when not
	// monitored).
	Params   []Param
	Topology string
	SemiSync string
	// Data is what the tables held when the client started (bench.StartingData).
	Data string
}

// Param is one effective workload parameter ("threads", "16").
type Param struct{ Name, Value string }

// Knob is a server variable a matrix cell set (matrix.json's own type).
type Knob = schema.KV

// Point is one sample of a time series: T seconds since the start.
type Point struct{ T, V float64 }

// Bench holds the figures read from a benchmark client's output.
type Bench struct {
	Tool     string
	Version  string
	Complete bool
	// rates holds the throughput figures the output supports, by metric
	// ("writes/s", "tps", "queries/s", "rows/s").
	Rates map[string]Rate
	// Pctl is the rank of LatPct (95 for p95); 0 when not reported.
	Pctl                   int
	LatAvg, LatPct, LatMax float64 // milliseconds, whole run
	LatSeries              []Point // interval pNN latency, ms
	// threads are the intervals' running client threads ("thds"), for
	// the window's mean latency (windowLatAvg); openLoop: the client ran
	// at a set --rate, so they are not all busy.
	threads  []Point
	openLoop bool
	Errors   float64
	// DurationS is how long the benchmark ran (NaN when not printed).
	DurationS float64
	// IntervalsDropped counts the interval lines the parser did not keep
	// (beyond bench.MaxIntervals): the run's figures end where it stopped.
	IntervalsDropped int64
}

// Rate is one throughput metric: the tool's final figure and its
// per-interval values (empty when the tool printed none).
type Rate struct {
	Final  float64
	Series []Point
	// plotOnly: the series is not of equal-length intervals (db-insert's
	// equal-row batches), so its plain mean is no steady-state rate.
	PlotOnly bool
}

// Health is what the run's checks and monitors recorded besides the
// benchmark.
type Health struct {
	// SemiSync: the master had semi-sync enabled; then FallbackS is the
	// time it ran asynchronously and NoTx the commits made without an ack.
	SemiSync        bool
	FallbackS, NoTx float64
	// MaxLagS, MaxLagTx: the worst slave lag seen (seconds, transactions).
	MaxLagS, MaxLagTx float64
	Stalls            int
	// Consistency is "ok", "MISMATCH" or "" when not checked.
	Consistency string
	// TableBytes: the benchmark tables' data+index on the master as the
	// engine reports them; DatadirBytes: the master's datadir on disk.
	TableBytes, DatadirBytes float64
	// DiskBytes: the benchmark tables' files of the run's engine on the
	// master (.ibd, #rocksdb, .tokudb); BinlogBytes the master's binary
	// logs, RelayBytes the largest slave relay logs; Rows the master's row
	// count after the run (consistency check).
	DiskBytes, BinlogBytes, RelayBytes, Rows float64
	FailedChecks                             []string
}

// Span is a period shaded on the time plots.
type Span struct {
	From, To float64 // seconds since the monitor start
	What     string  // "semi-sync off", "stall", "fault: ..."
	Host     string
	// Detail is a stack sample's tool (gdb, perf) when its event says.
	Detail string
}

// Evidence is what explains a run's figures: versions, host facts and the
// configuration as the servers ran it.
type Evidence struct {
	OrchVersion string
	Command     string
	// Start is when the run started and Cluster the inventory's name, as
	// the manifest records them (zero, "" when not).
	Start   time.Time
	Cluster string
	Servers map[string]string // host -> server version
	// EngineVersions is host -> the run's engine's own version ("TokuDB
	// 5.6.49-89.0"), for an engine that has one.
	EngineVersions map[string]string
	Clients        map[string]string // client -> version
	Facts          []HostFacts
	// Hosts with configuration files, master first.
	Hosts     []string
	Config    map[string][]string          // host -> config.cnf lines
	Variables map[string]map[string]string // host -> SHOW VARIABLES
	Roles     map[string]string            // host -> master, slave
}

// HostFacts is one host's facts as `orch check` gathered them, as
// key/value pairs in a fixed order.
type HostFacts struct {
	Host  string
	Facts [][2]string
}

// Event is one line of events.jsonl.
type Event = schema.Event

// Runs that end in these states enter the statistics; a matrix's skipped
// cells never ran (its stopping rule did not need them).
const (
	StateOK      = "ok"
	stateSkipped = "skipped"
)

// Usable reports whether the run's figures are clean enough for the
// statistics: it ended ok (parse output: the tool's report is complete).
func (r *Run) Usable() bool {
	if r.Bench == nil || r.Excluded != "" {
		return false
	}
	if r.State == "" {
		return r.Bench.Complete
	}
	return r.State == StateOK
}

// KnobString is the knobs as "name=value name=value".
func (r *Run) KnobString() string {
	parts := make([]string, len(r.Knobs))
	for i, k := range r.Knobs {
		parts[i] = k.Name + "=" + k.Value
	}
	return strings.Join(parts, " ")
}

// Has reports whether the output supports the throughput metric.
func (b *Bench) Has(metric string) bool {
	_, ok := b.Rates[metric]
	return ok
}

// Steady is the run's steady-state rate for metric over its window: the
// mean of the interval rates the window keeps (equal-length intervals, so
// the time-weighted mean), else the final figure. how says which.
func (b *Bench) Steady(metric string, w Window) (v float64, how string) {
	r, ok := b.Rates[metric]
	if !ok {
		return math.NaN(), "no " + metric
	}
	step := StepOf(r.Series)
	sum, n := 0.0, 0
	for _, p := range r.Series {
		if r.PlotOnly {
			break
		}
		if w.Keeps(p.T, step) && !math.IsNaN(p.V) {
			sum += p.V
			n++
		}
	}
	if n > 0 {
		return sum / float64(n), "intervals"
	}
	if !math.IsNaN(r.Final) {
		return r.Final, "final"
	}
	return math.NaN(), "none"
}

// WindowLat is the client's pNN latency over the window: the mean of its
// per-interval pNN (ms) there, NaN when it printed none in the window.
// Not the window's own percentile (the client prints no distribution per
// interval), and so labelled.
func (b *Bench) WindowLat(w Window) float64 {
	step := StepOf(b.LatSeries)
	sum, n := 0.0, 0
	for _, p := range b.LatSeries {
		if w.Keeps(p.T, step) && !math.IsNaN(p.V) {
			sum += p.V
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// WindowLatAvg is the mean latency (ms) of the events in the window, by
// Little's law: in a closed loop every client thread always has one event
// in flight, so the mean latency is the threads over the event rate,
// Σ threads / Σ tps over the window's intervals. The client prints no
// per-interval mean; on its real outputs this agrees with its whole-run
// mean within 2% (bench.TestLittlesLaw). NaN for an open-loop (--rate)
// run, whose threads may idle, and when the intervals print no threads
// or no transactions.
func (b *Bench) WindowLatAvg(w Window) float64 {
	tps := b.Series(MetricTPS)
	if b.openLoop || len(tps) == 0 || len(tps) != len(b.threads) {
		return math.NaN()
	}
	step := StepOf(tps)
	threads, rate := 0.0, 0.0
	for i, p := range tps {
		if !w.Keeps(p.T, step) {
			continue
		}
		if math.IsNaN(p.V) || math.IsNaN(b.threads[i].V) {
			return math.NaN()
		}
		threads += b.threads[i].V
		rate += p.V
	}
	if rate <= 0 {
		return math.NaN()
	}
	return 1000 * threads / rate
}

// Final is the tool's own figure for metric (NaN when not printed).
func (b *Bench) Final(metric string) float64 {
	if r, ok := b.Rates[metric]; ok {
		return r.Final
	}
	return math.NaN()
}

// Series is the per-interval rate for metric.
func (b *Bench) Series(metric string) []Point {
	return b.Rates[metric].Series
}

func NaN() float64 { return math.NaN() }

// fl converts an optional JSON number to a float, NaN when absent.
func fl(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// Shift is the outcome of one run's level-shift test over its window.
type Shift struct {
	// Tested: the window had enough intervals (2·shiftMinSeg).
	Tested bool
	// Found: the best two-segment split is significant at ShiftAlpha and
	// moves the level by at least ShiftMinRel.
	Found bool
	// AtS is the client second where the later phase begins (the end of
	// the last interval before it) and NextS the start of the first
	// interval after it: the shift happened in (AtS, NextS], a gap when
	// the window left seconds out between them. Before and After are the
	// phases' mean rates; Rel = After/Before - 1 (negative: a drop).
	AtS, NextS, Before, After, Rel float64
	// Stat is the test statistic and Crit its critical value at
	// ShiftAlpha for the window's length N; CritLo, CritHi the simulated
	// quantile's own uncertainty (shiftCrit): a statistic between them is
	// a borderline decision, which another simulation could turn.
	Stat, Crit, CritLo, CritHi float64
	N                          int
	// FromS, ToS are the window's ends (client seconds) the test ran on.
	FromS, ToS float64
}
