package bench

import (
	"strconv"
	"strings"

	"github.com/orch-bench/orch/topology"
)

// DriverKind names the benchmark driver a workload uses (its `tool:` key).
type DriverKind string

const (
	// DriverSysbench is sysbench 1.x: a built-in test or a Lua script path.
	DriverSysbench DriverKind = "sysbench"
	// DriverSysbenchLegacy is sysbench 0.4/0.5 (`--test=...` and the old
	// option names), still used by existing images and scripts.
	DriverSysbenchLegacy DriverKind = "sysbench-legacy"
	// DriverMysqlslap is mysqlslap or mariadb-slap.
	DriverMysqlslap DriverKind = "mysqlslap"
	// DriverCustom is any program, its output read by a named parser.
	DriverCustom DriverKind = "custom"
	// DriverDBInsert is PerconaFT's db-insert example program, built
	// against the fractal-tree library (engine tokudb) or Berkeley DB
	// (engine bdb): it benchmarks the library itself, with no server.
	DriverDBInsert DriverKind = "db-insert"
)

// Workload is one benchmark definition: which driver, which binary, which
// options. Load one with LoadWorkload or ParseWorkload; both validate it and
// fill the defaults documented on each field.
type Workload struct {
	// Name labels runs; default: the file name without .yaml.
	Name        string     `yaml:"name"`
	Description string     `yaml:"description"`
	Tool        DriverKind `yaml:"tool"`
	// Binary is the program to run (a name looked up in PATH or a path).
	// Default "sysbench" for the sysbench drivers; for mysqlslap, whichever
	// of mariadb-slap and mysqlslap the host has. Required for custom.
	Binary string `yaml:"binary"`
	// Test is the sysbench test: a built-in name (oltp_insert) or a Lua
	// path; for legacy sysbench the --test value (./tests/db/insert.lua,
	// oltp). Required for the sysbench drivers, unused otherwise.
	Test string `yaml:"test"`
	// Workdir is the directory the program runs in ("": the login
	// directory). Relative legacy test paths and db-insert's files are
	// relative to it.
	Workdir string `yaml:"workdir"`
	// RunOn is the host role the program runs on: loadbox (the default;
	// "" means the same) or master (for programs that benchmark a storage library directly, like
	// db-insert).
	RunOn topology.Role `yaml:"run_on"`
	// Database is the schema the benchmark uses: --mysql-db for sysbench
	// (default sbtest), --create-schema for mysqlslap (default mysqlslap;
	// mysqlslap DROPS this schema when it finishes), ORCH_MYSQL_DATABASE
	// for custom programs.
	Database string  `yaml:"database"`
	Options  Options `yaml:"options"`
	// ExtraArgs are appended to the tool's arguments in every phase (for
	// custom programs they are the arguments).
	ExtraArgs []string `yaml:"extra_args"`
	// Env is exported to the program in every phase.
	Env map[string]string `yaml:"env"`
	// Prepare and Cleanup say whether a run includes those phases
	// (sysbench only; default prepare true, cleanup false so the data stays
	// for consistency checks and later runs).
	Prepare bool `yaml:"prepare"`
	Cleanup bool `yaml:"cleanup"`
	// Parser names the parser for a custom program's output: db-insert,
	// sysbench or mysqlslap. Required for custom, unused otherwise.
	Parser string `yaml:"parser"`

	// Source is the file the workload came from (for errors).
	Source string `yaml:"-"`
	// pos maps dotted keys ("options.threads") to where their values are.
	pos map[string]topology.Pos
}

