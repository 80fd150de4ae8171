package flavor

import (
	"fmt"
	"slices"
	"strings"
)

// Option-file rules: how servers read their configuration and spell the
// names in it. Where they differ by flavour the rule table answers
// (OptionGroups); the rest is the same on every supported server.

// mainOptionFiles are the global option files mysqld and mariadbd read, in
// this order (then ~/.my.cnf, which a service never has). Settings read
// later win.
var mainOptionFiles = []string{"/etc/my.cnf", "/etc/mysql/my.cnf"}

// MainOptionFiles lists the global option files in the order the server
// reads them.
func MainOptionFiles() []string { return slices.Clone(mainOptionFiles) }

// ReadLast returns, of the !includedir directories given in the order the
// server meets them (following nested !include files), the one it reads
// last, "" for none. Its files are read after every other fragment, so a
// setting there wins (Debian's MariaDB reads conf.d before
// mariadb.conf.d); within a directory, files are read in name order.
func ReadLast(includeDirs []string) string {
	if len(includeDirs) == 0 {
		return ""
	}
	return includeDirs[len(includeDirs)-1]
}

// Option groups (sections) orch accepts in the profiles it renders.
// MainGroup is read by every supported server and is where orch adds its
// own settings; serverGroups hold server variables, MainGroup first, then
// the groups only some flavours read ([mariadb]: MySQL ignores it without
// a word, so Server.ReadsGroup refuses it there); WrapperGroup is
// mysqld_safe's own (malloc-lib, thp-setting), passed through as it is.
const (
	MainGroup    = "mysqld"
	WrapperGroup = "mysqld_safe"
)

var serverGroups = []string{MainGroup, "mariadb"}

// IsServerGroup reports whether options in profile group g (lower case)
// are server variables.
func IsServerGroup(g string) bool { return slices.Contains(serverGroups, g) }

// ProfileGroups lists the groups a profile may use: the server groups,
// then WrapperGroup.
func ProfileGroups() []string { return append(slices.Clone(serverGroups), WrapperGroup) }

// LoosePrefix makes an option the server does not know a warning instead
// of a fatal startup error: for options of plugins that may not be loaded.
const LoosePrefix = "loose-"

// OptionName spells an option-file or command-line name the way SHOW
// VARIABLES does (lower case, '_' for the '-' option files also allow, no
// surrounding space) and reports whether it carried the loose- prefix,
// which it drops.
func OptionName(raw string) (name string, loose bool) {
	n := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(raw)), "-", "_")
	if rest, ok := strings.CutPrefix(n, "loose_"); ok {
		return rest, true
	}
	return n, false
}

// VariableName is OptionName without the flag: the server variable an
// option sets.
func VariableName(raw string) string {
	n, _ := OptionName(raw)
	return n
}

// OptionLine spells variable name as s must read it in an option file:
// with the loose- prefix when a plugin provides it, so that the server
// still starts where the plugin is absent or not yet loaded.
func (s Server) OptionLine(name string) string {
	if s.PluginFor(name) != "" {
		return LoosePrefix + name
	}
	return name
}

// NeedsLoose reports whether variable name must be written loose- on s.
func (s Server) NeedsLoose(name string) bool { return s.PluginFor(name) != "" }

// ReadsGroup reports whether s reads option-file group (section) [group].
func (s Server) ReadsGroup(group string) bool {
	return slices.Contains(strings.Fields(s.value(OptionGroups)), strings.ToLower(strings.TrimSpace(group)))
}

// ReadOnlyQuery returns the query whose single value is YES when variable
// name is read-only (changes only with a restart) on s, and false where s
// has no such catalogue.
func (s Server) ReadOnlyQuery(name string) (string, bool) {
	q, ok := s.Lookup(ReadOnlyVarQuery)
	if !ok {
		return "", false
	}
	return q + QuoteString(strings.ToUpper(VariableName(name))), true
}

// ValueOriginQuery returns the query whose single value says where
// variable name's global value comes from (SQL: a SET GLOBAL since the
// start), and false where s does not say.
func (s Server) ValueOriginQuery(name string) (string, bool) {
	q, ok := s.Lookup(ValueOriginQuery)
	if !ok {
		return "", false
	}
	return q + QuoteString(strings.ToUpper(VariableName(name))), true
}

// assumedVersions stand in for the version of a flavour given without
// one when no server can be asked (dry runs, offline fairness checks).
var assumedVersions = map[Flavor]Version{
	MariaDB: V(10, 11, 0),
	MySQL:   V(8, 0, 36),
	Percona: V(8, 0, 36),
}

// ParseHint reads a flavour hint: "mariadb", "percona:5.7.44" or
// "mysql-8.0.36" (flavour, optionally a version after ':', '-' or a
// space). Without a version the flavour's assumed one is used, and
// assumed is true.
func ParseHint(hint string) (srv Server, assumed bool, err error) {
	name, ver, hasVer := strings.Cut(strings.TrimSpace(hint), ":")
	if !hasVer {
		if i := strings.IndexAny(name, "- "); i > 0 {
			name, ver, hasVer = name[:i], name[i+1:], true
		}
	}
	f, err := ParseFlavor(name)
	if err != nil {
		return Server{}, false, err
	}
	v := assumedVersions[f]
	if hasVer {
		if v, err = ParseVersion(ver); err != nil {
			return Server{}, false, fmt.Errorf("flavour %q: %w", hint, err)
		}
	}
	srv, err = New(f, v)
	return srv, !hasVer, err
}
