package server

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/playbooks"
	"github.com/orch-bench/orch/topology"
)

// FileName is orch's one config file in the server's include directory.
// It sorts after the distributions' own fragments (50-server.cnf).
const FileName = "99-orch.cnf"

// FileNameLate is orch's file where a fragment's name sorts after FileName
// (Debian's and Oracle's MySQL packages: mysql.conf.d/mysqld.cnf), so that
// orch's settings are still read last (see configFileFor).
const FileNameLate = "zz-orch.cnf"

// configFileFor names orch's file in an include directory holding names:
// FileNameLate when it is there already (orch wrote it) or when some
// fragment would be read after FileName, else FileName.
func configFileFor(names []string) string {
	for _, n := range names {
		if n == FileNameLate || strings.HasSuffix(n, ".cnf") && n > FileName {
			return FileNameLate
		}
	}
	return FileName
}

// fileName is orch's file name in t's include directory.
func (t Target) fileName() string {
	if t.ConfigFile != "" {
		return t.ConfigFile
	}
	return FileName
}

// ownerMarker starts every file orch writes; a file without it is not
// orch's and is kept as FileName.orig before orch first replaces it.
const ownerMarker = "# Managed by orch"

// Var is one server option orch writes.
type Var struct {
	Name  string // canonical: lower case, '_'
	Value string
	Bare  bool // written without "= value"
	// Loose is set for options a plugin provides: written as loose-NAME so
	// that the server starts before the plugin is installed.
	Loose   bool
	Section string
	// Origin is profile, profile.vars or knob.
	Origin string
}

// Config is a rendered configuration for one host.
type Config struct {
	Host   string // "master 10.0.0.1"
	Path   string // "" when the include directory is unknown (dry run)
	Text   string
	Engine string
	// Vars are the active server options, in file order.
	Vars []Var
	// FixTHP is Desired.FixTHP.
	FixTHP bool
	// server is what the config was rendered for; Check refuses another.
	server flavor.Server
}

// ProfileData is what a profile template sees.
type ProfileData struct {
	Host       string // inventory name: master, slave1...
	Address    string // the host's address, used as report_host
	Role       string // master or slave
	ServerID   int    // 1 for the first database host, 2 for the next...
	Flavor     string // mariadb, mysql or percona
	Server     string // "MariaDB 10.11.19"
	Version    string // "10.11.19"
	Engine     string // innodb, tokudb, rocksdb
	EngineName string // as default_storage_engine wants it: InnoDB, TokuDB, ROCKSDB
	Datadir    string
	// Vars are the inventory's profile.vars (orch also applies them after
	// rendering, so a profile need not mention them).
	Vars map[string]string
	// GTID and SemiSync are settings for this server and role, names
	// already prefixed with loose- where a plugin provides them.
	GTID     []flavor.Setting
	SemiSync []flavor.Setting
	// PositionTables keep a replica's applied position in a table of the
	// engine (flavor.Server.PositionTables: MariaDB's
	// gtid_pos_auto_engines); empty where the server has no such choice.
	PositionTables []flavor.Setting
}

