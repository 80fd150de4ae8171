package load

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// factOrder lists the host facts shown first, in this order; the others
// follow sorted.
var factOrder = []string{"role", "address", "server", "mysqld", "os", "kernel", "cpu_model", "cpus", "memory_mb",
	"disk_path", "disk_device", "disk_fs", "disk_size_mb", "disk_model", "disk_kind", "disk_free_mb", "transparent_hugepages", "clock_offset_ms", "rtt_to_master_ms"}

// volatileVars change with every run without being configuration: the
// GTID positions the previous runs left.
var volatileVars = map[string]bool{
	"gtid_binlog_pos": true, "gtid_binlog_state": true, "gtid_current_pos": true,
	"gtid_slave_pos": true, "gtid_executed": true, "gtid_purged": true,
}

// readEvidence reads versions and host facts from the manifest and each
// host's rendered config and SHOW VARIABLES snapshot.
func readEvidence(dir string, man *ManifestDoc, roles map[string]string) (*Evidence, error) {
	ev := &Evidence{OrchVersion: man.OrchVersion, Command: strings.Join(man.Command, " "),
		Servers: man.Servers, EngineVersions: man.EngineVersions, Clients: man.Clients, Start: man.Start, Cluster: man.Inventory.Name,
		Config: map[string][]string{}, Variables: map[string]map[string]string{}, Roles: roles}
	for _, host := range SortedKeys(man.HostFacts) {
		hf, err := facts(host, man.HostFacts[host])
		if err != nil {
			return nil, fmt.Errorf("%s: %s: host_facts: %w", dir, schema.FileManifest, err)
		}
		ev.Facts = append(ev.Facts, hf)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "hosts"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		host := e.Name()
		cnf, err := readLines(filepath.Join(dir, schema.HostFile(host, schema.HostConfig)))
		if err != nil {
			return nil, err
		}
		vars, err := readLines(filepath.Join(dir, schema.HostFile(host, schema.HostVariablesBefore)))
		if err != nil {
			return nil, err
		}
		if cnf == nil && vars == nil {
			continue
		}
		ev.Hosts = append(ev.Hosts, host)
		ev.Config[host] = cnf
		m := map[string]string{}
		for _, l := range vars {
			name, value, _ := strings.Cut(l, "\t")
			m[name] = value
		}
		ev.Variables[host] = m
	}
	rank := func(h string) int {
		switch roles[h] {
		case "master":
			return 0
		case "slave":
			return 1
		}
		if h == "master" {
			return 0
		}
		return 2
	}
	slices.SortStableFunc(ev.Hosts, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return ev, nil
}

func facts(host string, raw json.RawMessage) (HostFacts, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return HostFacts{}, err
	}
	hf := HostFacts{Host: host}
	add := func(k string) {
		v, ok := m[k]
		if !ok || k == "host" {
			return
		}
		delete(m, k)
		switch x := v.(type) {
		case nil:
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			hf.Facts = append(hf.Facts, [2]string{k, strings.Join(parts, ", ")})
		case map[string]any:
			b, _ := json.Marshal(x) // re-marshalling decoded JSON cannot fail
			hf.Facts = append(hf.Facts, [2]string{k, string(b)})
		default:
			hf.Facts = append(hf.Facts, [2]string{k, fmt.Sprint(x)})
		}
	}
	for _, k := range factOrder {
		add(k)
	}
	for _, k := range SortedKeys(m) {
		add(k)
	}
	return hf, nil
}

// readLines reads a text file's non-blank lines; nil when it is missing.
func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return out, nil
}

// diffLines lists the lines only in base ("- line") and only in cur
// ("+ line"), in file order; repeated lines count as often as they occur.
// Order changes alone are no difference: option files are order-sensitive
// only for repeated options, which show as counts.
func diffLines(base, cur []string) []string {
	count := func(ls []string) map[string]int {
		m := map[string]int{}
		for _, l := range ls {
			m[l]++
		}
		return m
	}
	inBase, inCur := count(base), count(cur)
	var out []string
	for _, l := range base {
		if inCur[l] > 0 {
			inCur[l]--
			continue
		}
		out = append(out, "- "+l)
	}
	inCur = count(cur)
	for _, l := range cur {
		if inBase[l] > 0 {
			inBase[l]--
			continue
		}
		out = append(out, "+ "+l)
	}
	return out
}

// VarDiff is one server variable that differs from the baseline cell.
type VarDiff struct {
	Name, Base, Cur string // "(absent)" when one side does not have it
}

// diffVars lists the variables whose values differ, sorted by name,
// leaving out the run-state ones (volatileVars).
func diffVars(base, cur map[string]string) []VarDiff {
	var out []VarDiff
	const absent = "(absent)"
	for _, name := range SortedKeys(base) {
		if volatileVars[name] {
			continue
		}
		c, ok := cur[name]
		switch {
		case !ok:
			out = append(out, VarDiff{name, base[name], absent})
		case c != base[name]:
			out = append(out, VarDiff{name, base[name], c})
		}
	}
	for _, name := range SortedKeys(cur) {
		if _, ok := base[name]; !ok && !volatileVars[name] {
			out = append(out, VarDiff{name, absent, cur[name]})
		}
	}
	slices.SortStableFunc(out, func(a, b VarDiff) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// HostDiff is one host's configuration differences against the baseline
// cell's same host.
type HostDiff struct {
	Host   string
	Config []string  // "- line" / "+ line"
	Vars   []VarDiff // SHOW VARIABLES before the run
	// Missing says the baseline (or this run) has no files for the host.
	Missing string
}

// DiffEvidence compares a run's configuration with the baseline run's.
func DiffEvidence(base, cur *Evidence) []HostDiff {
	if cur == nil {
		return nil
	}
	var out []HostDiff
	for _, h := range cur.Hosts {
		d := HostDiff{Host: h}
		if base == nil || !slices.Contains(base.Hosts, h) {
			d.Missing = "the baseline run has no files for " + h
		} else {
			d.Config = diffLines(base.Config[h], cur.Config[h])
			d.Vars = diffVars(base.Variables[h], cur.Variables[h])
		}
		out = append(out, d)
	}
	return out
}

// VolatileFacts are host facts that change between any two runs (timings,
// free space) and so are no evidence of a different setup.
var VolatileFacts = map[string]bool{"ssh": true, "disk_free_mb": true, "clock_offset_ms": true, "rtt_to_master_ms": true}
