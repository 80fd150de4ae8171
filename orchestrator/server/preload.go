package server

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/orchestrator/step"
)

// An engine that needs a library preloaded into the server (TokuDB:
// jemalloc, the engine table's EngineSpec.Preload) gets it from
// mysqld_safe's malloc-lib where mysqld_safe starts the server. systemd
// starts mariadbd directly and reads no [mysqld_safe] group (MariaDB's
// systemd page), so on a systemd host orch puts LD_PRELOAD in the unit's
// environment with a drop-in of its own (systemd.unit(5): a .conf file in
// /etc/systemd/system/UNIT.service.d/; systemd.exec(5): Environment= in
// [Service]), reloads systemd so that the next start reads it, and takes it
// away with orch down. A unit whose own environment already preloads the
// library is left as its owner set it.

// dropInName is orch's drop-in in the unit's drop-in directory.
const dropInName = "orch-preload.conf"

// dropInPath is orch's drop-in for the systemd unit.
func dropInPath(unit string) string {
	return "/etc/systemd/system/" + strings.TrimSuffix(unit, ".service") + ".service.d/" + dropInName
}

// dropInText is orch's drop-in preloading lib for engine. The value is
// double-quoted as systemd.exec(5) allows; a path systemd would expand or
// split (%, $, quotes, backslashes, white space) is refused rather than
// escaped.
func dropInText(engine, lib string) (string, error) {
	if !path.IsAbs(lib) || strings.ContainsAny(lib, "%$\"'\\ \t\n") {
		return "", fmt.Errorf("preload library path %q: not a plain absolute path", lib)
	}
	return ownerMarker + ": " + engine + " needs " + path.Base(lib) + " preloaded into the server, and systemd\n" +
		"# starts it without mysqld_safe (no malloc-lib). orch down removes this file.\n" +
		"[Service]\nEnvironment=\"LD_PRELOAD=" + lib + "\"\n", nil
}

// preloadProbe is the host probe's part for preloads: where each library
// an engine may need is (preload=SONAME PATH, from the dynamic linker's
// cache), and for each systemd unit found its environment and orch's
// drop-in (unit_env=UNIT ENV, dropin=UNIT LINE).
func preloadProbe() string {
	var b strings.Builder
	for _, lib := range flavor.PreloadLibraries() {
		q := shell.Quote(lib)
		b.WriteString(`p=$({ ldconfig -p || /sbin/ldconfig -p; } | awk -v l=` + q + ` 'index($1, l) == 1 { print $NF; exit }')
[ -n "$p" ] && echo "preload=` + lib + ` $p"
`)
	}
	return b.String()
}

// unitProbe prints, inside the probe's loop over units ($u), the unit's
// environment and orch's drop-in.
const unitProbe = `    echo "unit_env=$u $(systemctl show -p Environment --value "$u.service")"
    [ -r "/etc/systemd/system/$u.service.d/` + dropInName + `" ] && sed "s/^/dropin=$u /" "/etc/systemd/system/$u.service.d/` + dropInName + `"
`

// preloadFacts fills the preload facts from the probe's lines for the
// chosen unit.
func (f *Facts) preloadFacts(kv map[string][]string) {
	f.Preloads = map[string]string{}
	for _, l := range kv["preload"] {
		if name, p, ok := strings.Cut(l, " "); ok {
			f.Preloads[name] = p
		}
	}
	unit := f.Service.Unit
	if unit == "" {
		return
	}
	for _, l := range kv["unit_env"] {
		if u, env, _ := strings.Cut(l, " "); u == unit {
			f.UnitEnv = env
		}
	}
	var lines []string
	for _, l := range kv["dropin"] {
		if u, text, _ := strings.Cut(l, " "); u == unit {
			lines = append(lines, text)
		}
	}
	if len(lines) > 0 {
		f.DropIn = strings.Join(lines, "\n") + "\n"
	}
}

// planPreload decides orch's drop-in for cfg: needed on a systemd host when
// cfg loads (or the plan enables) an engine that needs a preload the unit's
// own environment does not give.
func (n *Node) planPreload(cfg *Config, p *Plan) error {
	unit := n.Facts.Service.Unit
	if unit == "" {
		return nil // mysqld_safe or the inventory's own commands start it
	}
	for _, e := range n.Server.Engines() {
		if e.Preload == "" || !n.loads(cfg, p, e.EngineSpec) {
			continue
		}
		if strings.Contains(n.Facts.UnitEnv, "LD_PRELOAD=") && strings.Contains(n.Facts.UnitEnv, e.Preload) && n.Facts.DropIn == "" {
			return nil // the unit's owner preloads it
		}
		lib := n.Facts.Preloads[e.Preload]
		if lib == "" {
			return n.errorf("%s needs %s preloaded into the server, and systemd unit %s starts it without mysqld_safe: no %s* in the dynamic linker's cache (ldconfig -p): install it (Debian: libjemalloc2)", e.Display, e.Preload, unit, e.Preload)
		}
		text, err := dropInText(e.Display, lib)
		if err != nil {
			return n.errorf("%s: %w", e.Display, err)
		}
		if text != n.Facts.DropIn {
			p.DropIn = text
			p.NeedsRestart = true
		}
		return nil
	}
	return nil
}

// loads reports whether the server runs engine e's plugin with cfg: the
// engine under test, or a plugin_load_add orch's file keeps.
func (n *Node) loads(cfg *Config, p *Plan, e flavor.EngineSpec) bool {
	return p.engine.Name == e.Name || slices.ContainsFunc(cfg.Vars, func(v Var) bool {
		return v.Name == "plugin_load_add" && v.Value == e.Library
	})
}

// dropInStep writes orch's drop-in and reloads systemd; its undo puts back
// what was there (orch's earlier drop-in, or nothing).
func (n *Node) dropInStep(text string) step.Step {
	p := dropInPath(n.Facts.Service.Unit)
	old := n.Facts.DropIn
	return step.Step{Name: "write systemd drop-in " + p,
		Do: func(ctx context.Context) error {
			if err := n.writeDropIn(ctx, text); err != nil {
				return err
			}
			n.Facts.DropIn = text
			return nil
		},
		Undo: func(ctx context.Context) error {
			if err := n.writeDropIn(ctx, old); err != nil {
				return err
			}
			n.Facts.DropIn = old
			return nil
		},
		UndoOnFailure: true, // an upload cut short, a reload that failed
	}
}

// writeDropIn installs text as orch's drop-in ("" removes it) and reloads
// systemd's units.
func (n *Node) writeDropIn(ctx context.Context, text string) error {
	p := dropInPath(n.Facts.Service.Unit)
	if text != "" {
		dir := shell.Quote(path.Dir(p))
		if _, err := n.Exec.Run(ctx, executor.Command{Script: "mkdir -p " + dir, Sudo: true, Timeout: commandTimeout}); err != nil {
			return n.errorf("create %s: %w", path.Dir(p), stripHost(err))
		}
		if err := n.Exec.Upload(ctx, strings.NewReader(text), p, 0o644, true); err != nil {
			return n.errorf("write %s: %w", p, err)
		}
	}
	script := "systemctl daemon-reload"
	if text == "" {
		// The directory stays: it may be the unit owner's.
		script = "rm -f " + shell.Quote(p) + " && systemctl daemon-reload"
	}
	if _, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: commandTimeout}); err != nil {
		return n.errorf("%s and reload systemd: %w", p, stripHost(err))
	}
	return nil
}
