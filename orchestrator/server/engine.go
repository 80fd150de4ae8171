package server

import (
	"slices"
	"sort"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// Engines, their plugins and where each flavour has them are the flavour
// table's (flavor.EngineSpec, Server.Engine); this file adds what orch does
// with them on a host.

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
	known := flavor.EngineNames()
	var mine, other []string
	for _, n := range names {
		n = strings.ToLower(n)
		if slices.Contains(known, n) {
			mine = append(mine, n)
		} else {
			other = append(other, n)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return slices.Index(known, mine[i]) < slices.Index(known, mine[j]) })
	sort.Strings(other)
	return append(mine, other...)
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