// Render produces the host's config file from the profile, the inventory's
// profile.vars and the knobs. It needs no connection.
func Render(t Target, d Desired) (*Config, error) {
	h, inv := t.Host, t.Inventory
	if h == nil || inv == nil {
		return nil, fmt.Errorf("render: host and inventory are required")
	}
	engine := strings.ToLower(firstSet(d.Engine, inv.Profile.Engine, topology.DefaultEngine))
	info, ok := flavor.LookupEngine(engine)
	if !ok {
		return nil, fmt.Errorf("%s: unknown engine %q (profiles: %s)", h, engine, strings.Join(flavor.EngineNames(), ", "))
	}
	if _, ok := t.Server.Engine(engine); !ok {
		have := t.Engines
		if have == nil {
			have = tableEngines(t.Server)
		}
		return nil, t.Server.EngineUnavailable(h.String(), engine, have)
	}
	data, err := profileData(t, info)
	if err != nil {
		return nil, err
	}
	dir := firstSet(d.ProfileDir, inv.Profile.Dir)
	if dir != "" && !filepath.IsAbs(dir) && inv.Source != "" {
		dir = filepath.Join(filepath.Dir(inv.Source), dir)
	}
	tmpl, from, err := loadProfiles(dir)
	if err != nil {
		return nil, err
	}
	name := engine + ".cnf"
	var out bytes.Buffer
	if err := tmpl.ExecuteTemplate(&out, name, data); err != nil {
		return nil, fmt.Errorf("%s: profile %s: %w", h, name, err)
	}
	f, err := parseCnf(name, out.String())
	if err != nil {
		return nil, fmt.Errorf("%s: profile %w", h, err)
	}
	if err := f.checkDuplicates(name); err != nil {
		return nil, fmt.Errorf("%s: profile %w", h, err)
	}
	if err := checkProfileSafe(f, h.String(), name, len(inv.DBHosts()) > 1); err != nil {
		return nil, err
	}
	cfg := &Config{Host: h.String(), Engine: engine, FixTHP: d.FixTHP, server: t.Server}
	if t.ConfigDir != "" {
		cfg.Path = path.Join(t.ConfigDir, t.fileName())
	}
	if h.Role == topology.RoleSlave {
		for _, st := range t.Server.ReadOnlySettings() {
			f.set(st.Name, st.Value, "orch: a slave takes writes from replication only")
		}
	}
	var overrides []string
	for _, k := range slices.Sorted(maps.Keys(inv.Profile.Vars)) {
		name, _ := canonName(k)
		v := strings.TrimSpace(inv.Profile.Vars[k])
		if !validName(name) {
			return nil, fmt.Errorf("%s: profile.vars: %q is not a variable name", h, k)
		}
		if err := checkValue(name, v); err != nil {
			return nil, fmt.Errorf("%s: profile.vars %w", h, err)
		}
		f.set(name, v, "inventory profile.vars")
		overrides = append(overrides, "profile.vars "+name+"="+v)
	}
	for _, k := range d.Knobs {
		name, _ := canonName(k.Name)
		if !validName(name) {
			return nil, fmt.Errorf("%s: --knob %q is not a variable name", h, k.Name)
		}
		if err := checkValue(name, k.Value); err != nil {
			return nil, fmt.Errorf("%s: --knob %w", h, err)
		}
		f.set(name, k.Value, "--knob")
		overrides = append(overrides, "--knob "+name+"="+k.Value)
	}
	for _, e := range flavor.EngineSpecs() {
		if !t.Server.LoadsAtStart(e) || f.loads(e.Library) {
			continue
		}
		switch {
		case e.Name == info.Name:
			f.add("plugin_load_add", e.Library, "orch: "+e.Display+"'s plugin, loaded at the server's start on "+t.Server.String())
		case slices.Contains(t.PluginFiles, e.Library):
			// As ps-admin leaves it installed: an engine whose tables
			// another engine's configuration drops must be loaded to drop
			// them, or its own catalogue keeps them (TokuDB then refuses
			// to create them again: error 1050, seen on the TokuDB lab).
			f.add("plugin_load_add", e.Library, "orch: "+e.Display+"'s plugin stays loaded while "+info.Display+" is under test, so that its tables are dropped by it")
		}
	}
	if err := finishLines(cfg, f, t.Server); err != nil {
		return nil, err
	}
	cfg.Text = header(t, data, from, name, overrides) + f.text()
	return cfg, nil
}

// finishLines applies the per-flavour rules to the parsed file: another
// flavour's variable is refused, plugin variables get loose-, and the
// active options are collected.
func finishLines(cfg *Config, f *cnfFile, s flavor.Server) error {
	for i := range f.lines {
		l := &f.lines[i]
		if l.kind != lineOption || !isServerSection(l.section) {
			continue
		}
		if !s.ReadsGroup(l.section) {
			return fmt.Errorf("%s: %s does not read section [%s]: it would ignore %s", cfg.Host, s, l.section, l.name)
		}
		if err := absentErr(cfg.Host, "", l.name, s); err != nil {
			return err
		}
		if s.NeedsLoose(l.name) {
			l.loose = true
		}
		cfg.Vars = append(cfg.Vars, Var{Name: l.name, Value: l.value, Bare: l.bare, Loose: l.loose,
			Section: l.section, Origin: l.origin})
	}
	return nil
}

func profileData(t Target, e flavor.EngineSpec) (ProfileData, error) {
	h, inv := t.Host, t.Inventory
	if !h.IsDB() {
		return ProfileData{}, fmt.Errorf("%s: role %s runs no database server", h, h.Role)
	}
	id := slices.Index(inv.DBHosts(), h) + 1
	if id == 0 {
		return ProfileData{}, fmt.Errorf("%s: not a database host of inventory %s", h, inv.Source)
	}
	d := ProfileData{
		Host: h.Name, Address: h.Address, Role: string(h.Role), ServerID: id,
		Flavor: string(t.Server.Flavor), Server: t.Server.String(), Version: t.Server.Version.String(),
		Engine: e.Name, EngineName: e.Display, Datadir: firstSet(t.Datadir, h.MySQL.Datadir),
		Vars: inv.Profile.Vars, GTID: t.Server.GTIDSettings(), PositionTables: t.Server.PositionTables(e.Name),
	}
	for _, s := range semiSyncSettings(t.Server, h.Role, inv.Replication.SemiSync) {
		s.Name = t.Server.OptionLine(s.Name)
		d.SemiSync = append(d.SemiSync, s)
	}
	return d, nil
}

