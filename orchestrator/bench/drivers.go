package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// The benchmark drivers orch knows, one entry each: what the rest of orch
// needs to know about a driver lives here, as the server flavours'
// differences live in flavor's engine table. Adding a driver is one entry
// in Drivers plus its Driver (driver_*.go) and, for a new output format,
// its parser (parse_*.go), its Sniff and the report's reader (report/bench.go's
// benchReaders); TestDriverTableComplete names whatever an entry leaves
// out (docs/extending.md, "Adding a benchmark driver").

// DriverSpec is everything orch knows about one benchmark driver.
type DriverSpec struct {
	Kind DriverKind
	// New makes the driver for a validated workload of this kind.
	New func(w *Workload) Driver
	// Tool is the format of its output: the "tool" a result says and the
	// report reads it by. "" for custom, whose workload names the format
	// of another driver (its parser: key).
	Tool Tool
	// Parse reads a run's complete output in that format.
	Parse func(name string, r io.Reader) (Result, error)
	// Sniff reports whether a line of output is characteristic of the
	// format, for ParseAuto's Detect (the first such line decides).
	Sniff func(line string) bool
	// Aliases are other names of the format a workload's parser: key and
	// `orch parse --tool` accept ("mariadb-slap").
	Aliases []string
	// Metrics are the figures a report compares runs of this output by,
	// the preferred first, each with its direction.
	Metrics []Metric
	// Phases are the phases it has, in order; a workload asks for
	// prepare and cleanup only where they exist.
	Phases []Phase
	// Test: its workloads name the test to run (test:, sysbench's
	// oltp_insert or a Lua script): required there, refused elsewhere.
	Test bool
	// Program is the program a workload without a binary: key runs.
	Program string
	// Percentile is the latency percentile its interval lines print when
	// the workload sets none (Workload.LatencyPercentile).
	Percentile int
	// Defaults fills what only this driver defaults (nil: nothing beyond
	// the common defaults).
	Defaults func(w *Workload)
	// Validate checks what only this driver requires, after the common
	// rules; nil: options.engine, when set, must be one engine name.
	Validate func(w *Workload) error
	// PasswordArg reports an argument its option parser reads as a
	// password beyond a long option naming one (nil: none).
	PasswordArg func(arg string) bool
	// Processes are its programs' process names (/proc/PID/comm) whose CPU
	// a load box's monitor sums as the clients' (monitor.ClientCommands).
	Processes []string
	// Server: its load goes through the database server, logged in as
	// orch's benchmark account on the master (account.BenchPasswordFile).
	// False: it benchmarks a storage library on its host directly (no
	// account, no stall watch, the servers left at the inventory's
	// profile).
	Server bool
	// Schemas are the schemas its workloads use by default (the first is
	// Workload.Database's default), which the benchmark account is granted
	// and orch creates before prepare (account.BenchSchemas).
	Schemas []string
	// OwnTable reports whether a table of one of Schemas is one the tool
	// creates: only those does `orch down --purge` drop there.
	OwnTable func(table string) bool
	// EngineOption: the workload's options.engine names the storage
	// engine (or library) its data is made in, which a run and a matrix
	// cell set to the cell's engine unless an override names one.
	EngineOption bool
	// Checks are what `orch check` verifies on a load box for it: one of
	// the programs installed, its version line a host fact.
	Checks []ClientCheck
	// Tail says why a run cannot carry a profiling tail (a short extra run
	// sampled for stacks); "" when it can: its duration is orch's to set.
	Tail string
	// SeveralLoadBoxes: a workload can be split over several load boxes
	// and their results merged (ClientWorkloads, MergeSysbench).
	SeveralLoadBoxes bool
	// None says why a field is left empty, by field name: an empty field
	// without a reason fails TestDriverTableComplete.
	None map[string]string
}

// Metric is a figure a report compares runs by, in the words engineers
// use, and which way is better.
type Metric struct {
	Name          string
	LowerIsBetter bool // a time (mysqlslap's seconds), not a rate
}

// The metrics of the drivers' outputs.
const (
	MetricWrites  = "writes/s"
	MetricTPS     = "tps"
	MetricQueries = "queries/s"
	MetricRows    = "rows/s"
	// MetricSeconds is mysqlslap's own figure: seconds to run all queries
	// (the sum of its blocks' averages).
	MetricSeconds = "s to run all queries"
)

// ClientCheck is one program `orch check` looks for on a load box.
type ClientCheck struct {
	// Fact names the version line among the host's facts and the
	// manifest's clients: "sysbench".
	Fact string
	// Programs are looked up in PATH in order; the first found is asked
	// for --version.
	Programs []string
	// Label names the program in a problem; Install says what provides it.
	Label, Install string
}

