package flavor

import (
	"fmt"
	"slices"
	"strings"
)

// EngineSpec is what is true of a storage engine on every server that has
// it. Which servers have it, how it is enabled there and why the others
// lack it are flavour x version facts: rules EngineInnoDB... and
// EngineAbsent, read through Server.Engine and Server.EngineUnavailable.
type EngineSpec struct {
	// Name is the engine as ENGINE=, sysbench --mysql-storage-engine and
	// orch's profile names spell it: innodb, tokudb, rocksdb.
	Name string
	// Display is the name in default_storage_engine and SHOW ENGINES.
	Display string
	// Plugin is the engine's name in information_schema.PLUGINS; "" when
	// the engine is built in.
	Plugin string
	// Library is the plugin library in @@plugin_dir.
	Library string
	// Plugins are what INSTALL PLUGIN loads, one statement each, the
	// engine first: TokuDB's information_schema tables are plugins of
	// their own (as ps-admin --enable-tokudb installs them). MariaDB's
	// INSTALL SONAME loads every plugin of the library at once.
	Plugins []string
	// VarPrefix begins the names of the plugin's system variables, which
	// exist only once the plugin is loaded.
	VarPrefix string
	// VersionVar is the variable holding the engine's own version, which
	// a report names beside the server's ("" when it has none apart).
	VersionVar string

	// Where the engine keeps a database's tables, for footprints.
	// DataDir is a directory inside the datadir holding all of the
	// engine's data on the server ("" when none).
	DataDir string
	// TableFiles is a glob of one database's table files relative to the
	// datadir: Before + database + After ("" Before and After: none).
	TableFiles FileGlob
	// FlushStmt makes information_schema's sizes current: MyRocks reports
	// 0 bytes for rows still in its memtables.
	FlushStmt string
	// NoAnalyze says why orch never runs ANALYZE TABLE on the engine's
	// tables ("" when it does): its sizes come from its files instead.
	NoAnalyze string

	// What the fairness check compares (orchestrator/fairness), from the
	// engines' manuals: see engine_settings.go.
	Settings EngineSettings

	// Counters are the engine's SHOW GLOBAL STATUS counters the monitor
	// writes as rates (counters.go), at least one of them its fsyncs.
	Counters []StatusCounter

	// NeedsTHPOff: the engine refuses to start while transparent huge
	// pages are enabled (TokuDB).
	NeedsTHPOff bool
	// Preload is the library (its soname prefix) the engine needs
	// preloaded into the server; orch preloads it on a systemd host
	// (server/preload.go), mysqld_safe's malloc-lib does elsewhere.
	Preload string
	// StartHint is added to an error enabling the engine: what it needs
	// that orch does not check.
	StartHint string
	// LoadFailures name the causes of a server that started without the
	// engine, from its error log's words.
	LoadFailures []LoadFailure
}

// LoadFailure is one cause of an engine plugin that did not load: Cause,
// when the error log since the start contains Match.
type LoadFailure struct{ Match, Cause string }

// LoadFailure is why e did not load, read in an error log slice: the
// first matching cause with the log's own words, "" when none matches.
func (e EngineSpec) LoadFailure(log string) string {
	for _, f := range e.LoadFailures {
		if i := strings.Index(log, f.Match); i >= 0 {
			return f.Cause + ": " + f.Match
		}
	}
	return ""
}

// FileGlob is a path pattern around a database name, which the caller
// quotes: Before + quoted(database) + After.
type FileGlob struct{ Before, After string }

// IsZero reports whether g names no files.
func (g FileGlob) IsZero() bool { return g == FileGlob{} }