// Options are the benchmark knobs. A nil pointer (or empty value) means
// "not set": the flag is left out and the tool's own default applies. The
// tools tag lists the drivers an option applies to; min and max bound it.
type Options struct {
	Tables          *int  `yaml:"tables" tools:"sysbench,sysbench-legacy" min:"1"`
	TableSize       *int  `yaml:"table_size" tools:"sysbench,sysbench-legacy" min:"0"`
	Threads         *int  `yaml:"threads" tools:"sysbench,sysbench-legacy" min:"1"`
	TimeS           *int  `yaml:"time_s" tools:"sysbench,sysbench-legacy" min:"0" max:"2592000"` // 30 days: more is a typo, and its estimates overflow
	Events          *int  `yaml:"events" tools:"sysbench,sysbench-legacy" min:"0"`
	ReportIntervalS *int  `yaml:"report_interval_s" tools:"sysbench,sysbench-legacy" min:"0"`
	AutoInc         *bool `yaml:"auto_inc" tools:"sysbench,sysbench-legacy"`
	Percentile      *int  `yaml:"percentile" tools:"sysbench,sysbench-legacy" min:"0" max:"100"`
	Histogram       *bool `yaml:"histogram" tools:"sysbench"`

	// Engine is the storage engine: --mysql-storage-engine (sysbench 1.x),
	// --mysql-table-engine (legacy), --engine (mysqlslap, which also takes a
	// comma-separated list); for db-insert the library the program is built
	// against, tokudb (the fractal tree, the default) or bdb (Berkeley DB).
	Engine string `yaml:"engine" tools:"sysbench,sysbench-legacy,mysqlslap,db-insert"`

	// Concurrency is one or more client counts (mysqlslap runs each).
	Concurrency IntList `yaml:"concurrency" tools:"mysqlslap" min:"1"`
	// Iterations: mysqlslap's runs of the test; db-insert's batches (each
	// batch_size serial then batch_size random insertions).
	Iterations      *int  `yaml:"iterations" tools:"mysqlslap,db-insert" min:"1"`
	AutoGenerateSQL *bool `yaml:"auto_generate_sql" tools:"mysqlslap"`
	// LoadType is mixed, read, write, key or update.
	LoadType         string `yaml:"auto_generate_sql_load_type" tools:"mysqlslap"`
	AddAutoIncrement *bool  `yaml:"auto_generate_sql_add_autoincrement" tools:"mysqlslap"`
	// NumberOfQueries is the total across all clients (each runs its share).
	NumberOfQueries *int `yaml:"number_of_queries" tools:"mysqlslap" min:"1"`
	// WriteNumber is how many rows mysqlslap inserts while creating the
	// table, before the timed load (default 100).
	WriteNumber *int  `yaml:"auto_generate_sql_write_number" tools:"mysqlslap" min:"1"`
	DebugInfo   *bool `yaml:"debug_info" tools:"mysqlslap"`

	// db-insert's own parameters (PerconaFT examples/db-insert.c): key and
	// value bytes (--keysize, --valsize, default 8 each), the library's
	// cache in bytes (--cachesize; the library's default when unset), its
	// page size (--pagesize), insertions per batch half (--periter, default
	// 1,048,576), transactions (-x) of transaction_size insertions
	// (--xcount), and compressibility (--compressibility C: the values
	// compress by about C; unset, very compressible).
	KeySize         *int   `yaml:"key_size" tools:"db-insert" min:"1"`
	ValueSize       *int   `yaml:"value_size" tools:"db-insert" min:"0"`
	CacheSize       *int   `yaml:"cache_size" tools:"db-insert" min:"1"`
	PageSize        *int   `yaml:"page_size" tools:"db-insert" min:"512"`
	BatchSize       *int   `yaml:"batch_size" tools:"db-insert" min:"1"`
	Transactions    *bool  `yaml:"transactions" tools:"db-insert"`
	TransactionSize *int   `yaml:"transaction_size" tools:"db-insert" min:"1"`
	Compressibility string `yaml:"compressibility" tools:"db-insert"`
}

// IntList is one integer or several; YAML accepts 4, [4, 8] or "4,8".
type IntList []int

// String is the comma-separated form the tools take.
func (l IntList) String() string {
	s := make([]string, len(l))
	for i, n := range l {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Phases lists the phases a run of this workload goes through, in order.
func (w *Workload) Phases() []Phase {
	var p []Phase
	if w.Prepare {
		p = append(p, PhasePrepare)
	}
	p = append(p, PhaseRun)
	if w.Cleanup {
		p = append(p, PhaseCleanup)
	}
	return p
}

// LatencyPercentile is the percentile of the interval lines' latency: the
// workload's percentile, else its driver's default (DriverSpec.Percentile);
// 0 when the client prints none.
func (w *Workload) LatencyPercentile() int {
	d, ok := Spec(w.Tool)
	if !ok {
		return 0
	}
	if d.Percentile != 0 && w.Options.Percentile != nil {
		return *w.Options.Percentile
	}
	return d.Percentile
}

// applyDefaults fills what the file left out. Presence is judged by the
// recorded key positions, so `prepare: false` is told apart from absence.
func (w *Workload) applyDefaults() {
	d, ok := Spec(w.Tool)
	if !ok {
		return // validate says so
	}
	if _, set := w.pos["prepare"]; !set {
		w.Prepare = d.has(PhasePrepare)
	}
	if d.Defaults != nil {
		d.Defaults(w)
	}
	if w.RunOn == "" {
		w.RunOn = topology.RoleLoadBox
	}
	if w.Binary == "" {
		w.Binary = d.Program
	}
	if w.Database == "" && len(d.Schemas) > 0 {
		w.Database = d.Schemas[0]
	}
}
