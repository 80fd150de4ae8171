package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestRunSummaryIsTheReportsFigures: what `orch run` prints of a run is
// the figures its report writes, over the same window: the steady rate,
// the window, the window's mean and pNN latency, the replicas' apply rate
// and not the tool's whole-run summary.
func TestRunSummaryIsTheReportsFigures(t *testing.T) {
	for _, cell := range []string{"01-innodb-r1", "04-rocksdb-r2"} {
		dir := filepath.Join(t.TempDir(), cell)
		copyDir(t, filepath.Join("testdata/matrix/cells", cell), dir)
		sum, err := RunSummary(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s:\n%s", cell, sum)
		out := t.TempDir()
		if _, _, err := render.Generate([]string{dir}, out, []string{"csv"}, analyse.Options{}); err != nil {
			t.Fatal(err)
		}
		row := oneCSVRow(t, filepath.Join(out, "results.csv"))
		two := func(col string) string {
			v, err := strconv.ParseFloat(row[col], 64)
			if err != nil {
				t.Fatalf("%s: results.csv %s = %q", cell, col, row[col])
			}
			return analyse.Num(v, 2)
		}
		for _, want := range []string{
			two("steady_metric") + " writes/s steady in the window " + row["window_from_s"] + "-" + row["window_to_s"] + " s (",
			"latency in the window: avg " + two("lat_avg_window_ms") + " ms, p" + row["lat_percentile"] + " " + two("lat_pctl_window_ms") + " ms",
			"replicas applied " + judge.Kilo(mustFloat(t, row["replica_apply_tx_per_s"])) + " tx/s (master " + judge.Kilo(mustFloat(t, row["master_tx_per_s"])) + " tx/s",
		} {
			if !strings.Contains(sum, want) {
				t.Errorf("%s: the summary lacks %q:\n%s", cell, want, sum)
			}
		}
		// The tool's whole-run figures are not the run's figures (unless
		// its window is the whole run and they agree).
		for whole, win := range map[string]string{"final_metric": "steady_metric",
			"whole_run_lat_avg_ms": "lat_avg_window_ms", "whole_run_lat_pctl_ms": "lat_pctl_window_ms"} {
			if v := two(whole); v != two(win) && strings.Contains(sum, " "+v+" ") {
				t.Errorf("%s: the summary prints the whole-run %s %s:\n%s", cell, whole, v, sum)
			}
		}
	}
}

func oneCSVRow(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 2 {
		t.Fatalf("%s: %d records, %v", path, len(recs), err)
	}
	m := map[string]string{}
	for i, h := range recs[0] {
		m[h] = recs[1][i]
	}
	return m
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