// Drivers is the table, in the order lists of drivers are printed.
var Drivers = []DriverSpec{
	{
		Kind: DriverSysbench, New: func(w *Workload) Driver { return &sysbenchDriver{w: w} },
		Tool: ToolSysbench, Parse: parseSysbench, Sniff: sniffSysbench, Metrics: sysbenchMetrics,
		Phases: []Phase{PhasePrepare, PhaseRun, PhaseCleanup}, Processes: []string{"sysbench"},
		Test: true, Program: "sysbench", Percentile: sysbenchPercentile,
		Server: true, Schemas: []string{"sbtest"}, OwnTable: sbtestTable, EngineOption: true,
		Checks: []ClientCheck{sysbenchCheck}, SeveralLoadBoxes: true,
	},
	{
		Kind: DriverSysbenchLegacy, New: func(w *Workload) Driver { return &sysbenchDriver{w: w, legacy: true} },
		Tool: ToolSysbench, Parse: parseSysbench, Sniff: sniffSysbench, Metrics: sysbenchMetrics,
		Phases: []Phase{PhasePrepare, PhaseRun, PhaseCleanup}, Processes: []string{"sysbench"},
		Test: true, Program: "sysbench", Percentile: sysbenchPercentile,
		Server: true, Schemas: []string{"sbtest"}, OwnTable: sbtestTable, EngineOption: true,
		Checks: []ClientCheck{sysbenchCheck},
		None: map[string]string{
			"SeveralLoadBoxes": "legacy sysbench prints no histogram to merge several clients' percentiles from"},
	},
	{
		Kind: DriverMysqlslap, New: func(w *Workload) Driver { return &slapDriver{w: w} },
		Tool: ToolMysqlslap, Parse: parseMysqlslap, Sniff: sniffMysqlslap, Aliases: []string{"mariadb-slap"},
		Metrics: []Metric{{MetricSeconds, true}, {MetricQueries, false}},
		Phases:  []Phase{PhaseRun}, Processes: slapPrograms,
		Validate: validateSlap, PasswordArg: slapPasswordArg,
		Server: true, Schemas: []string{"mysqlslap"}, OwnTable: func(t string) bool { return t == "t1" }, EngineOption: true,
		Checks: []ClientCheck{{Fact: "mysqlslap", Programs: slapPrograms, Label: "mysqlslap/mariadb-slap", Install: "mariadb-client/mysql-client (mysqlslap)"}},
		Tail:   "mysqlslap runs a query count, not a duration, so it cannot carry a profiling tail of a few seconds",
		None: map[string]string{
			"Test":             "it runs SQL it generates, no named test",
			"Program":          "its driver runs mysqlslap, else mariadb-slap, whichever the box has",
			"Percentile":       "it prints no latency percentile",
			"SeveralLoadBoxes": "its blocks hold averages only, which do not merge into one run's figures"},
	},
	{
		Kind: DriverCustom, New: func(w *Workload) Driver { return &customDriver{w: w} },
		Phases: []Phase{PhaseRun}, Server: true, Validate: validateCustom,
		Tail: "a custom workload has no duration orch can set, so it cannot carry a profiling tail",
		None: map[string]string{
			"Tool": "the workload's parser: key names another driver's format", "Parse": "the named format's",
			"Sniff":      "the named format's",
			"Metrics":    "the named format's",
			"Test":       "its program's arguments are the workload's extra_args",
			"Program":    "the workload's binary: key, required",
			"Percentile": "orch cannot tell what its program's interval lines hold",
			"Processes":  "any program: the monitor cannot tell its CPU from the box's",
			"Schemas":    "the workload's database: key, which orch neither grants nor creates",
			"OwnTable":   "no schema of its own", "EngineOption": "orch cannot set a program's engine",
			"Checks":           "its binary is the workload's: the run's step says when it is missing",
			"SeveralLoadBoxes": "its output format decides; only sysbench 1.x merges",
		},
	},
	{
		Kind: DriverDBInsert, New: func(w *Workload) Driver { return &dbInsertDriver{w: w} },
		Tool: ToolDBInsert, Parse: parseDBInsert, Sniff: sniffDBInsert, Metrics: []Metric{{MetricRows, false}},
		Phases: []Phase{PhaseRun}, Defaults: dbInsertDefaults, Validate: validateDBInsert,
		Processes: []string{"db-insert", "db-insert-bdb"}, EngineOption: true,
		Tail: "a db-insert workload has no duration orch can set, so it cannot carry a profiling tail",
		None: map[string]string{
			"Test":       "its one program takes options, no named test",
			"Program":    "its driver runs the current `orch dbinsert` build, the -bdb one for Berkeley DB",
			"Percentile": "it prints no latency percentile",
			"Server":     "it benchmarks the storage library on the master directly",
			"Schemas":    "no server: its database is a directory in the run's working directory",
			"OwnTable":   "no schema", "SeveralLoadBoxes": "it runs on the master, not on a load box",
			"Checks": "it runs on the master, built there by `orch dbinsert`; the run's step says when it is missing",
		},
	},
}

