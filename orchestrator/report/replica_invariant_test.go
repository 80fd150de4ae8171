package report

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/internal/recheck"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestAppliedIsOneNumber: every section that prints a configuration's
// applied rate or ratio prints the same one (the slowest slave's, over the
// window, up to the load's end), read back from the written report.md and
// configurations.csv: the Replicas table, the answer's Replicas line, the
// "Where the time went" Slaves sentence and the CSV. Before, the demo's
// head said 0.732x, Where the time went 0.744x and the per-transaction
// table 0.735x/0.752x for the same runs.
func TestAppliedIsOneNumber(t *testing.T) {
	for _, dir := range []string{filepath.Join("testdata", "lab2026"), demoDir, matrixDir} {
		out := t.TempDir()
		if _, _, err := render.Generate([]string{dir}, out, []string{"md", "csv"}, analyse.Options{AllowMixed: true}); err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(filepath.Join(out, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		text := string(md)
		// Replicas table: label -> applied tx/s and ratio cells.
		rate, ratio := map[string]string{}, map[string]string{}
		inTable := false
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "| configuration | master tx/s | applied tx/s | applied vs baseline |") {
				inTable = true
				continue
			}
			if inTable && !strings.HasPrefix(line, "|") {
				inTable = false
			}
			if cells := strings.Split(line, " | "); inTable && len(cells) > 4 && !strings.HasPrefix(line, "| ---") {
				label := strings.TrimPrefix(cells[0], "| ")
				rate[label], ratio[label] = cells[2], cells[3]
			}
		}
		if len(rate) < 2 {
			t.Fatalf("%s: no Replicas table rows in report.md", dir)
		}
		base := ""
		for l, r := range ratio {
			if r == "baseline" {
				base = l
			}
		}
		// The answer's line: "applied vs innodb: rocksdb 0.899x".
		m := regexp.MustCompile(`applied vs (\S+): (.*)`).FindStringSubmatch(text)
		if m == nil || m[1] != base {
			t.Fatalf("%s: answer's applied line %q, baseline %q", dir, m, base)
		}
		for _, part := range strings.Split(m[2], ", ") {
			f := strings.Fields(part)
			if len(f) < 2 || ratio[f[0]] != f[1] {
				t.Errorf("%s: answer says %q, Replicas table %q", dir, part, ratio[f[0]])
			}
		}
		// Where the time went: "Slaves: the slowest applied 3386 vs 3766".
		slaves := regexp.MustCompile(`(?m)^- (\S+): .*Slaves: the slowest applied (\d+) vs (\d+) tx/s`).FindAllStringSubmatch(text, -1)
		if len(slaves) == 0 || strings.Count(text, "Slaves: ") != len(slaves) {
			t.Errorf("%s: %d Slaves sentences, %d in the applied rates' words", dir, strings.Count(text, "Slaves: "), len(slaves))
		}
		for _, s := range slaves {
			if s[2] != rate[s[1]] || s[3] != rate[base] {
				t.Errorf("%s: Where the time went says %s applied %s vs %s, Replicas table %s vs %s", dir, s[1], s[2], s[3], rate[s[1]], rate[base])
			}
		}
		// configurations.csv: the same rate and ratio, more digits.
		f, err := os.Open(filepath.Join(out, "configurations.csv"))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range rows[0] {
			col[h] = i
		}
		for _, row := range rows[1:] {
			label := row[col["label"]]
			v, _ := strconv.ParseFloat(row[col["label_replica_apply_tx_per_s"]], 64)
			if got := analyse.Num(v, 0); got != rate[label] {
				t.Errorf("%s %s: configurations.csv %s, Replicas table %s", dir, label, got, rate[label])
			}
			r, _ := strconv.ParseFloat(row[col["replica_apply_ratio_vs_baseline"]], 64)
			if label != base && analyse.Ratio(r) != ratio[label] && !(math.IsNaN(r) && ratio[label] == "—") {
				t.Errorf("%s %s: configurations.csv ratio %s, Replicas table %s", dir, label, analyse.Ratio(r), ratio[label])
			}
		}
	}
}

// TestRecheckCurrentRuns: internal/recheck recomputes testdata/lab2026, a
// matrix with load_start/load_end (the master's counts end with the load,
// the slaves' do not), and finds every figure within its tolerance.
func TestRecheckCurrentRuns(t *testing.T) {
	dir, out := filepath.Join("testdata", "lab2026"), t.TempDir()
	if _, _, err := render.Generate([]string{dir}, out, []string{"md", "csv"}, analyse.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := recheck.Matrix(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Compared < 100 {
		t.Errorf("only %d figures compared", res.Compared)
	}
	for _, p := range res.Problems {
		t.Error(p)
	}
	// Every figure of the head and verdict lines (report.md) is one the
	// recheck recomputes.
	for _, u := range res.Uncovered {
		t.Errorf("not recomputed: %s", u)
	}
}
