package server

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// The expectations here come from the manuals, not from preload.go:
//   - MariaDB's systemd page: under systemd mariadbd is started directly,
//     not by mysqld_safe, so [mysqld_safe] (malloc-lib) is not read; unit
//     settings go in /etc/systemd/system/mariadb.service.d/XXXX.conf, in
//     [Service].
//   - systemd.exec(5): Environment= takes VAR=VALUE assignments, which may
//     be double-quoted; systemctl(1): daemon-reload after changing unit
//     files, before the next start reads them.
//   - TokuDB's install notes (Percona, MariaDB): jemalloc is preloaded with
//     LD_PRELOAD (malloc-lib is mysqld_safe's way of doing just that).

const jemalloc = "/lib/x86_64-linux-gnu/libjemalloc.so.2"

func tokudbNode(t *testing.T, unit, env, dropIn string) *Node {
	t.Helper()
	n := &Node{Host: &topology.Host{Name: "master", Address: "10.0.0.1"},
		Server: mustServer(t, flavor.MariaDB, flavor.V(10, 5, 23))}
	n.Facts.Service = Service{Unit: unit}
	n.Facts.Preloads = map[string]string{"libjemalloc.so": jemalloc}
	n.Facts.UnitEnv, n.Facts.DropIn = env, dropIn
	return n
}

func tokudbPlan(t *testing.T, n *Node) *Plan {
	t.Helper()
	e, ok := n.Server.Engine("tokudb")
	if !ok {
		t.Fatal("MariaDB 10.5 without TokuDB")
	}
	return &Plan{engine: e.EngineSpec}
}

func TestPreloadDropInOnSystemd(t *testing.T) {
	n := tokudbNode(t, "mariadb", "", "")
	p := tokudbPlan(t, n)
	if err := n.planPreload(&Config{}, p); err != nil {
		t.Fatal(err)
	}
	if !p.NeedsRestart || !p.Changed() {
		t.Errorf("a new drop-in needs the restart that reads it: %+v", p)
	}
	lines := strings.Split(strings.TrimSpace(p.DropIn), "\n")
	if !strings.HasPrefix(lines[0], "#") || lines[len(lines)-2] != "[Service]" ||
		lines[len(lines)-1] != `Environment="LD_PRELOAD=`+jemalloc+`"` {
		t.Errorf("drop-in:\n%s", p.DropIn)
	}
	if got := dropInPath("mariadb.service"); !strings.HasPrefix(got, "/etc/systemd/system/mariadb.service.d/") || !strings.HasSuffix(got, ".conf") {
		t.Errorf("drop-in path %s", got)
	}

	// Written, then systemd reloaded, in that order; undone by removing it.
	ex := &scripted{rules: [][2]string{{"mkdir -p '/etc/systemd/system/mariadb.service.d'", ""}, {"mkdir -p /etc/systemd/system/mariadb.service.d", ""},
		{"systemctl daemon-reload", ""}}}
	n.Exec = ex
	q := n.sequence(step.HostEvents{Stream: &step.Stream{}, Host: "master"})
	if err := q.Do(context.Background(), n.dropInStep(p.DropIn)); err != nil {
		t.Fatal(err)
	}
	if len(ex.ran) != 2 || !strings.HasPrefix(ex.ran[0], "mkdir -p ") || ex.ran[1] != "systemctl daemon-reload" {
		t.Errorf("ran %q", ex.ran)
	}
	q.Undo(context.Background())
	if last := ex.ran[len(ex.ran)-1]; !strings.HasPrefix(last, "rm -f /etc/systemd/system/mariadb.service.d/") || !strings.HasSuffix(last, "&& systemctl daemon-reload") {
		t.Errorf("undo ran %q", ex.ran)
	}

	// The same drop-in already there: nothing to do.
	n = tokudbNode(t, "mariadb", "LD_PRELOAD="+jemalloc, p.DropIn)
	p2 := tokudbPlan(t, n)
	if err := n.planPreload(&Config{}, p2); err != nil || p2.DropIn != "" || p2.NeedsRestart {
		t.Errorf("drop-in in place: %+v %v", p2, err)
	}
}

func TestPreloadLeftToItsOwner(t *testing.T) {
	// The unit's owner preloads jemalloc: orch adds nothing.
	n := tokudbNode(t, "mariadb", "LD_PRELOAD="+jemalloc+" TZ=UTC", "")
	p := tokudbPlan(t, n)
	if err := n.planPreload(&Config{}, p); err != nil || p.DropIn != "" {
		t.Errorf("owner's preload: %q %v", p.DropIn, err)
	}
	// mysqld_safe starts it (an init script): malloc-lib's job.
	n = tokudbNode(t, "", "", "")
	if err := n.planPreload(&Config{}, tokudbPlan(t, n)); err != nil {
		t.Error(err)
	}
	// InnoDB under test with TokuDB kept loaded at start: still preloaded.
	n = tokudbNode(t, "mariadb", "", "")
	inno, _ := n.Server.Engine("innodb")
	p = &Plan{engine: inno.EngineSpec}
	if err := n.planPreload(&Config{Vars: []Var{{Name: "plugin_load_add", Value: "ha_tokudb.so"}}}, p); err != nil || p.DropIn == "" {
		t.Errorf("TokuDB kept loaded: %q %v", p.DropIn, err)
	}
	p = &Plan{engine: inno.EngineSpec}
	if err := n.planPreload(&Config{}, p); err != nil || p.DropIn != "" {
		t.Errorf("InnoDB alone: %q %v", p.DropIn, err)
	}
	// No jemalloc on the host: refused before anything is written.
	n = tokudbNode(t, "mariadb", "", "")
	n.Facts.Preloads = nil
	err := n.planPreload(&Config{}, tokudbPlan(t, n))
	if err == nil || !strings.Contains(err.Error(), "master 10.0.0.1: TokuDB needs libjemalloc.so preloaded") || !strings.Contains(err.Error(), "libjemalloc2") {
		t.Errorf("no jemalloc: %v", err)
	}
	if _, err := dropInText("TokuDB", "/opt/my lib/libjemalloc.so.2"); err == nil {
		t.Error("a path systemd would split was accepted")
	}
}

// TestPreloadProbeOnThisHost runs the probe's preload part with bash on this
// machine, whose dynamic linker cache has jemalloc (scripts/lab-deps.sh
// installs libjemalloc2), and reads its answer as the probe does.
func TestPreloadProbeOnThisHost(t *testing.T) {
	out, err := exec.Command("bash", "-c", preloadProbe()).Output()
	if err != nil {
		t.Fatal(err)
	}
	kv := map[string][]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			kv[k] = append(kv[k], v)
		}
	}
	var f Facts
	f.preloadFacts(kv)
	lib := f.Preloads["libjemalloc.so"]
	if !strings.Contains(lib, "/libjemalloc.so") {
		t.Fatalf("jemalloc not found by the probe (ldconfig -p): %q", out)
	}
	if _, err := dropInText("TokuDB", lib); err != nil {
		t.Error(err)
	}
}
