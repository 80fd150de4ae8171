package main

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path prefix of orch's own packages.
const module = "github.com/orch-bench/orch/"

// cmdImports is every package of orch cmd/orch may import, and why. The
// command parses flags, builds a use case's options, calls it and prints:
// it reaches the orchestrator through the use-case entry points, plus a
// short list of value types it must name to parse flags and print. A new
// import must be added here with its reason (and is better a use case).
var cmdImports = map[string]string{
	// Use-case entry points.
	"orchestrator/matrix":   "orch matrix: matrix.Run",
	"orchestrator/runner":   "orch run, collect and exec: runner.Bench, runner.CollectDir, runner.Exec; up, down, status, check and inventory: runner.NewUp, runner.Down, runner.Status, runner.Check, runner.ValidateSet; how every command loads and reaches its clusters: runner.Access",
	"orchestrator/report":   "orch report: report.Answer",
	"orchestrator/dbinsert": "orch dbinsert: dbinsert.Run (and dbinsert.Deps for its help)",
	"orchestrator/history":  "orch history and compare: history.Show, history.ImportDirs, history.CompareCampaigns (and history.Fields, Filter, ParseDate for their flags)",
	"lab":                   "orch lab",
	// Value types and plumbing every command shares.
	"topology":             "the inventory the flag layer loads",
	"orchestrator":         "InputError (exit 2) and ForEach over clusters",
	"orchestrator/stacks":  "--stacks parsed into a stacks.Mode",
	"orchestrator/bench":   "workload names for help; orch parse: bench.ParseFiles",
	"orchestrator/rundir":  "run directories named on the command line, and their status",
	"orchestrator/stats":   "the stopping rule's words and bounds for --until and --min-repeat (stats.GoalSignificant, stats.MinRounds)",
	"orchestrator/suggest": "did you mean: the one edit-distance helper for flags, commands and keys",
}

// useCaseFiles are the commands that are only a use case behind flags:
// each imports its use case and nothing of the orchestrator besides the
// value types.
var useCaseFiles = map[string][]string{
	"matrix.go":     {"orchestrator/matrix", "orchestrator"},
	"benchflags.go": {"orchestrator/bench", "orchestrator/stacks"},
	"matrix_aa.go":  {"orchestrator/matrix"},
	"precision.go":  {"orchestrator/matrix", "orchestrator/stats"},
	"run.go":        {"orchestrator/runner", "orchestrator/rundir"},
	"exec.go":       {"orchestrator/runner"},
	"parse.go":      {"orchestrator/bench"},
	"report.go":     {"orchestrator/report"},
	"up.go":         {"orchestrator/runner", "topology"},
	"check.go":      {"orchestrator/runner"},
	"dbinsert.go":   {"orchestrator/dbinsert"},
	"history.go":    {"orchestrator/history"},
	"compare.go":    {"orchestrator/history"},
	"inventory.go":  {"orchestrator/runner", "topology"},
}

func TestCmdImportsOnlyUseCases(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			rel, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			used[rel] = true
			if _, listed := cmdImports[rel]; !listed {
				t.Errorf("%s imports %s: cmd/orch reaches the orchestrator through a use case (or list it in cmdImports with why)", f, rel)
			}
			if only, ok := useCaseFiles[f]; ok && !slices.Contains(only, rel) {
				t.Errorf("%s imports %s: a use-case command imports only %v", f, rel, only)
			}
		}
	}
	for rel := range cmdImports {
		if !used[rel] {
			t.Errorf("cmdImports lists %s, which cmd/orch no longer imports: drop it", rel)
		}
	}
}
