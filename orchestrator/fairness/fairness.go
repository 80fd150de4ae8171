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
// A matrix knob is an axis only between configurations that set it to
// different values: set alike on every configuration, a knob that is one
// engine's setting (innodb_flush_log_at_trx_commit over innodb and
// rocksdb) changes that engine alone, and the difference it makes is
// flagged with the knob named (Warning.Knob), whatever its kind.
//
// Lint is a pure function; the report lists its warnings under the
// verdict and the matrix refuses to start on a durability asymmetry or
// one a knob makes (Refused).
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
	// Vars are the variables involved (an axis naming one silences it
	// where the configurations set it differently).
	Vars []string
	// Knob is set when a matrix knob, set alike on the configurations,
	// makes the difference: it reaches one engine's setting and not the
	// other's.
	Knob *KnobCause
}

func (w Warning) String() string {
	if len(w.Values) == 1 { // about one configuration (an idle cache)
		return fmt.Sprintf("%s: %s (%s): %s", w.Host, w.What, w.Kind, w.Values[0])
	}
	s := fmt.Sprintf("%s: %s differs (%s): %s", w.Host, w.What, w.Kind, strings.Join(w.Values, " vs "))
	if w.Knob != nil {
		s += " [" + w.Knob.String() + "]"
	}
	return s
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

// Refused reports whether a matrix must not start on w without
// --allow-asymmetry: a durability difference, or any difference a knob of
// the matrix makes (the user set it for one engine's sake).
func Refused(w Warning) bool { return w.Kind == Durability || w.Knob != nil }

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
	var vals []seen
	for _, c := range configs {
		h, ok := findHost(c, host)
		if !ok {
			continue
		}
		key, shown, vs, ok := a.of(c, h)
		if !ok {
			continue
		}
		vals = append(vals, seen{key: key, shown: shown, c: c, h: h, vars: vs})
	}
	// Every pair is compared: a knob set alike on all configurations is
	// no axis between them (--knobs innodb_flush_log_at_trx_commit=1 over
	// innodb and rocksdb makes one engine durable), while configurations
	// that differ on a knob differ there on purpose.
	involved := make([]bool, len(vals))
	var knobs []string
	for i := range vals {
		for j := i + 1; j < len(vals); j++ {
			x, y := vals[i], vals[j]
			if x.key == y.key || a.sameEngine && x.c.Engine != y.c.Engine {
				continue
			}
			vars := appendNew(append([]string(nil), x.vars...), y.vars...)
			if onPurpose(x.h, y.h, vars, onAxis) {
				continue
			}
			involved[i], involved[j] = true, true
			for _, v := range vars {
				if onAxis[v] {
					knobs = appendNew(knobs, v)
				}
			}
		}
	}
	w := Warning{Kind: a.kind, Host: host, What: a.what}
	var shown []seen
	for i, v := range vals {
		if involved[i] {
			shown = append(shown, v)
			w.Values = append(w.Values, v.c.Label+": "+v.shown)
			w.Vars = appendNew(w.Vars, v.vars...)
		}
	}
	if len(shown) == 0 {
		return Warning{}, false
	}
	w.Knob = knobCause(shown, knobs)
	return w, true
}

// seen is one configuration's side of an aspect on a host.
type seen struct {
	key, shown string
	c          Config
	h          Host
	vars       []string
}

// onPurpose reports whether two configurations set an axis among vars to
// different values: their difference is the point of the comparison. A
// variable one of them lacks (its engine is not loaded) says nothing.
func onPurpose(x, y Host, vars []string, onAxis map[string]bool) bool {
	for _, v := range vars {
		if !onAxis[v] {
			continue
		}
		a, okA := x.Vars[v]
		b, okB := y.Vars[v]
		if okA && okB && boolKey(a) != boolKey(b) {
			return true
		}
	}
	return false
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
