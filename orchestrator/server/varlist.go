package server

import (
	"embed"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/suggest"
)

// The variables and options of each server orch has a list for, taken from
// the real servers by scripts/variable-lists.sh (--verbose --help and SHOW
// GLOBAL VARIABLES, with the engine plugins loaded), one file per flavour
// and major.minor. Knob names are checked against them before any host
// when the inventory's mysql.flavor (or --flavor) names the flavour: with
// its version, against that version's list; with the flavour alone, against
// every list of the flavour (a name no version has is a typo; one that only
// another version has is not refused on a guess), and only when the version
// orch assumes has a list. Check still asks the server after connecting.
//
//go:embed testdata/variables/*.txt
var variableFiles embed.FS

var (
	variableListsOnce sync.Once
	variableLists     map[string][]string // "mariadb-10.11" -> sorted names
)

// listKey names s's list: flavour-major.minor.
func listKey(s flavor.Server) string {
	return fmt.Sprintf("%s-%d.%d", s.Flavor, s.Version.Major, s.Version.Minor)
}

func loadVariableLists() {
	variableLists = map[string][]string{}
	entries, _ := variableFiles.ReadDir("testdata/variables")
	for _, e := range entries {
		data, err := variableFiles.ReadFile("testdata/variables/" + e.Name())
		if err != nil {
			continue
		}
		var names []string
		for _, l := range strings.Split(string(data), "\n") {
			if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
				names = append(names, l)
			}
		}
		sort.Strings(names)
		variableLists[strings.TrimSuffix(e.Name(), ".txt")] = names
	}
}

// KnownVariables returns the names s has, from its list, and false when
// orch has no list for s's flavour and major.minor. With assumed set (the
// version is orch's guess) it is the union of the flavour's lists.
func KnownVariables(s flavor.Server, assumed bool) ([]string, bool) {
	variableListsOnce.Do(loadVariableLists)
	names, ok := variableLists[listKey(s)]
	if !ok || !assumed {
		return names, ok
	}
	var all []string
	for k, l := range variableLists {
		if strings.HasPrefix(k, string(s.Flavor)+"-") {
			all = append(all, l...)
		}
	}
	slices.Sort(all)
	return slices.Compact(all), true
}

// VariableLists names the lists orch has ("mariadb-10.11, mariadb-10.5").
func VariableLists() string {
	variableListsOnce.Do(loadVariableLists)
	var keys []string
	for k := range variableLists {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// OfflineNamesNote says why a dry run for t could not check knob names
// before any host ("" when it can).
func OfflineNamesNote(t Target) string {
	if _, ok := KnownVariables(t.Server, t.Assumed); ok {
		return ""
	}
	what := t.Server.String()
	if t.Assumed {
		what = string(t.Server.Flavor) + " without a version (assumed " + t.Server.Version.String() + ")"
	}
	return fmt.Sprintf("note: knob names not checked before any host: orch has no variable list for %s (lists: %s); the servers check them after connecting", what, VariableLists())
}

// checkNameOffline refuses a variable name t's declared server does not
// have, with the nearest names; from says where it came from (--knob,
// profile.vars, profile innodb.cnf). Another flavour's variable is refused
// with the flavour table's why, list or none. Names the flavour table knows
// better than the list (option-only, skip_X of a known X, a plugin's
// variable when the list has none of that plugin's) pass.
func checkNameOffline(t Target, from, name string) error {
	name, _ = canonName(name)
	s := t.Server
	if err := absentErr(t.Host.String(), from, name, s); err != nil {
		return err
	}
	known, ok := KnownVariables(t.Server, t.Assumed)
	if !ok {
		return nil
	}
	if _, found := slices.BinarySearch(known, name); found {
		return nil
	}
	if s.OptionOnly(name) {
		return nil
	}
	if off, isSkip := strings.CutPrefix(name, "skip_"); isSkip {
		if _, found := slices.BinarySearch(known, off); found {
			return nil
		}
	}
	if plugin := s.PluginFor(name); plugin != "" && !slices.ContainsFunc(known, func(k string) bool { return s.PluginFor(k) == plugin }) {
		return nil // the list was taken without that plugin: it cannot say
	}
	return fmt.Errorf("%s: %s %s: no such variable on %s%s", t.Host, from, name, s, suggest.DidYouMean(suggest.Closest(name, known)))
}

// absentErr refuses another flavour's variable on s, saying why and where
// to ask it instead (nil when s may have it).
func absentErr(host, from, name string, s flavor.Server) error {
	why, absent := s.AbsentVariable(name)
	if !absent {
		return nil
	}
	if from != "" {
		from += " "
	}
	return fmt.Errorf("%s: %s%s: no such variable on %s: %s", host, from, name, s, why)
}
