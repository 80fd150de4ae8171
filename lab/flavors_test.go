package lab

import (
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// Every row of the flavour table says everything Up, Down, status, fault
// and the inventories read, and says it consistently: a flavour added
// without one of them fails here, naming the field.
func TestLabFlavorsComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range labFlavors {
		missing := func(field string, empty bool) {
			if empty {
				t.Errorf("flavour %q: no %s", f.name, field)
			}
		}
		missing("name", f.name == "")
		missing("display", f.display == "")
		missing("server", f.server == "")
		missing("version", f.version == "")
		missing("engines", len(f.engines) == 0)
		missing("client", f.client == "")
		missing("process", f.process == "")
		missing("serverName", f.serverName == "")
		missing("invFlavor", f.invFlavor == "")
		for _, n := range append([]string{f.name}, f.aliases...) {
			if seen[n] {
				t.Errorf("flavour name %q used twice", n)
			}
			seen[n] = true
		}
		if f.name != labFlavors[0].name && f.state != f.name {
			t.Errorf("flavour %q records itself as %q in the state file", f.name, f.state)
		}
		switch f.source {
		case fromDebianPackage:
			if f.dbTree != nil || f.build != nil || f.systemd {
				t.Errorf("flavour %q: a Debian package of this machine needs no tree or build", f.name)
			}
		case fromSuiteTree:
			if f.dbTree == nil || !f.systemd {
				t.Errorf("flavour %q: a suite tree is booted by a systemd lab (dbTree and systemd)", f.name)
			}
		case fromSourceBuild:
			if f.build == nil || f.systemd {
				t.Errorf("flavour %q: a source build needs its recipe and runs in the namespace lab", f.name)
			}
		}
		// The inventory sizes every engine's cache, and only engines the
		// engine table knows.
		for _, e := range f.engines {
			spec, ok := flavor.LookupEngine(e)
			if !ok {
				t.Errorf("flavour %q: engine %q is not in the engine table", f.name, e)
				continue
			}
			if _, ok := f.memory[spec.Settings.CacheVar]; !ok {
				t.Errorf("flavour %q: the inventory does not size %s's cache (%s)", f.name, e, spec.Settings.CacheVar)
			}
		}
		for v := range f.memory {
			if !slices.ContainsFunc(f.engines, func(e string) bool {
				spec, _ := flavor.LookupEngine(e)
				return spec.Settings.CacheVar == v
			}) {
				t.Errorf("flavour %q: sizes %s, no engine of its own", f.name, v)
			}
		}
	}
	if labFlavors[0].state != "" {
		t.Errorf("the default flavour must record \"\" (state files written before the table)")
	}
}

// A recipe's cache key covers what changes the build, and every recipe
// names a checked source.
func TestServerBuildRecipe(t *testing.T) {
	b := tokudbServer
	if len(b.origSHA256) != 64 || b.probe == "" || len(b.keep) == 0 || !strings.HasPrefix(b.name, "mariadb-"+b.version) {
		t.Fatalf("recipe %+v", b)
	}
	key := b.recipeKey()
	b.cmakeArgs = append(slices.Clone(b.cmakeArgs), "-DPLUGIN_ROCKSDB=DYNAMIC")
	if b.recipeKey() == key {
		t.Errorf("a changed cmake option keeps the cache key %s", key)
	}
	if !slices.Contains(tokudbServer.cmakeArgs, "-DPLUGIN_TOKUDB=DYNAMIC") {
		t.Errorf("10.5's cmake leaves TokuDB DISABLED unless PLUGIN_TOKUDB=DYNAMIC")
	}
}
