package report

import (
	"math"
	"strings"
	"time"
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
	Dir    string // its run directory, "" for parse output
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

	// Replicas are the slaves' apply rates, lags and catch-up; MasterTx is
	// the master's commit rate (gtid_tx_ps) per second.
	Replicas []Replica
	MasterTx []Point
	// Repl is the run's replica figures in its table's metric.
	Repl ReplicaFigures
	// WarmupS is where this run's steady state starts (seconds since the
	// start) and WarmupHow how that was decided: "detected", "--warmup",
	// or the fallback's source when detection had too few intervals.
	WarmupS   float64
	WarmupHow string
	// tableMetric is the metric of the table the run is in.
	tableMetric string
	// Params are the workload's effective parameters and Topology the
	// cluster it ran on, for the report's head and the comparability check.
	Params   []Param
	Topology string
	// Data is what the tables held when the client started (bench.StartingData).
	Data string
}

// Param is one effective workload parameter ("threads", "16").
type Param struct{ Name, Value string }

// Knob is a server variable a matrix cell set.
type Knob struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Point is one sample of a time series: T seconds since the start.
type Point struct{ T, V float64 }

// Bench holds the figures read from a benchmark client's output.
type Bench struct {
	Tool     string
	Version  string
	Complete bool
	// rates holds the throughput figures the output supports, by metric
	// ("writes/s", "tps", "queries/s", "rows/s").
	rates map[string]rate
	// Pctl is the rank of LatPct (95 for p95); 0 when not reported.
	Pctl                   int
	LatAvg, LatPct, LatMax float64 // milliseconds, whole run
	LatSeries              []Point // interval pNN latency, ms
	Errors                 float64
	// DurationS is how long the benchmark ran (NaN when not printed).
	DurationS float64
}

// rate is one throughput metric: the tool's final figure and its
// per-interval values (empty when the tool printed none).
type rate struct {
	Final  float64
	Series []Point
	// plotOnly: the series is not of equal-length intervals (db-insert's
	// equal-row batches), so its plain mean is no steady-state rate.
	plotOnly bool
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
}

// Evidence is what explains a run's figures: versions, host facts and the
// configuration as the servers ran it.
type Evidence struct {
	OrchVersion string
	Command     string
	Servers     map[string]string // host -> server version
	Clients     map[string]string // client -> version
	Facts       []HostFacts
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
type Event struct {
	T      time.Time `json:"t"`
	Host   string    `json:"host"`
	Kind   string    `json:"kind"`
	Detail string    `json:"detail"`
}

// Runs that end in these states enter the statistics.
const stateOK = "ok"

// usable reports whether the run's figures are clean enough for the
// statistics: it ended ok (parse output: the tool's report is complete).
func (r *Run) usable() bool {
	if r.Bench == nil || r.Excluded != "" {
		return false
	}
	if r.State == "" {
		return r.Bench.Complete
	}
	return r.State == stateOK
}

// KnobString is the knobs as "name=value name=value".
func (r *Run) KnobString() string {
	parts := make([]string, len(r.Knobs))
	for i, k := range r.Knobs {
		parts[i] = k.Name + "=" + k.Value
	}
	return strings.Join(parts, " ")
}

// has reports whether the output supports the throughput metric.
func (b *Bench) has(metric string) bool {
	_, ok := b.rates[metric]
	return ok
}

// steady is the run's steady-state rate for metric: the mean of the
// interval rates after warmupS, else the final figure. how says which.
func (b *Bench) steady(metric string, warmupS float64) (v float64, how string) {
	r, ok := b.rates[metric]
	if !ok {
		return math.NaN(), "no " + metric
	}
	sum, n := 0.0, 0
	for _, p := range r.Series {
		if r.plotOnly {
			break
		}
		if p.T > warmupS && !math.IsNaN(p.V) {
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

// final is the tool's own figure for metric (NaN when not printed).
func (b *Bench) final(metric string) float64 {
	if r, ok := b.rates[metric]; ok {
		return r.Final
	}
	return math.NaN()
}

// series is the per-interval rate for metric.
func (b *Bench) series(metric string) []Point {
	return b.rates[metric].Series
}

func nan() float64 { return math.NaN() }

// fl converts an optional JSON number to a float, NaN when absent.
func fl(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}
