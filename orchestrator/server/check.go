package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/suggest"
)

// Change is one variable whose running value differs from the config's.
type Change struct {
	Name, From, To string
	// Reason says why a change needs a restart ("" for dynamic ones).
	Reason string
}

// Plan is what Apply would do on one host, decided before anything is
// touched.
type Plan struct {
	Host string
	// Unknown are the variables the server does not have, one error each
	// (Check returns them joined).
	Unknown []error
	// Dynamic changes are applied with SET GLOBAL when no restart is
	// needed; Static ones need a restart.
	Dynamic, Static []Change
	// Pending are variables of a plugin that is not loaded yet (semi-sync
	// on MySQL until the replication step installs it): written to the
	// file, checked once the plugin runs.
	Pending []string
	// Removed are variables the file on disk sets and the new one does not:
	// only a restart returns them to what the other option files say.
	Removed      []string
	FileChanged  bool
	NeedsRestart bool
	// EnableEngine installs the profile's engine plugin before the restart.
	EnableEngine []flavor.Statement
	// FixTHP turns transparent huge pages off first (TokuDB).
	FixTHP bool
	// DropIn is orch's systemd drop-in to write before the restart, for
	// an engine that needs a library preloaded (see preload.go).
	DropIn string

	// loadAtStart: the engine is not loaded and the option file's
	// plugin_load_add loads it at the restart.
	loadAtStart bool

	old     fileState
	current map[string]string // SHOW GLOBAL VARIABLES when checked
	engine  flavor.EngineSpec
}

// Changed reports whether Apply has anything to do.
func (p *Plan) Changed() bool {
	return p.FileChanged || p.NeedsRestart || len(p.Dynamic) > 0 || len(p.EnableEngine) > 0 || p.FixTHP || p.DropIn != ""
}

// Check validates cfg against the running server and diffs it with the
// server and the file on disk. Nothing is changed, except that on MySQL a
// changed variable is probed with SET GLOBAL x = @@GLOBAL.x (its own value)
// to learn whether it is dynamic. Unknown variables and engines the server
// cannot have are errors; the plan is returned with them for reporting.
func (n *Node) Check(ctx context.Context, cfg *Config) (*Plan, error) {
	if cfg.Host != n.Host.String() || cfg.Path != n.configPath() {
		return nil, n.errorf("config was rendered for %s at %q, not for this host's %s", cfg.Host, cfg.Path, n.configPath())
	}
	if cfg.server != n.Server {
		return nil, n.errorf("config was rendered for %s, but the server is %s", cfg.server, n.Server)
	}
	p := &Plan{Host: cfg.Host}
	var err error
	if p.current, err = n.Variables(ctx); err != nil {
		return nil, err
	}
	active, err := n.activePlugins(ctx)
	if err != nil {
		return nil, err
	}
	if err := n.checkEngine(ctx, cfg, p); err != nil {
		return p, err
	}
	if p.old, err = n.readState(ctx); err != nil {
		return nil, err
	}
	for _, v := range cfg.Vars {
		if e := n.classify(ctx, v, p, active); e != nil {
			p.Unknown = append(p.Unknown, e)
		}
	}
	if len(p.Unknown) > 0 {
		return p, errors.Join(p.Unknown...)
	}
	n.derivedRestarts(ctx, cfg, p)
	p.FileChanged = !p.old.exists || p.old.text != cfg.Text
	if p.old.exists {
		old, err := parseCnf(n.configFile(), p.old.text)
		if err != nil {
			// Not a file orch could have written: whatever it set goes.
			p.Removed = append(p.Removed, "everything the previous "+n.configFile()+" set")
			old = &cnfFile{}
		}
		for _, l := range old.lines {
			if l.kind == lineOption && isServerSection(l.section) && !slices.ContainsFunc(cfg.Vars, func(v Var) bool { return v.Name == l.name }) {
				p.Removed = append(p.Removed, l.name)
			}
		}
	}
	p.NeedsRestart = len(p.Static) > 0 || len(p.Removed) > 0 || p.loadAtStart
	if len(p.EnableEngine) > 0 && slices.ContainsFunc(p.Pending, func(name string) bool { return n.Server.PluginFor(name) == p.engine.Plugin }) {
		// The plugin's options are read when it loads at startup.
		p.NeedsRestart = true
	}
	if err := n.planPreload(cfg, p); err != nil {
		return p, err
	}
	return p, nil
}

// classify sorts one variable into the plan, or returns why it is unknown.
func (n *Node) classify(ctx context.Context, v Var, p *Plan, active map[string]bool) error {
	cur, ok := p.current[v.Name]
	switch {
	case ok:
		want := shownValue(v.Name, v.Value, v.Bare)
		if sameValue(want, cur) {
			return nil
		}
		c := Change{Name: v.Name, From: cur, To: want}
		if c.Reason = n.staticReason(ctx, v.Name); c.Reason != "" {
			p.Static = append(p.Static, c)
		} else {
			p.Dynamic = append(p.Dynamic, c)
		}
		return nil
	case n.Server.OptionOnly(v.Name): // checked in the option files only
		if !p.old.exists || !strings.Contains(p.old.text, optionText(cnfLine{name: v.Name, value: v.Value, bare: v.Bare, loose: v.Loose})) {
			p.Static = append(p.Static, Change{Name: v.Name, To: v.Value, Reason: "read only at startup"})
		}
		return nil
	}
	if off, isSkip := strings.CutPrefix(v.Name, "skip_"); isSkip {
		if cur, ok := p.current[off]; ok {
			if !sameValue("OFF", cur) {
				p.Static = append(p.Static, Change{Name: off, From: cur, To: "OFF", Reason: v.Name + " is read only at startup"})
			}
			return nil
		}
	}
	if plugin := n.Server.PluginFor(v.Name); plugin != "" {
		switch {
		case active[strings.ToLower(plugin)]:
			// Loaded, yet the name is not among its variables: a typo.
		case n.willLoad(plugin):
			p.Pending = append(p.Pending, v.Name)
			return nil
		default:
			return n.errorf("%s: no such server variable on %s (it belongs to plugin %s, which is not installed)", v.Name, n.Server, plugin)
		}
	}
	return n.errorf("%s: no such server variable on %s%s", v.Name, n.Server, suggest.DidYouMean(suggest.Closest(v.Name, n.knownNames(p.current))))
}

