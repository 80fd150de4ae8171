package fairness

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// flushPolicy classifies how an engine makes a commit durable.
type flushPolicy struct {
	class string // "fsync per commit", "write per commit, fsync ~1 s", ...
	shown string // the variable as set
	vars  []string
}

// Commit durability classes, comparable across engines.
const (
	syncPerCommit  = "fsync at each commit"
	writePerCommit = "written at each commit, fsync about once a second"
	periodic       = "written and fsynced about once a second"
	checkpointOnly = "fsynced at checkpoints only"
)

// engineFlush is engine's commit durability on a host (its flush variable,
// flavor.EngineSettings); ok is false when the host does not show it.
func engineFlush(engine string, vars map[string]string) (flushPolicy, bool) {
	e, ok := flavor.LookupEngine(engine)
	name := e.Settings.FlushVar
	if !ok || name == "" {
		return flushPolicy{}, false
	}
	v, ok := vars[name]
	if !ok {
		return flushPolicy{}, false
	}
	p := flushPolicy{shown: name + "=" + v, vars: []string{name}}
	if period := e.Settings.FlushPeriodVar; period != "" {
		// TokuDB's handler skips the log fsync at commit and at prepare
		// whenever the period is set, whatever commit_sync says
		// (hatoku_hton.cc: tokudb_sync_on_commit, tokudb_sync_on_prepare);
		// the commit's log entry then waits in the server's log buffer
		// for the period's fsync, as InnoDB's does at =0. The TokuDB lab
		// measured it: commit_sync=ON with a period of 1000 ms, 0.0004
		// TokuDB log fsyncs per transaction.
		p.vars = append(p.vars, period)
		ms, _ := strconv.Atoi(strings.TrimSpace(vars[period]))
		p.shown += " " + period + "=" + vars[period]
		switch {
		case ms == 1000:
			p.class = periodic
		case ms > 0:
			p.class = fmt.Sprintf("written and fsynced every %d ms", ms)
		case isOn(v):
			p.class = syncPerCommit
		default:
			p.class = checkpointOnly
		}
		return p, true
	}
	switch strings.TrimSpace(v) {
	case "1", "3":
		p.class = syncPerCommit
	case "2":
		p.class = writePerCommit
	case "0":
		p.class = periodic
	default:
		p.class = v
	}
	return p, true
}

// sideEngine is the engine of the replica's position tables
// (flavor.ReplicaPositionStore): MariaDB keeps mysql.gtid_slave_pos in
// InnoDB unless gtid_pos_auto_engines lists the engine the transaction
// used; MySQL keeps relay-log info in an InnoDB table when
// relay_log_info_repository=TABLE (8.0's only choice).
func sideEngine(engine string, vars map[string]string) (side, shown string, names []string, ok bool) {
	st, ok := flavor.ReplicaPositionStore(engine, vars)
	return st.Engine, st.Shown, st.Vars, ok
}

// aspects are the settings compared on every host.
var aspects = slices.Concat(firstAspects, engineDurability(), moreAspects)

// SideTables is the aspect of where a replica keeps its applied position
// (mysql.gtid_slave_pos, the relay log info): the report's "why" names it
// beside the fsyncs it costs.
const SideTables = "replica side tables (applied position)"

