package server

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/topology"
)

// CheckDesired checks offline, before any host is contacted, everything
// about d that needs no server: the engine is a known profile, the profile
// directory exists and its templates parse, the engine's profile renders
// for every database host (for the flavour the inventory names, else for
// every flavour that has the engine) and reads as an option file, and the
// knobs and profile.vars are values an option file keeps as written.
// Whether the server has the engine, and whether it knows each variable,
// only the server can say: Check does that after connecting, still before
// anything restarts. flag names the option the engine came from (--engine,
// --engines) for the message. An engine the named flavour cannot have is
// refused here, from the flavour table.
func CheckDesired(inv *topology.Inventory, d Desired, flag string) error {
	return CheckDesiredAs(inv, d, flag, "")
}

// CheckDesiredAs is CheckDesired with the flavour hint of a dry run
// (up --dry-run --flavor), which replaces every host's mysql.flavor.
func CheckDesiredAs(inv *topology.Inventory, d Desired, flag, hint string) error {
	engine := strings.ToLower(firstSet(d.Engine, inv.Profile.Engine, topology.DefaultEngine))
	from := flag + " " + engine
	if d.Engine == "" {
		from = inv.Source + ": profile.engine " + engine
	}
	info, ok := flavor.LookupEngine(engine)
	if !ok {
		return fmt.Errorf("%s: unknown engine profile (profiles: %s)", from, strings.Join(flavor.EngineNames(), ", "))
	}
	dir, dirFrom := d.ProfileDir, "--profile-dir"
	if dir == "" {
		dir, dirFrom = inv.Profile.Dir, inv.Source+": profile.dir"
	}
	if dir != "" {
		if err := checkProfileDir(dir); err != nil {
			return fmt.Errorf("%s: %w", dirFrom, err)
		}
	}
	tmpl, profileFiles, err := loadProfiles(dir)
	if err != nil {
		return fmt.Errorf("%s %s: %w", dirFrom, dir, err)
	}
	name := engine + ".cnf"
	if tmpl.Lookup(name) == nil {
		return fmt.Errorf("%s: no profile %s", from, name)
	}
	for _, k := range d.Knobs {
		if k.Value == "" {
			return fmt.Errorf("--knob %s=: empty value", k.Name)
		}
		if err := checkValue(k.Name, k.Value); err != nil {
			return fmt.Errorf("--knob %w", err)
		}
	}
	file := name
	if from, ok := profileFiles[name]; ok && from != "embedded" {
		file = filepath.Join(from, name)
	}
	for _, h := range inv.DBHosts() {
		// Without a flavour the server decides it; the profile is still
		// rendered and read now for every flavour that has the engine, and
		// refused when it fails on all of them (a broken file is broken on
		// any server), so that no host is contacted for a bad profile.
		hints, anyFlavor := []string{firstSet(hint, h.MySQL.Flavor)}, false
		if hints[0] == "" {
			hints, anyFlavor = nil, true
			for _, f := range flavor.Flavors() {
				hints = append(hints, string(f))
			}
		}
		var first error
		rendered := 0
		for _, fl := range hints {
			t, err := OfflineTarget(h, inv, fl)
			if err != nil {
				return err
			}
			if err := engineOnFlavor(t, engine); err != nil {
				if anyFlavor {
					continue
				}
				return fmt.Errorf("%s: %w", from, err)
			}
			if !anyFlavor {
				if err := replPasswordOnFlavor(inv, t); err != nil {
					return err
				}
			}
			err = checkProfileOffline(t, tmpl, name, file, info, d)
			if err == nil {
				rendered++
			} else if first == nil {
				first = err
			}
			if err != nil && !anyFlavor {
				return err
			}
		}
		if anyFlavor && rendered == 0 && first != nil {
			return first
		}
	}
	return nil
}

// checkProfileOffline renders profile name (read from file) for t and
// reads it as orch will: option-file syntax, a server option set twice, a
// setting that would open the cluster, a variable t's declared server does
// not have.
func checkProfileOffline(t Target, tmpl *template.Template, name, file string, info flavor.EngineSpec, d Desired) error {
	h, inv := t.Host, t.Inventory
	data, err := profileData(t, info)
	if err != nil {
		return err
	}
	var out strings.Builder
	if err := tmpl.ExecuteTemplate(&out, name, data); err != nil {
		return fmt.Errorf("%s: profile %s: %w", h, file, err)
	}
	f, err := parseCnf(file, out.String())
	if err != nil {
		return fmt.Errorf("%s: profile %w", h, err)
	}
	if err := f.checkDuplicates(file); err != nil {
		return fmt.Errorf("%s: profile %w", h, err)
	}
	if err := checkProfileSafe(f, h.String(), name, len(inv.DBHosts()) > 1); err != nil {
		return err
	}
	return checkNamesOffline(t, f, name, d.Knobs)
}

// checkNamesOffline refuses, before any host, a variable name of the
// profile, profile.vars or the knobs that t's declared server does not have
// (see checkNameOffline).
func checkNamesOffline(t Target, f *cnfFile, profile string, knobs []KV) error {
	for _, l := range f.lines {
		if l.kind == lineOption && isServerSection(l.section) {
			if err := checkNameOffline(t, "profile "+profile, l.name); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Inventory.Profile.Vars)) {
		if err := checkNameOffline(t, t.Inventory.Source+": profile.vars", k); err != nil {
			return err
		}
	}
	for _, k := range knobs {
		if err := checkNameOffline(t, "--knob", k.Name); err != nil {
			return err
		}
	}
	return nil
}

// replPasswordOnFlavor refuses, before any host, a replication password
// the inventory names that a slave's flavour cannot take. One orch
// generates fits every server; one that cannot be read now (a dry run's
// missing file) is left to the run, which says so.
func replPasswordOnFlavor(inv *topology.Inventory, t Target) error {
	r := inv.Replication
	if r.PasswordManaged || t.Host.Role != topology.RoleSlave {
		return nil
	}
	pw, err := r.Password.Resolve()
	if err != nil {
		return nil
	}
	if err := t.Server.CheckReplPassword(pw); err != nil {
		return fmt.Errorf("%s: replication.password (%s): %w", t.Host, r.Password, err)
	}
	return nil
}

// checkProfileDir says in one line why dir cannot hold profiles: a
// missing directory would otherwise pass as one without any file.
func checkProfileDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s: not a directory", dir)
	}
	return nil
}

// engineOnFlavor refuses, before any host is contacted, an engine the
// flavour the inventory names cannot have (TokuDB on MariaDB 10.6+), from
// the flavour table. Without a version the table's assumed one is used,
// and the message says how to name another.
func engineOnFlavor(t Target, engine string) error {
	if _, ok := t.Server.Engine(engine); ok {
		return nil
	}
	err := t.Server.EngineUnavailable(t.Host.String(), engine, tableEngines(t.Server))
	if t.Assumed {
		err = fmt.Errorf("%w (the flavour names no version, so %s is assumed: write %s:VERSION for another)",
			err, t.Server.Version, t.Server.Flavor)
	}
	return err
}