// willLoad reports whether plugin will be loaded by this apply or by the
// replication step: semi-sync plugins always are (when semi-sync is on),
// engine plugins when their library is on the host.
func (n *Node) willLoad(plugin string) bool {
	ss := n.Server.SemiSync()
	if plugin == ss.MasterPlugin || plugin == ss.SlavePlugin {
		return true
	}
	if e, ok := flavor.EngineByPlugin(plugin); ok {
		return slices.Contains(n.Facts.PluginFiles, e.Library)
	}
	return false
}

// knownNames are the names a misspelt variable is compared with.
func (n *Node) knownNames(current map[string]string) []string {
	names := slices.Sorted(maps.Keys(current))
	ss := n.Server.SemiSync()
	for _, s := range []string{ss.MasterEnabled, ss.MasterTimeout, ss.MasterWaitPoint, ss.MasterWaitCount, ss.SlaveEnabled} {
		if s != "" && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	return names
}

// staticReason returns why a variable cannot be set at run time, "" when
// it can. Where the server lists it (MariaDB's
// information_schema.SYSTEM_VARIABLES.READ_ONLY, flavor.ReadOnlyQuery) the
// catalogue says; elsewhere (MySQL) the variable is set to its own value,
// which fails with error 1238 (read-only) exactly when it is not dynamic.
func (n *Node) staticReason(ctx context.Context, name string) string {
	if r, ok := n.Server.RestartOnly(name); ok {
		return r
	}
	if q, ok := n.Server.ReadOnlyQuery(name); ok {
		dynamic, err := n.catalogueIs(ctx, q, "NO")
		switch {
		case err != nil:
			return "dynamic or not: " + err.Error()
		case dynamic:
			return ""
		}
		return "not dynamic"
	}
	err := n.db.Exec(ctx, "SET GLOBAL "+name+" = @@GLOBAL."+name)
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return ""
	case errors.As(err, &me) && me.Number == 1238:
		return "not dynamic"
	}
	return "cannot be set at run time: " + err.Error()
}

// activePlugins lists the loaded plugins, by lower-case name.
func (n *Node) activePlugins(ctx context.Context) (map[string]bool, error) {
	rows, err := n.db.Query(ctx, "SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_STATUS = 'ACTIVE'")
	if err != nil {
		return nil, n.errorf("plugins: %w", err)
	}
	out := map[string]bool{}
	for _, r := range rows {
		out[strings.ToLower(r[0])] = true
	}
	return out, nil
}

// checkEngine makes sure the profile's engine runs or can be enabled here:
// loaded, or its plugin library present (then Apply installs it); for
// TokuDB, transparent huge pages must be off.
func (n *Node) checkEngine(ctx context.Context, cfg *Config, p *Plan) error {
	e, ok := flavor.LookupEngine(cfg.Engine)
	if !ok {
		return n.errorf("unknown engine %q", cfg.Engine)
	}
	p.engine = e
	engines, err := n.engines(ctx)
	if err != nil {
		return err
	}
	var have []string
	loaded := false
	for _, s := range engines {
		have = append(have, s.name)
		loaded = loaded || s.name == e.Name
	}
	have = orderEngines(have)
	how, inTable := n.Server.Engine(e.Name)
	switch {
	case !inTable:
		return n.Server.EngineUnavailable(n.Host.String(), e.Name, have)
	case !loaded && !slices.Contains(n.Facts.PluginFiles, e.Library):
		return fmt.Errorf("%s: %s is not installed on %s: %s is not in %s (to enable it: %s); engines: %s",
			n.Host, e.Name, n.Server, e.Library, n.Facts.PluginDir, how.Enable, strings.Join(have, ", "))
	case !loaded && n.Server.LoadsAtStart(e):
		// The option file's plugin_load_add loads it: a restart does.
		p.loadAtStart = true
	case !loaded:
		p.EnableEngine = n.Server.InstallEngine(e)
	}
	// TokuDB's start check refuses only "enabled" at [always]: madvise
	// and never pass (hatoku_hton.cc; shared/reference/tokudb.md).
	if e.NeedsTHPOff && n.Facts.THPEnabled == "always" {
		if !cfg.FixTHP {
			return n.errorf("transparent huge pages are on (enabled [%s], defrag [%s]) and %s refuses to start with them: %s",
				n.Facts.THPEnabled, n.Facts.THPDefrag, e.Display, thpFix)
		}
		p.FixTHP = true
	}
	return nil
}
