package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// The libraries db-insert is built against: the engine of a db-insert
// workload, and so the axis an `orch matrix --engines=tokudb,bdb` varies.
const (
	DBInsertFractalTree = "tokudb" // PerconaFT's fractal tree (-DTOKUDB)
	DBInsertBerkeleyDB  = "bdb"    // Berkeley DB (-DBDB)
)

// DBInsertEngines lists them, the fractal tree first.
var DBInsertEngines = []string{DBInsertFractalTree, DBInsertBerkeleyDB}

// DBInsertHome is where `orch dbinsert` keeps its builds on a host,
// relative to the SSH user's home; "current" points at the latest.
const DBInsertHome = ".orch/dbinsert"

// dbInsertDefaultBinary is the fractal-tree program of the current build.
const dbInsertDefaultBinary = "~/" + DBInsertHome + "/current/bin/db-insert"

// dbInsertDirs are the database directories the program makes in its
// working directory (./bench.<DIRSUF>), one per library.
var dbInsertDirs = map[string]string{DBInsertFractalTree: "bench.tokudb", DBInsertBerkeleyDB: "bench.bdb"}

// dbInsertTimes is where the step's shell keeps the program's CPU times.
const dbInsertTimes = ".orch-times"

// DBInsertSizeLine starts the line the step prints after the program: the
// database directory's bytes on disk (du -sB1), an orch line, not the
// program's.
const DBInsertSizeLine = "orch: bytes on disk of "

// DBInsertCPULine starts the line with the program's CPU time, user then
// system, as the shell's times builtin prints them ("0m5.029000s").
const DBInsertCPULine = "orch: db-insert cpu user, sys "

// dbInsertDriver runs PerconaFT's db-insert (engine tokudb) or
// db-insert-bdb (engine bdb). It has only a run phase: the program makes
// its database directory itself, in the run's fresh working directory
// (which the runner removes afterwards).
type dbInsertDriver struct {
	w *Workload
}

func dbInsertDefaults(w *Workload) {
	if w.RunOn == "" {
		// The library's storage is the host's: see docs/db-insert.md.
		w.RunOn = topology.RoleMaster
	}
	if w.Options.Engine == "" {
		w.Options.Engine = DBInsertFractalTree
	}
}

func validateDBInsert(w *Workload) error {
	o := &w.Options
	switch {
	case o.Engine != "" && !slices.Contains(DBInsertEngines, o.Engine):
		return w.fail("options.engine", "%q is not a library db-insert is built against (%s)", clip(o.Engine), strings.Join(DBInsertEngines, ", "))
	case o.TransactionSize != nil && (o.Transactions == nil || !*o.Transactions):
		return w.fail("options.transaction_size", "needs transactions: true")
	case w.Workdir != "":
		return w.fail("workdir", "db-insert runs in the run's own fresh working directory")
	}
	if c := o.Compressibility; c != "" {
		if f, err := strconv.ParseFloat(c, 64); err != nil || !(f > 0) {
			return w.fail("options.compressibility", "%q is not a positive number", clip(c))
		}
	}
	return nil
}

// UsesServer reports whether the workload's load goes through the database
// server (false for db-insert, which benchmarks a library directly): what
// decides whether a run watches the master for stalls and whether a matrix
// brings servers to an engine.
func (w *Workload) UsesServer() bool { return w.spec().Server }

func (d *dbInsertDriver) Workload() *Workload { return d.w }

// Program is the program for the workload's library: the workload's binary
// (default: the current `orch dbinsert` build) for the fractal tree, the
// same path with "-bdb" for Berkeley DB, as PerconaFT's examples Makefile
// names them.
func (d *dbInsertDriver) program() string {
	prog := d.w.Binary
	if prog == "" {
		prog = dbInsertDefaultBinary
	}
	if d.engine() == DBInsertBerkeleyDB {
		prog += "-bdb"
	}
	return prog
}

func (d *dbInsertDriver) engine() string {
	if d.w.Options.Engine == "" {
		return DBInsertFractalTree
	}
	return d.w.Options.Engine
}

func (d *dbInsertDriver) Step(p Phase, t Target) (Step, error) {
	if p != PhaseRun {
		return Step{}, fmt.Errorf("workload %s: db-insert has no %s phase (it makes its database itself)", d.w.Name, p)
	}
	w, o := d.w, &d.w.Options
	argv := []string{d.program()}
	num := func(flag string, v *int) {
		if v != nil {
			argv = append(argv, flag, strconv.Itoa(*v))
		}
	}
	if o.Transactions != nil && *o.Transactions {
		argv = append(argv, "-x")
	}
	num("--keysize", o.KeySize)
	num("--valsize", o.ValueSize)
	num("--cachesize", o.CacheSize)
	num("--pagesize", o.PageSize)
	num("--periter", o.BatchSize)
	num("--xcount", o.TransactionSize)
	if o.Compressibility != "" {
		argv = append(argv, "--compressibility", o.Compressibility)
	}
	argv = append(argv, w.ExtraArgs...)
	if o.Iterations != nil {
		argv = append(argv, strconv.Itoa(*o.Iterations)) // its one positional argument, last
	}
	s := newStep(w, p, "db-insert "+d.engine()+" "+w.Name, argv, t)
	s.Dir = "" // the run's working directory, fresh for each run
	s.SecretEnv = nil
	s.Missing = "build both programs with `orch dbinsert --source PERCONAFT`, or name them with the workload's binary (the Berkeley DB one is BINARY-bdb)"
	dir := dbInsertDirs[d.engine()]
	// times (a builtin, so redirected, never in a subshell) gives the
	// shell's children's CPU: the program's alone, du not having run yet.
	s.After = "times > " + dbInsertTimes + " && { read -r _ _; read -r u y; } < " + dbInsertTimes + " && printf '%s%s %s\\n' " +
		shell.Quote(DBInsertCPULine) + ` "$u" "$y"` + "\n" +
		"if [ -d " + shell.Quote(dir) + " ]; then printf '%s%s %s\\n' " + shell.Quote(DBInsertSizeLine) + " " +
		shell.Quote(dir) + ` "$(du -sB1 -- ` + shell.Quote(dir) + " | cut -f1)\"; fi"
	return s, nil
}

func (d *dbInsertDriver) Parse(name string, r io.Reader) (Result, error) {
	return ParseDBInsert(name, r)
}

// Progress is false: batch lines come whole only at the end of a batch,
// and the runner's progress display is sysbench's per-second one.
func (d *dbInsertDriver) Progress(string) (Interval, bool) { return Interval{}, false }

// Dataset is unknown: every run makes a new database.
func (d *dbInsertDriver) Dataset() (DatasetSpec, bool) { return DatasetSpec{}, false }
