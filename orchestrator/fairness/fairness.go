// Package fairness checks that the configurations a benchmark compares
// differ only where the comparison says they do. From each configuration's
// effective server variables (SHOW VARIABLES per host, or a rendered
// profile over the server's defaults) it flags every difference that is
// not on the matrix's axes and that changes durability, caching or IO:
// the flush policy of the engine under test and of the engine holding the
// replicas' side tables (mysql.gtid_slave_pos, relay-log info), sync_binlog
// and friends, InnoDB's doublewrite, the cache of the engine under test
// (against RAM and against the other configurations), direct versus
// buffered IO, and the caches of engines loaded but not under test.
//
// Lint is a pure function; the report lists its warnings under the
// verdict and the matrix refuses to start on a durability asymmetry.
package fairness

import (
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// Kind says what an asymmetry changes.
type Kind string

const (
	Durability Kind = "durability"
	Caching    Kind = "caching"
	IO         Kind = "io"
)

// Config is one configuration (a matrix label) and its hosts' variables.
type Config struct {
	Label string
	// Engine is the engine under test: innodb, rocksdb or tokudb.
	Engine string
	Hosts  []Host
}

// Host is one database host's effective variables in a configuration.
type Host struct {
	Name string
	Role string // master or slave
	// Vars maps lower-case variable names to values as SHOW VARIABLES
	// prints them.
	Vars map[string]string
	// MemoryBytes is the host's RAM; 0 when unknown.
	MemoryBytes float64
}

// Warning is one asymmetry between configurations on one host.
type Warning struct {
	Kind Kind
	Host string
	// What names the setting ("flush policy of the engine under test").
	What string
	// Values says, per configuration, what it was.
	Values []string
	// Vars are the variables involved (an axis naming one silences it).
	Vars []string
}

func (w Warning) String() string {
	if len(w.Values) == 1 { // about one configuration (an idle cache)
		return fmt.Sprintf("%s: %s (%s): %s", w.Host, w.What, w.Kind, w.Values[0])
	}
	return fmt.Sprintf("%s: %s differs (%s): %s", w.Host, w.What, w.Kind, strings.Join(w.Values, " vs "))
}

// merge joins warnings that say the same on several hosts into one whose
// Host lists them ("slave1, slave2").
func merge(ws []Warning) []Warning {
	var out []Warning
	index := map[string]int{}
	for _, w := range ws {
		key := string(w.Kind) + "\x00" + w.What + "\x00" + strings.Join(w.Values, "\x00")
		if i, ok := index[key]; ok {
			out[i].Host += ", " + w.Host
			continue
		}
		index[key] = len(out)
		out = append(out, w)
	}
	return out
}

// HasDurability reports whether any warning is about durability.
func HasDurability(ws []Warning) bool {
	for _, w := range ws {
		if w.Kind == Durability {
			return true
		}
	}
	return false
}

// aspect is one thing compared across configurations on a host: a value
// to compare, its description and the variables it comes from. ok is
// false when the host does not have it (the engine is not loaded, the
// variable does not exist on this server).
type aspect struct {
	kind Kind
	what string
	// of returns the compared key and the words shown for it.
	of func(c Config, h Host) (key, shown string, vars []string, ok bool)
	// sameEngine compares only configurations with the same engine
	// under test (InnoDB's doublewrite matters only when InnoDB is).
	sameEngine bool
}

// Lint compares every configuration with the first (the baseline) on each
// host, and lists each aspect that differs. axes are the variable names
// the comparison varies on purpose; a difference in one of them is the
// point of the benchmark, not a warning.
func Lint(configs []Config, axes []string) []Warning {
	if len(configs) < 2 {
		return lintAlone(configs)
	}
	onAxis := map[string]bool{}
	for _, a := range axes {
		onAxis[normName(a)] = true
	}
	var out []Warning
	for _, host := range hostNames(configs) {
		for _, a := range aspects {
			w, ok := compare(configs, host, a, onAxis)
			if ok {
				out = append(out, w)
			}
		}
		out = append(out, idleCaches(configs, host)...)
	}
	return merge(out)
}

// lintAlone checks what needs no second configuration: idle caches.
func lintAlone(configs []Config) []Warning {
	var out []Warning
	for _, host := range hostNames(configs) {
		out = append(out, idleCaches(configs, host)...)
	}
	return merge(out)
}

func compare(configs []Config, host string, a aspect, onAxis map[string]bool) (Warning, bool) {
	type seen struct{ key, shown, label string }
	var vals []seen
	var vars []string
	for _, c := range configs {
		h, ok := findHost(c, host)
		if !ok {
			continue
		}
		key, shown, vs, ok := a.of(c, h)
		if !ok {
			continue
		}
		vals = append(vals, seen{key, shown, c.Label})
		vars = appendNew(vars, vs...)
	}
	for _, v := range vars {
		if onAxis[v] {
			return Warning{}, false
		}
	}
	differ := false
	for i := 1; i < len(vals); i++ {
		if vals[i].key != vals[0].key {
			if a.sameEngine && engineOf(configs, vals[i].label) != engineOf(configs, vals[0].label) {
				continue
			}
			differ = true
		}
	}
	if !differ {
		return Warning{}, false
	}
	w := Warning{Kind: a.kind, Host: host, What: a.what, Vars: vars}
	for _, v := range vals {
		w.Values = append(w.Values, v.label+": "+v.shown)
	}
	return w, true
}

func engineOf(configs []Config, label string) string {
	for _, c := range configs {
		if c.Label == label {
			return c.Engine
		}
	}
	return ""
}

func findHost(c Config, name string) (Host, bool) {
	for _, h := range c.Hosts {
		if h.Name == name {
			return h, true
		}
	}
	return Host{}, false
}

func hostNames(configs []Config) []string {
	var out []string
	for _, c := range configs {
		for _, h := range c.Hosts {
			out = appendNew(out, h.Name)
		}
	}
	return out
}

func appendNew(list []string, xs ...string) []string {
	for _, x := range xs {
		found := false
		for _, l := range list {
			if l == x {
				found = true
				break
			}
		}
		if !found {
			list = append(list, x)
		}
	}
	return list
}

// normName spells a variable as SHOW VARIABLES does (flavor.VariableName).
func normName(s string) string { return flavor.VariableName(s) }
