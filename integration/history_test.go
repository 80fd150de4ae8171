package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkHistory: every cell of the matrices under runs was recorded in the
// runs root's history store when it ended (issue 34); importing the folder
// again adds nothing; series differing only in knobs are named as such.
// It runs on what a test's matrices left, offline, in a second or two.
func checkHistory(t *testing.T, l *lab, runs string) {
	t.Helper()
	// Every cell that ran (its manifest), the latest link left out.
	all, err := filepath.Glob(filepath.Join(runs, "*", "cells", "*", "manifest.json"))
	var cells []string
	for _, c := range all {
		if rel, _ := filepath.Rel(runs, c); !strings.HasPrefix(rel, "latest"+string(filepath.Separator)) {
			cells = append(cells, c)
		}
	}
	if err != nil || len(cells) == 0 {
		t.Fatalf("no cells under %s (%v)", runs, err)
	}
	r := l.mustOK(t, "history", "--runs", runs, "--json")
	var series []struct {
		Key    string `json:"key"`
		Points []struct {
			Runs int `json:"runs"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &series); err != nil {
		t.Fatalf("orch history --json: %v\n%s", err, r.stdout)
	}
	recorded := 0
	for _, s := range series {
		for _, p := range s.Points {
			recorded += p.Runs
		}
	}
	if recorded != len(cells) {
		t.Errorf("the history holds %d runs, the matrices ran %d cells", recorded, len(cells))
	}
	if _, err := os.Stat(filepath.Join(runs, "history.sqlite")); err != nil {
		t.Errorf("no store in the runs root: %v", err)
	}
	imp := l.mustOK(t, "history", "import", "--runs", runs, runs)
	if !strings.Contains(imp.stdout, " 0 new, ") {
		t.Errorf("importing what the matrices recorded added runs: %s", imp.stdout)
	}
	table := l.mustOK(t, "history", "--runs", runs)
	if !strings.Contains(table.stdout, "differ only in knobs") {
		t.Errorf("orch history does not name the series that differ only in knobs:\n%s", table.stdout)
	}
}
