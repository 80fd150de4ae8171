package server

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// engineInfo is what orch needs to know about an engine beyond the flavour
// table: how the server spells it, which plugin library carries it, and
// which variables that plugin provides.
type engineInfo struct {
	name      string // innodb, tokudb, rocksdb (flavor.Engine.Name)
	display   string // as in default_storage_engine and SHOW ENGINES
	plugin    string // plugin name in information_schema.PLUGINS; "" when built in
	library   string // plugin library in @@plugin_dir
	varPrefix string // prefix of the plugin's system variables
}

var engineTable = []engineInfo{
	{name: "innodb", display: "InnoDB"},
	{name: "tokudb", display: "TokuDB", plugin: "TokuDB", library: "ha_tokudb.so", varPrefix: "tokudb_"},
	{name: "rocksdb", display: "ROCKSDB", plugin: "ROCKSDB", library: "ha_rocksdb.so", varPrefix: "rocksdb_"},
}

func engineByName(name string) (engineInfo, bool) {
	for _, e := range engineTable {
		if e.name == strings.ToLower(name) {
			return e, true
		}
	}
	return engineInfo{}, false
}

func engineNames() []string {
	var out []string
	for _, e := range engineTable {
		out = append(out, e.name)
	}
	return out
}

// absenceNote explains why a flavour lacks an engine. The flavour table
// says only that it does; this is the history a user needs to believe it.
func absenceNote(s flavor.Server, engine string) string {
	switch {
	case engine == "tokudb" && s.Flavor == flavor.MariaDB && s.Version.AtLeast(flavor.V(10, 6, 0)):
		return "removed in 10.6"
	case engine == "tokudb" && s.Flavor == flavor.MariaDB:
		return "disabled since 10.5"
	case engine == "tokudb" && s.Flavor == flavor.Percona:
		return "TokuDB is for Percona Server 5.7 (deprecated in 8.0, removed in 8.0.28)"
	case engine == "tokudb":
		return "TokuDB is a Percona Server 5.7 engine"
	case engine == "rocksdb":
		return "MyRocks ships with MariaDB and Percona Server 8.0"
	}
	return ""
}

// unavailableError says a requested engine cannot be had on a server,
// naming the engines it does have.
func unavailableError(host string, s flavor.Server, engine string, have []string) error {
	msg := fmt.Sprintf("%s: %s is not available on %s", host, engine, s)
	if note := absenceNote(s, engine); note != "" {
		msg += " (" + note + ")"
	}
	return fmt.Errorf("%s; engines: %s", msg, strings.Join(have, ", "))
}

// tableEngines lists the engines the flavour table gives s.
func tableEngines(s flavor.Server) []string {
	var out []string
	for _, e := range s.Engines() {
		out = append(out, e.Name)
	}
	return out
}

// orderEngines lower-cases SHOW ENGINES names and puts the engines orch
// profiles first, the rest alphabetically.
func orderEngines(names []string) []string {
	var known, other []string
	for _, n := range names {
		n = strings.ToLower(n)
		if slices.Contains(engineNames(), n) {
			known = append(known, n)
		} else {
			other = append(other, n)
		}
	}
	sort.Slice(known, func(i, j int) bool {
		return slices.Index(engineNames(), known[i]) < slices.Index(engineNames(), known[j])
	})
	sort.Strings(other)
	return append(known, other...)
}

// pluginFor returns the plugin that provides variable name on s, "" when
// the server itself has it. Such variables are written with the loose-
// prefix (a server without the plugin must still start) and cannot be
// checked against SHOW VARIABLES until the plugin is loaded.
func pluginFor(s flavor.Server, name string) string {
	n := s.SemiSync()
	if n.MasterPlugin != "" && strings.HasPrefix(name, strings.TrimSuffix(n.MasterEnabled, "enabled")) {
		return n.MasterPlugin
	}
	if n.SlavePlugin != "" && strings.HasPrefix(name, strings.TrimSuffix(n.SlaveEnabled, "enabled")) {
		return n.SlavePlugin
	}
	for _, e := range engineTable {
		if e.varPrefix != "" && strings.HasPrefix(name, e.varPrefix) {
			return e.plugin
		}
	}
	return ""
}