// engineSpecs are the engines orch has profiles for, InnoDB first. Sources:
// shared/reference/mysql-sysbench.md section 4 (TokuDB's plugin list from
// the Percona 5.7 installation guide, MyRocks' library and #rocksdb from
// MariaDB's "Getting started with MyRocks").
var engineSpecs = []EngineSpec{
	{Name: "innodb", Display: "InnoDB", TableFiles: FileGlob{After: "/*.ibd"},
		Settings: EngineSettings{FlushVar: "innodb_flush_log_at_trx_commit", CacheVar: "innodb_buffer_pool_size",
			// innodb_doublewrite: a page is written twice so that a torn
			// write can be repaired.
			Durability: []EngineVar{{Name: "innodb_doublewrite", What: "InnoDB doublewrite"}},
			DirectIO:   []IOSwitch{{Name: "innodb_flush_method", DirectIf: "O_DIRECT"}}},
		Counters: innodbCounters},
	{Name: "tokudb", Display: "TokuDB", Plugin: "TokuDB", Library: "ha_tokudb.so", VarPrefix: "tokudb_", VersionVar: "tokudb_version",
		Plugins: []string{"tokudb", "tokudb_file_map", "tokudb_fractal_tree_info", "tokudb_fractal_tree_block_map",
			"tokudb_trx", "tokudb_locks", "tokudb_lock_waits", "tokudb_background_job_status"},
		// TokuDB names its files _<database>_<table>_<index>_<id>.tokudb,
		// all in the datadir itself.
		TableFiles: FileGlob{Before: "./_", After: "_*.tokudb"},
		NoAnalyze: "ANALYZE TABLE on TokuDB killed MariaDB 10.5.23 with signal 11 (tokudb::analyze::standard_t::analyze_key, " +
			"on the TokuDB lab after a sysbench write run); TokuDB keeps its row and size estimates itself",
		// tokudb_commit_sync=OFF fsyncs the log every
		// tokudb_fsync_log_period ms; tokudb_cache_size=0 is half the RAM.
		Settings: EngineSettings{FlushVar: "tokudb_commit_sync", FlushPeriodVar: "tokudb_fsync_log_period",
			CacheVar: "tokudb_cache_size", CacheZeroIsHalfRAM: true,
			DirectIO: []IOSwitch{{Name: "tokudb_directio"}}},
		Counters:    tokudbCounters,
		NeedsTHPOff: true,
		Preload:     "libjemalloc.so",
		StartHint:   "TokuDB needs jemalloc preloaded into the server: malloc-lib in [mysqld_safe] (as ps-admin --enable-tokudb sets up), or LD_PRELOAD in the service's environment (orch's drop-in on a systemd unit)",
		// The dlopen error without the preload, and TokuDB's own start
		// checks (hatoku_hton.cc: jemalloc, transparent huge pages).
		LoadFailures: []LoadFailure{
			{Match: "cannot allocate memory in static TLS block", Cause: "jemalloc not preloaded"},
			{Match: "jemalloc is not loaded", Cause: "jemalloc not preloaded"},
			{Match: "Transparent huge pages are enabled", Cause: "transparent huge pages are on"},
		}},
	{Name: "rocksdb", Display: "ROCKSDB", Plugin: "ROCKSDB", Library: "ha_rocksdb.so", VarPrefix: "rocksdb_",
		Plugins: []string{"ROCKSDB"}, DataDir: "#rocksdb",
		FlushStmt: "SET GLOBAL rocksdb_force_flush_memtable_now = 1",
		Settings: EngineSettings{FlushVar: "rocksdb_flush_log_at_trx_commit", CacheVar: "rocksdb_block_cache_size",
			DirectIO: []IOSwitch{{Name: "rocksdb_use_direct_reads"}, {Name: "rocksdb_use_direct_io_for_flush_and_compaction"}}},
		Counters: rocksdbCounters},
}

// engineFeature is the rule feature saying how a server enables e.
func engineFeature(name string) Feature { return Feature("engine:" + name) }

// engineAbsentPrefix + an engine name is the feature explaining why a
// server lacks that engine.
const engineAbsentPrefix = "engine-absent:"

// EngineAbsent is the Feature whose value says why a server lacks engine.
func EngineAbsent(engine string) Feature { return Feature(engineAbsentPrefix + engine) }

// EngineSpecs lists the engines orch knows, InnoDB first.
func EngineSpecs() []EngineSpec { return slices.Clone(engineSpecs) }

// EngineNames lists the engines orch knows, InnoDB first.
func EngineNames() []string {
	out := make([]string, len(engineSpecs))
	for i, e := range engineSpecs {
		out[i] = e.Name
	}
	return out
}

// LookupEngine returns the engine named name (any case).
func LookupEngine(name string) (EngineSpec, bool) {
	for _, e := range engineSpecs {
		if strings.EqualFold(e.Name, strings.TrimSpace(name)) {
			return e, true
		}
	}
	return EngineSpec{}, false
}

// EngineByPlugin returns the engine whose plugin is plugin (any case).
func EngineByPlugin(plugin string) (EngineSpec, bool) {
	for _, e := range engineSpecs {
		if e.Plugin != "" && strings.EqualFold(e.Plugin, plugin) {
			return e, true
		}
	}
	return EngineSpec{}, false
}

// EngineByLibrary returns the engine whose plugin library is file.
func EngineByLibrary(file string) (EngineSpec, bool) {
	for _, e := range engineSpecs {
		if e.Library != "" && e.Library == file {
			return e, true
		}
	}
	return EngineSpec{}, false
}

// PluginLibraries lists the engine plugin libraries, for probes of a
// host's plugin directory.
func PluginLibraries() []string {
	var out []string
	for _, e := range engineSpecs {
		if e.Library != "" {
			out = append(out, e.Library)
		}
	}
	return out
}

// PreloadLibraries lists the libraries engines need preloaded, for the
// host probe to find.
func PreloadLibraries() []string {
	var out []string
	for _, e := range engineSpecs {
		if e.Preload != "" && !slices.Contains(out, e.Preload) {
			out = append(out, e.Preload)
		}
	}
	return out
}

// Engine is a storage engine a server can have, and how it is enabled.
type Engine struct {
	EngineSpec
	// Enable says how to enable it on this server, for messages.
	Enable string
}