// firstAspects are compared first.
var firstAspects = []aspect{
	{kind: Durability, what: "flush policy of the engine under test", of: func(c Config, h Host) (string, string, []string, bool) {
		p, ok := engineFlush(c.Engine, h.Vars)
		return p.class, c.Engine + " " + p.shown + " (" + p.class + ")", p.vars, ok
	}},
	{kind: Durability, what: SideTables, of: func(c Config, h Host) (string, string, []string, bool) {
		if h.Role != "slave" {
			return "", "", nil, false
		}
		side, shown, names, ok := sideEngine(c.Engine, h.Vars)
		if !ok {
			return "", "", nil, false
		}
		if side == "file" {
			return "file", shown, names, true
		}
		if side == c.Engine {
			return "engine under test", shown, names, true
		}
		// A side table in another engine costs that engine's commit on
		// every applied transaction, at its own flush policy. One as
		// durable as the engine under test that syncs nothing per commit
		// (InnoDB at =0 holding a TokuDB replica's position while TokuDB
		// syncs its log once a second) keeps the position with the data
		// at no cost per transaction, as a side table in the engine itself
		// does; one that syncs at each commit adds an fsync to every
		// applied transaction, and one that syncs where the engine does
		// not (or the reverse) is a different replica.
		p, _ := engineFlush(side, h.Vars)
		shown += ", " + p.shown + " (" + p.class + ")"
		if own, ok := engineFlush(c.Engine, h.Vars); ok && own.class == p.class && p.class != syncPerCommit {
			return "engine under test", shown, append(names, p.vars...), true
		}
		return side + ": " + p.class, shown, append(names, p.vars...), true
	}},
	plainVar(Durability, "sync_binlog"),
	plainVar(Durability, "sync_relay_log"),
	plainVar(Durability, "sync_relay_log_info"),
	plainVar(Durability, "sync_master_info"),
	plainVar(Durability, "binlog_format"),
	plainVar(Durability, "rpl_semi_sync_master_wait_point"),
	plainVar(Durability, "rpl_semi_sync_master_enabled"),
	plainVar(Durability, "rpl_semi_sync_slave_enabled"),
}

// moreAspects follow the engines' own durability settings.
var moreAspects = []aspect{
	{kind: Caching, what: "cache of the engine under test", of: func(c Config, h Host) (string, string, []string, bool) {
		b, shown, name, ok := engineCache(c.Engine, h)
		if !ok {
			return "", "", nil, false
		}
		// Within 10% counts as equal: budgets are set in round units.
		return strconv.FormatFloat(math.Round(math.Log(b)/math.Log(1.1)), 'f', 0, 64), shown, []string{name}, true
	}},
	{kind: IO, what: "direct or buffered IO of the engine under test", of: func(c Config, h Host) (string, string, []string, bool) {
		return engineIO(c.Engine, h.Vars)
	}},
}

// engineDurability compares each engine's other durability settings
// (InnoDB's doublewrite) between configurations that test that engine.
func engineDurability() []aspect {
	var out []aspect
	for _, e := range flavor.EngineSpecs() {
		for _, dv := range e.Settings.Durability {
			out = append(out, aspect{kind: Durability, what: dv.What, sameEngine: true, of: func(c Config, h Host) (string, string, []string, bool) {
				v, ok := h.Vars[dv.Name]
				if c.Engine != e.Name {
					ok = false
				}
				return boolKey(v), dv.Name + "=" + v, []string{dv.Name}, ok
			}})
		}
	}
	return out
}

// plainVar compares one variable as it is.
func plainVar(k Kind, name string) aspect {
	return aspect{kind: k, what: name, of: func(c Config, h Host) (string, string, []string, bool) {
		v, ok := h.Vars[name]
		return boolKey(v), name + "=" + v, []string{name}, ok
	}}
}

// engineCache is an engine's cache in bytes and how it reads
// (flavor.EngineSettings.CacheVar; TokuDB's 0 means half the RAM).
func engineCache(engine string, h Host) (float64, string, string, bool) {
	e, ok := flavor.LookupEngine(engine)
	name := e.Settings.CacheVar
	if !ok || name == "" {
		return 0, "", "", false
	}
	v, ok := h.Vars[name]
	if !ok {
		return 0, "", "", false
	}
	b, err := ParseBytes(v)
	if err != nil {
		return 0, "", "", false
	}
	shown := name + "=" + mib(b)
	if e.Settings.CacheZeroIsHalfRAM && b == 0 {
		if h.MemoryBytes <= 0 {
			return 0, "", "", false
		}
		b = h.MemoryBytes / 2
		shown = name + "=0 (half the RAM, " + mib(b) + ")"
	}
	if h.MemoryBytes > 0 {
		shown += fmt.Sprintf(", %.1f%% of RAM", 100*b/h.MemoryBytes)
	}
	return b, shown, name, true
}

