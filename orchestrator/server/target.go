package server

import (
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// KV is one NAME=VALUE server setting given on the command line.
type KV struct{ Name, Value string }

// Desired is what the user asks of a host's configuration.
type Desired struct {
	// Engine is the profile: innodb, tokudb or rocksdb ("" = inventory
	// profile.engine, else innodb).
	Engine string
	// Knobs override any server variable, after the profile and the
	// inventory's profile.vars, in order (--knob NAME=VALUE).
	Knobs []KV
	// ProfileDir replaces embedded profiles by file name ("" = inventory
	// profile.dir; relative to the inventory file).
	ProfileDir string
	// FixTHP lets orch turn transparent huge pages off where TokuDB needs
	// it, instead of failing with instructions.
	FixTHP bool
}

// ParseKnobs reads --knob NAME=VALUE arguments. A name given twice is an
// error rather than a silent last-one-wins.
func ParseKnobs(args []string) ([]KV, error) {
	var out []KV
	seen := map[string]bool{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		name, _ := canonName(k)
		if !ok || !validName(name) {
			return nil, fmt.Errorf("--knob %q: want NAME=VALUE with a server variable name", a)
		}
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("--knob %q: empty value; want NAME=VALUE", a)
		}
		if err := checkValue(name, v); err != nil {
			return nil, fmt.Errorf("--knob %w", err)
		}
		if seen[name] {
			return nil, fmt.Errorf("--knob %s is given twice", name)
		}
		seen[name] = true
		out = append(out, KV{Name: name, Value: v})
	}
	return out, nil
}

// Target is the host a profile is rendered for, as far as orch knows it:
// from a connected Node (Node.Target) or from the inventory alone for a
// dry run (OfflineTarget).
type Target struct {
	Host      *topology.Host
	Inventory *topology.Inventory
	Server    flavor.Server
	// Assumed is set when Server comes from a flavour hint, not the server.
	Assumed bool
	// ConfigDir is the include directory ("" when unknown: dry run).
	ConfigDir string
	// ConfigFile is orch's file's name there ("" means FileName).
	ConfigFile string
	Datadir    string
	// Engines the server has (SHOW ENGINES); nil means the flavour table's.
	Engines []string
	// PluginFiles are the engine plugin libraries in the server's plugin
	// dir (nil offline).
	PluginFiles []string
}

// OfflineTarget describes a host without connecting, for dry runs: the
// server comes from hint (a --flavor flag) or the inventory's mysql.flavor,
// see ParseServerHint.
func OfflineTarget(h *topology.Host, inv *topology.Inventory, hint string) (Target, error) {
	hint = firstSet(hint, h.MySQL.Flavor)
	if hint == "" {
		return Target{}, fmt.Errorf("%s: not connected and no flavour known: set mysql.flavor in the inventory or pass --flavor", h)
	}
	s, assumed, err := ParseServerHint(hint)
	if err != nil {
		return Target{}, fmt.Errorf("%s: %w", h, err)
	}
	return Target{Host: h, Inventory: inv, Server: s, Assumed: assumed, ConfigDir: h.MySQL.ConfigDir,
		Datadir: h.MySQL.Datadir}, nil
}

// ParseServerHint reads a flavour hint (see flavor.ParseHint).
func ParseServerHint(s string) (srv flavor.Server, assumed bool, err error) {
	return flavor.ParseHint(s)
}