// Engines lists the engines s can have, InnoDB first.
func (s Server) Engines() []Engine {
	var out []Engine
	for _, e := range engineSpecs {
		if how, ok := s.Lookup(engineFeature(e.Name)); ok {
			out = append(out, Engine{EngineSpec: e, Enable: how})
		}
	}
	return out
}

// Engine returns the named engine (any case) if s can have it.
func (s Server) Engine(name string) (Engine, bool) {
	for _, e := range s.Engines() {
		if strings.EqualFold(e.Name, strings.TrimSpace(name)) {
			return e, true
		}
	}
	return Engine{}, false
}

// EngineAbsence says why s lacks engine ("" when it has it or orch knows
// no reason).
func (s Server) EngineAbsence(engine string) string {
	return s.value(EngineAbsent(strings.ToLower(strings.TrimSpace(engine))))
}

// EngineUnavailable is the one-line error for asking host's server s for
// an engine it cannot have; have lists the engines it does have.
func (s Server) EngineUnavailable(host, engine string, have []string) error {
	msg := fmt.Sprintf("%s: %s is not available on %s", host, engine, s)
	if note := s.EngineAbsence(engine); note != "" {
		msg += " (" + note + ")"
	}
	return fmt.Errorf("%s; engines: %s", msg, strings.Join(have, ", "))
}

// PluginFor returns the plugin that provides variable name on s, "" when
// the server itself has it: the semi-sync plugins where semi-sync is not
// built in, and the engine plugins. Such variables must be written with
// the loose- prefix (the server must start without the plugin) and cannot
// be checked against SHOW VARIABLES before the plugin is loaded.
func (s Server) PluginFor(name string) string {
	name = VariableName(name)
	n := s.SemiSync()
	for _, p := range []struct{ plugin, prefix string }{
		{n.MasterPlugin, s.value(SemiSyncMasterPrefix)},
		{n.SlavePlugin, s.value(SemiSyncSlavePrefix)},
	} {
		if p.plugin != "" && p.prefix != "" && strings.HasPrefix(name, p.prefix+"_") {
			return p.plugin
		}
	}
	for _, e := range engineSpecs {
		if e.VarPrefix != "" && strings.HasPrefix(name, e.VarPrefix) {
			return e.Plugin
		}
	}
	return ""
}

// loaded is true (returns a row) while plugin is loaded, in any state.
func loaded(plugin string) string {
	return "SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = " + QuoteString(plugin)
}

// EngineLoadFailure names, from a server's error log or start output, why
// an engine's plugin did not load ("TokuDB: jemalloc not preloaded: ...");
// "" when no engine's known cause is there.
func EngineLoadFailure(log string) string {
	for _, e := range engineSpecs {
		if c := e.LoadFailure(log); c != "" {
			return e.Display + ": " + c
		}
	}
	return ""
}

// LoadsAtStart reports whether orch loads e on s from its option file
// (plugin-load-add, then a restart) instead of INSTALL at run time.
func (s Server) LoadsAtStart(e EngineSpec) bool {
	_, ok := s.Lookup(EngineLoadAtStart(e.Name))
	return ok && e.Library != ""
}

// InstallEngine enables engine e whose library is present but not loaded;
// nothing for a built-in engine. Each statement is guarded, so a re-run
// does nothing. SQL rather than ps-admin: ps-admin takes the password on
// its command line.
func (s Server) InstallEngine(e EngineSpec) []Statement {
	if e.Plugin == "" {
		return nil
	}
	if s.value(PluginInstallStmt) == perLibrary {
		st := new(stmtBuilder).raw("INSTALL SONAME ").str(strings.TrimSuffix(e.Library, ".so")).done()
		st.OnlyIf = pluginGuard(e.Plugin)
		return []Statement{st}
	}
	var out []Statement
	for _, p := range e.Plugins {
		st := new(stmtBuilder).raw("INSTALL PLUGIN ", p, " SONAME ").str(e.Library).done()
		st.OnlyIf = pluginGuard(p)
		out = append(out, st)
	}
	return out
}

// UninstallEngine undoes InstallEngine, in reverse order, for a rollback:
// the engine was not there before orch tried. Each statement is guarded,
// so a partly failed install is undone as far as it got.
func (s Server) UninstallEngine(e EngineSpec) []Statement {
	if e.Plugin == "" {
		return nil
	}
	if s.value(PluginInstallStmt) == perLibrary {
		st := new(stmtBuilder).raw("UNINSTALL SONAME ").str(strings.TrimSuffix(e.Library, ".so")).done()
		st.OnlyIf = loaded(e.Plugin)
		return []Statement{st}
	}
	var out []Statement
	for i := len(e.Plugins) - 1; i >= 0; i-- {
		st := plain("UNINSTALL PLUGIN " + e.Plugins[i])
		st.OnlyIf = loaded(e.Plugins[i])
		out = append(out, st)
	}
	return out
}