// sysbenchPercentile is sysbench's --percentile default (1.0's manual).
const sysbenchPercentile = 95

var (
	sysbenchMetrics = []Metric{{MetricWrites, false}, {MetricTPS, false}, {MetricQueries, false}}
	sysbenchCheck   = ClientCheck{Fact: "sysbench", Programs: []string{"sysbench"}, Label: "sysbench", Install: "sysbench"}
)

// sbtestTable: sysbench's sbtest1..N (its default prefix; legacy 0.4's
// single sbtest table is not matched).
func sbtestTable(t string) bool {
	n, ok := strings.CutPrefix(t, "sbtest")
	return ok && n != "" && strings.Trim(n, "0123456789") == ""
}

// The parsers as table entries: no typed nil inside the interface.
func parseSysbench(name string, r io.Reader) (Result, error) {
	res, err := ParseSysbench(name, r)
	if res == nil {
		return nil, err
	}
	return res, err
}

func parseMysqlslap(name string, r io.Reader) (Result, error) {
	res, err := ParseMysqlslap(name, r)
	if res == nil {
		return nil, err
	}
	return res, err
}

func parseDBInsert(name string, r io.Reader) (Result, error) {
	res, err := ParseDBInsert(name, r)
	if res == nil {
		return nil, err
	}
	return res, err
}

// Spec is the table's entry for kind.
func Spec(kind DriverKind) (*DriverSpec, bool) {
	for i := range Drivers {
		if Drivers[i].Kind == kind {
			return &Drivers[i], true
		}
	}
	return nil, false
}

// spec is the entry of a validated workload's driver.
func (w *Workload) spec() *DriverSpec {
	s, ok := Spec(w.Tool)
	if !ok {
		panic(fmt.Sprintf("bench: no driver %q in the table", w.Tool))
	}
	return s
}

// Spec is the table's entry for the workload's driver (validated: it has one).
func (w *Workload) Spec() *DriverSpec { return w.spec() }

// formatSpec is the entry whose output format tool (or an alias) is.
func formatSpec(tool Tool) (*DriverSpec, bool) {
	for i := range Drivers {
		d := &Drivers[i]
		if d.Tool != "" && (d.Tool == tool || slices.Contains(d.Aliases, string(tool))) {
			return d, true
		}
	}
	return nil, false
}

// Formats lists the output formats orch parses, with their aliases.
func Formats() []string {
	var out []string
	for _, d := range Drivers {
		if d.Tool != "" && !slices.Contains(out, string(d.Tool)) {
			out = append(append(out, string(d.Tool)), d.Aliases...)
		}
	}
	return out
}

// formatNames lists the formats' own names (no aliases) in words: "a, b
// or c".
func formatNames(last string) string {
	var names []string
	for _, d := range Drivers {
		if d.Tool != "" && !slices.Contains(names, string(d.Tool)) {
			names = append(names, string(d.Tool))
		}
	}
	if last != "" {
		names = append(names, last)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// MetricsOf lists the metrics of an output format's results.
func MetricsOf(tool Tool) []Metric {
	if d, ok := formatSpec(tool); ok {
		return d.Metrics
	}
	return nil
}

// LowerIsBetter reports whether less of metric is better (a time).
func LowerIsBetter(metric string) bool {
	for _, d := range Drivers {
		for _, m := range d.Metrics {
			if m.Name == metric {
				return m.LowerIsBetter
			}
		}
	}
	return false
}

// ClientProcesses are every driver's process names, each once.
func ClientProcesses() []string { return union(func(d *DriverSpec) []string { return d.Processes }) }

// BenchSchemas are every server driver's schemas, each once.
func BenchSchemas() []string { return union(func(d *DriverSpec) []string { return d.Schemas }) }

// ClientChecks are every driver's load-box checks, each fact once.
func ClientChecks() []ClientCheck {
	var out []ClientCheck
	for _, d := range Drivers {
		for _, c := range d.Checks {
			if !slices.ContainsFunc(out, func(o ClientCheck) bool { return o.Fact == c.Fact }) {
				out = append(out, c)
			}
		}
	}
	return out
}

// OwnTable reports whether schema.table is one a driver creates in its
// own schema.
func OwnTable(schema, table string) bool {
	for _, d := range Drivers {
		if slices.Contains(d.Schemas, schema) && d.OwnTable != nil && d.OwnTable(table) {
			return true
		}
	}
	return false
}

func union(field func(*DriverSpec) []string) []string {
	var out []string
	for i := range Drivers {
		for _, s := range field(&Drivers[i]) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// has reports whether the driver has phase p.
func (d *DriverSpec) has(p Phase) bool { return slices.Contains(d.Phases, p) }

// Output is the file a phase's output goes to, in the working directory
// and the run directory: "run.out".
func (p Phase) Output() string { return string(p) + ".out" }
