package rooms

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// rooms are the report's rooms, bottom up: each may import only those
// before it. The façade, orchestrator/report, stands above them all.
var rooms = []string{"load", "analyse", "judge", "render"}

// hostPackages reach a host: they connect to servers, run programs or
// drive a cluster. The report is an offline program over files, so no
// room may depend on one, not even through another package.
var hostPackages = []string{
	"net", "os/exec", "golang.org/x/crypto/ssh", "github.com/go-sql-driver/mysql",
	orchPath + "orchestrator/executor", orchPath + "orchestrator/mysqlconn",
	orchPath + "orchestrator/server", orchPath + "orchestrator/replication",
	orchPath + "orchestrator/cluster", orchPath + "orchestrator/monitor",
	orchPath + "orchestrator/runner", orchPath + "orchestrator/account",
	orchPath + "orchestrator/preflight", orchPath + "orchestrator/up",
	orchPath + "orchestrator/matrix", orchPath + "orchestrator/dbinsert",
	orchPath + "orchestrator/step", orchPath + "orchestrator/labenv",
	orchPath + "orchestrator/dataset", orchPath + "lab",
}

const orchPath = "github.com/orch-bench/orch/"

// roomDeps is `go list -deps` of each room: its import path, its direct
// imports and every package it depends on.
func roomDeps(t *testing.T) map[string][2][]string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	args := []string{"list", "-e", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}|{{join .Deps \" \"}}"}
	for _, r := range rooms {
		args = append(args, "../"+r)
	}
	out, err := exec.Command(goBin, args...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := map[string][2][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 3 {
			t.Fatalf("go list printed %q", line)
		}
		deps[strings.TrimPrefix(f[0], orchPath+"orchestrator/report/")] = [2][]string{strings.Fields(f[1]), strings.Fields(f[2])}
	}
	if len(deps) != len(rooms) {
		t.Fatalf("go list named %d rooms, want %d: %v", len(deps), len(rooms), deps)
	}
	return deps
}

func TestRoomsReachNoHost(t *testing.T) {
	for room, d := range roomDeps(t) {
		for _, p := range d[1] {
			if slices.Contains(hostPackages, p) {
				t.Errorf("report/%s depends on %s, which reaches a host: the report reads files only", room, p)
			}
		}
	}
}

func TestRoomsImportDown(t *testing.T) {
	for room, d := range roomDeps(t) {
		at := slices.Index(rooms, room)
		for _, p := range d[1] {
			if p == orchPath+"orchestrator/report" {
				t.Errorf("report/%s depends on the façade orchestrator/report", room)
			}
			other, ok := strings.CutPrefix(p, orchPath+"orchestrator/report/")
			if !ok || other == room {
				continue
			}
			if i := slices.Index(rooms, other); i < 0 || i >= at {
				t.Errorf("report/%s depends on report/%s: the rooms are %s, each importing only those before it", room, other, strings.Join(rooms, " <- "))
			}
		}
	}
}