// engineForPlugin returns the engine a plugin name belongs to.
func engineForPlugin(plugin string) (engineInfo, bool) {
	for _, e := range engineTable {
		if e.plugin != "" && e.plugin == plugin {
			return e, true
		}
	}
	return engineInfo{}, false
}

// installStatements enable an engine whose plugin library is present but
// not loaded. Each is guarded so a re-run does nothing. TokuDB comes with
// its information_schema plugins, as ps-admin --enable-tokudb installs
// them; SQL rather than ps-admin, because ps-admin takes the password on
// its command line. MariaDB's INSTALL SONAME loads every plugin of the
// library (MyRocks has a dozen).
func installStatements(s flavor.Server, e engineInfo) []flavor.Statement {
	notLoaded := func(plugin string) string {
		return "SELECT 1 FROM DUAL WHERE NOT EXISTS (SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = " +
			flavor.QuoteString(plugin) + ")"
	}
	stmt := func(sql, plugin string) flavor.Statement {
		return flavor.Statement{SQL: sql, Redacted: sql, OnlyIf: notLoaded(plugin)}
	}
	switch {
	case e.plugin == "":
		return nil
	case s.Flavor == flavor.MariaDB:
		return []flavor.Statement{stmt("INSTALL SONAME "+flavor.QuoteString(strings.TrimSuffix(e.library, ".so")), e.plugin)}
	case e.name == "tokudb":
		var out []flavor.Statement
		for _, p := range []string{"tokudb", "tokudb_file_map", "tokudb_fractal_tree_info", "tokudb_fractal_tree_block_map",
			"tokudb_trx", "tokudb_locks", "tokudb_lock_waits", "tokudb_background_job_status"} {
			out = append(out, stmt("INSTALL PLUGIN "+p+" SONAME "+flavor.QuoteString(e.library), p))
		}
		return out
	}
	return []flavor.Statement{stmt("INSTALL PLUGIN "+e.plugin+" SONAME "+flavor.QuoteString(e.library), e.plugin)}
}

// uninstallStatements undo installStatements, in reverse order, for a
// rollback: the engine was not there before orch tried. Each is guarded,
// so a partly failed install is undone as far as it got.
func uninstallStatements(s flavor.Server, e engineInfo) []flavor.Statement {
	ins := installStatements(s, e)
	var out []flavor.Statement
	for i := len(ins) - 1; i >= 0; i-- {
		plugin := e.plugin
		sql := strings.Replace(ins[i].SQL, "INSTALL SONAME", "UNINSTALL SONAME", 1)
		if s.Flavor != flavor.MariaDB {
			plugin = strings.Fields(ins[i].SQL)[2]
			sql = "UNINSTALL PLUGIN " + plugin
		}
		out = append(out, flavor.Statement{SQL: sql, Redacted: sql,
			OnlyIf: "SELECT 1 FROM information_schema.PLUGINS WHERE PLUGIN_NAME = " + flavor.QuoteString(plugin)})
	}
	return out
}

// thpFix is the remedy for transparent huge pages, which TokuDB refuses
// to start with.
const thpFix = "run `echo never > /sys/kernel/mm/transparent_hugepage/enabled; " +
	"echo never > /sys/kernel/mm/transparent_hugepage/defrag` as root, and add " +
	"transparent_hugepage=never to the kernel command line so it survives a reboot " +
	"(or let orch do the first part: Desired.FixTHP)"

// thpScript turns transparent huge pages off until the next reboot.
const thpScript = "for f in enabled defrag; do echo never > /sys/kernel/mm/transparent_hugepage/$f || exit 1; done"

// thpSelected extracts the bracketed choice from "always [madvise] never";
// "" when the kernel has no THP (nothing to turn off).
func thpSelected(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if j := strings.IndexByte(s[i:], ']'); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}
