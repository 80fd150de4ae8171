package lab

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
)

// A lab's bridge carries the state dir that made it in its alias, so a later
// `lab up` on the same subnet can tell a lab whose owner died without
// running `lab down` (a killed test run, a crashed shell) from someone
// else's network, and clear it instead of failing until a human steps in.
const bridgeAliasPrefix = "orch-lab state "

func bridgeAlias(stateDir string) string { return bridgeAliasPrefix + absPath(stateDir) }

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// aliasStateDir returns the state dir an interface's alias names, if it is
// a lab bridge's.
func aliasStateDir(ifname string) (string, bool) {
	b, err := os.ReadFile(filepath.Join("/sys/class/net", ifname, "ifalias"))
	if err != nil {
		return "", false
	}
	alias := strings.TrimSpace(string(b))
	dir, ok := strings.CutPrefix(alias, bridgeAliasPrefix)
	return dir, ok && filepath.IsAbs(dir)
}

// leftoverLab is another lab found holding an overlapping subnet.
type leftoverLab struct {
	bridge, stateDir string
	st               *State
}

// running names the recorded hosts whose processes still run.
func (l leftoverLab) running() []string {
	var names []string
	for _, h := range l.st.Hosts {
		if alive(h.PID, h.PIDStart) {
			names = append(names, h.Name)
		}
	}
	return names
}

// findLeftovers lists the other labs (by their bridges' aliases and state
// files) whose subnets overlap subnet. A bridge whose state dir is gone is
// not listed: without its record nothing of it can be removed safely.
func findLeftovers(subnet netip.Prefix, ownDir string) []leftoverLab {
	links, _ := filepath.Glob("/sys/class/net/olab*")
	var out []leftoverLab
	for _, l := range links {
		name := filepath.Base(l)
		dir, ok := aliasStateDir(name)
		if !ok || dir == absPath(ownDir) {
			continue
		}
		st, err := readState(dir)
		if err != nil || st.Bridge != name {
			continue
		}
		p, err := netip.ParsePrefix(st.Subnet)
		if err != nil || !p.Overlaps(subnet) {
			continue
		}
		out = append(out, leftoverLab{bridge: name, stateDir: dir, st: st})
	}
	return out
}

// reclaimLeftovers tears down labs on the subnet whose hosts are all gone,
// and fails, naming the lab and how to remove it, when one still runs.
func reclaimLeftovers(ctx context.Context, cfg Config, subnet netip.Prefix, p *progress) error {
	for _, l := range findLeftovers(subnet, cfg.StateDir) {
		if hosts := l.running(); len(hosts) > 0 {
			return fmt.Errorf("subnet %s is in use by the orch lab in %s (%s running); take it down with `orch lab down --state-dir %s`, or choose another with --subnet",
				subnet, l.stateDir, strings.Join(hosts, ", "), l.stateDir)
		}
		p.printf("lab: subnet %s is held by the lab in %s, whose hosts are all gone (its owner died without `lab down`); tearing it down",
			subnet, l.stateDir)
		if err := Down(ctx, Config{StateDir: l.stateDir, Out: cfg.Out}); err != nil {
			return fmt.Errorf("leftover lab in %s: %w", l.stateDir, err)
		}
	}
	return nil
}
