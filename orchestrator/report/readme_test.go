package report

import (
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

const readmePath = "../../docs/reports.md"

// TestREADMEColumns keeps the README's column tables equal to the column
// definitions the CSV writers use; -update (make readme) rewrites them.
func TestREADMEColumns(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := render.ReplaceReadmeBlock(string(b), render.ColumnsMarkdown())
	if !ok {
		t.Fatalf("%s: no %q ... %q block", readmePath, render.ReadmeBegin, render.ReadmeEnd)
	}
	if got == string(b) {
		return
	}
	if *update {
		if err := os.WriteFile(readmePath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the CSV column tables differ from the definitions in tidy.go/tidy_hosts.go; run make readme", readmePath)
}

// No column name is used twice within a file, and none carries a unit
// spelling the README does not define (a rate is _per_s, a fraction
// 0..1 is _frac, a percent _pct).
func TestColumnNames(t *testing.T) {
	for file, names := range map[string][]string{load.FileCSV: render.ResultsHeader(), load.FileHostsCSV: render.Header(render.HostColumns),
		load.FileConfigurationsCSV: append(render.Header(render.TableColumns), render.Header(render.ConfColumns)...)} {
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] {
				t.Errorf("%s: %s twice", file, n)
			}
			seen[n] = true
			for _, bad := range []string{"_ps", "_share", "_busy", "_cv", "_pct_"} {
				if strings.HasSuffix(n, bad) || (bad == "_pct_" && strings.Contains(n, bad)) {
					t.Errorf("%s: %s: its unit is not spelt _per_s, _frac or _pct", file, n)
				}
			}
		}
	}
}