// semiSyncSettings are the semi-sync settings a role keeps in its config,
// from the inventory (zero fields take the documented defaults): the
// master's side on the master, the slave's on slaves.
func semiSyncSettings(s flavor.Server, role topology.Role, ss topology.SemiSync) []flavor.Setting {
	n := s.SemiSync()
	on := "OFF"
	if ss.Enabled {
		on = "ON"
	}
	if role != topology.RoleMaster {
		return []flavor.Setting{{Name: n.SlaveEnabled, Value: on}}
	}
	if !ss.Enabled {
		return []flavor.Setting{{Name: n.MasterEnabled, Value: on}}
	}
	timeout := ss.TimeoutMs
	if timeout == 0 {
		timeout = topology.DefaultSemiSyncTimeoutMs
	}
	out := []flavor.Setting{
		{Name: n.MasterEnabled, Value: on},
		{Name: n.MasterTimeout, Value: strconv.FormatUint(timeout, 10)},
		{Name: n.MasterWaitPoint, Value: strings.ToUpper(firstSet(ss.WaitPoint, topology.DefaultWaitPoint))},
	}
	if n.MasterWaitCount != "" {
		count := ss.WaitForSlaveCount
		if count == 0 {
			count = topology.DefaultWaitForSlaveCount
		}
		out = append(out, flavor.Setting{Name: n.MasterWaitCount, Value: strconv.Itoa(count)})
	}
	return out
}

// loadProfiles parses the embedded profiles, then the files of dir (when
// set), which replace embedded ones of the same name. from maps each
// template to where it was read.
func loadProfiles(dir string) (*template.Template, map[string]string, error) {
	t := template.New("").Option("missingkey=error")
	from := map[string]string{}
	embedded, err := fs.Glob(playbooks.Profiles, playbooks.ProfileDir+"/*.cnf")
	if err != nil {
		return nil, nil, err
	}
	for _, p := range embedded {
		b, err := fs.ReadFile(playbooks.Profiles, p)
		if err != nil {
			return nil, nil, err
		}
		name := path.Base(p)
		if _, err := t.New(name).Parse(string(b)); err != nil {
			return nil, nil, fmt.Errorf("embedded profile %s: %w", name, err)
		}
		from[name] = "embedded"
	}
	if dir == "" {
		return t, from, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.cnf"))
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("profile dir: %w", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("profile dir: %w", err)
		}
		name := filepath.Base(p)
		if _, err := t.New(name).Parse(string(b)); err != nil {
			return nil, nil, fmt.Errorf("profile %s: %w", p, err)
		}
		from[name] = dir
	}
	return t, from, nil
}

// header says who owns the file and what produced it. It holds nothing
// that changes between identical runs, so an unchanged config is an
// unchanged file.
func header(t Target, d ProfileData, from map[string]string, profile string, overrides []string) string {
	var b strings.Builder
	b.WriteString(ownerMarker + ": written by `orch up`, removed by `orch down`. Do not edit:\n")
	b.WriteString("# orch replaces this file (keeping the previous one as " + t.fileName() + ".bak).\n")
	fmt.Fprintf(&b, "# profile: %s (%s)", profile, from[profile])
	var custom []string
	for _, n := range slices.Sorted(maps.Keys(from)) {
		if from[n] != "embedded" && n != profile {
			custom = append(custom, n)
		}
	}
	if len(custom) > 0 {
		fmt.Fprintf(&b, "; from the profile dir: %s", strings.Join(custom, ", "))
	}
	b.WriteString("\n")
	if len(overrides) > 0 {
		fmt.Fprintf(&b, "# overrides: %s\n", strings.Join(overrides, ", "))
	}
	server := d.Server
	if t.Assumed {
		server += " (assumed from the flavour hint: not connected)"
	}
	fmt.Fprintf(&b, "# host: %s %s, role %s, server_id %d, %s\n\n", d.Host, d.Address, d.Role, d.ServerID, server)
	return b.String()
}

func firstSet(vs ...string) string {
	for _, v := range vs {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// fileName is the base name of the file cfg goes to (FileName when the
// path is not known: a dry run).
func (cfg *Config) fileName() string {
	if cfg.Path == "" {
		return FileName
	}
	return path.Base(cfg.Path)
}