// engineIO says whether the engine under test reads and writes its data
// with O_DIRECT (flavor.EngineSettings.DirectIO): direct when every switch
// is on, partly direct when some are.
func engineIO(engine string, vars map[string]string) (string, string, []string, bool) {
	e, ok := flavor.LookupEngine(engine)
	if !ok || len(e.Settings.DirectIO) == 0 {
		return "", "", nil, false
	}
	var shown, names []string
	on, seen := 0, false
	for _, sw := range e.Settings.DirectIO {
		v, ok := vars[sw.Name]
		seen = seen || ok
		if sw.DirectIf == "" && isOn(v) || sw.DirectIf != "" && strings.Contains(strings.ToUpper(v), strings.ToUpper(sw.DirectIf)) {
			on++
		}
		shown, names = append(shown, sw.Name+"="+v), append(names, sw.Name)
	}
	key := "buffered"
	switch {
	case on == len(e.Settings.DirectIO):
		key = "direct"
	case on > 0:
		key = "partly direct"
	}
	return key, strings.Join(shown, " ") + " (" + key + ")", names, seen
}

// MaxIdleCacheShare is the share of RAM above which the cache of an
// engine loaded but not under test is flagged: that memory is not the
// page cache's any more (a loaded TokuDB takes half the RAM by default).
const MaxIdleCacheShare = 0.10

// idleCaches flags, per configuration, the caches of engines that are
// loaded (their variables exist) but not under test, when they hold more
// than MaxIdleCacheShare of RAM, or, RAM unknown, more than the cache of
// the engine under test.
func idleCaches(configs []Config, host string) []Warning {
	var out []Warning
	for _, c := range configs {
		h, ok := findHost(c, host)
		if !ok {
			continue
		}
		mine, _, _, _ := engineCache(c.Engine, h)
		for _, e := range flavor.EngineNames() {
			if e == c.Engine {
				continue
			}
			b, shown, name, ok := engineCache(e, h)
			if !ok {
				continue
			}
			big := b > mine
			if h.MemoryBytes > 0 {
				big = b > MaxIdleCacheShare*h.MemoryBytes
			}
			if big {
				out = append(out, Warning{Kind: Caching, Host: host, What: "cache of " + e + ", loaded but not under test",
					Values: []string{c.Label + ": " + shown}, Vars: []string{name}})
			}
		}
	}
	return out
}

// ParseBytes reads a size as servers print or take it: 134217728, 128M,
// 4G, 512K.
func ParseBytes(s string) (float64, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult, s = 1<<10, s[:n-1]
		case 'm', 'M':
			mult, s = 1<<20, s[:n-1]
		case 'g', 'G':
			mult, s = 1<<30, s[:n-1]
		case 't', 'T':
			mult, s = 1<<40, s[:n-1]
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want bytes or a K/M/G/T suffix", s)
	}
	return v * mult, nil
}

func mib(b float64) string {
	if b >= 1<<30 && math.Mod(b, 1<<30) == 0 {
		return strconv.FormatFloat(b/(1<<30), 'f', -1, 64) + "G"
	}
	return strconv.FormatFloat(math.Round(b/(1<<20)), 'f', -1, 64) + "M"
}

func isOn(v string) bool {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "ON", "1", "TRUE", "YES":
		return true
	}
	return false
}

// boolKey makes ON/1 and OFF/0 compare equal.
func boolKey(v string) string {
	switch strings.ToUpper(strings.TrimSpace(v)) {
	case "ON", "1", "TRUE", "YES":
		return "ON"
	case "OFF", "0", "FALSE", "NO":
		return "OFF"
	}
	return v
}
