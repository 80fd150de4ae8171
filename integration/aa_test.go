package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestMatrixAA: `orch matrix --aa` runs one configuration as two arms,
// interleaved (each round holds both, a b b a a b), shows a running ETA
// from the measured cells, and its report states the noise floor of the
// cluster with its Fieller interval, in report.md, on stdout and in
// noise-floor.json; a later report held against it names it. Sweeps are
// refused before any host is contacted. It runs under issue 20's stopping
// rule (--precision 10% --max-repeat 6), which must end an A/A equivalent
// or not resolved, never different.
//
// The same session is issue 34's history over time (checkHistory): the
// A/A and two later matrices of the same workload are three campaigns, the
// third with a knob of large effect (one client thread, so that every
// commit waits for its own fsync: innodb_flush_log_at_trx_commit 2, 2,
// then 1, a regression), recorded in the runs root's store as they end and
// imported into a MariaDB store; both must flag the third campaign.
func TestMatrixAA(t *testing.T) {
	l := needLab(t)
	runs := t.TempDir()

	bad := l.orch(t, "matrix", "-i", l.inventory, "--aa", "--engines=innodb,rocksdb", "--runs", runs)
	if bad.code != 2 || !strings.Contains(bad.stderr, "--aa runs one configuration twice: --engines names 2") || strings.Count(strings.TrimSpace(bad.stderr), "\n") != 0 {
		t.Errorf("--aa with two engines: exit %d, stderr %q; want one line, exit 2", bad.code, bad.stderr)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Errorf("a refused --aa left %d entries in the runs directory", len(entries))
	}

	defer l.orch(t, "down", "-i", l.inventory)
	// Under the stopping rule: 3 to 6 rounds (judged by round: from 5 on,
	// unless it ends at 6), and the A/A ends
	// "equivalent" or "not resolved", never "different".
	workload := []string{"--workload", "pure-random-writes", "--tables", "1", "--threads", "1", "--time", "3", "--table-size", "500", "--warmup", "1"}
	r := l.mustOK(t, append([]string{"matrix", "-i", l.inventory, "--aa", "--engines=innodb", "--knobs", flushLog + "=2",
		"--precision", "10%", "--max-repeat", "6", "--runs", runs}, workload...)...)
	dir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}

	// Interleaved: every round holds both arms, the order reversed every
	// other round.
	m := loadMatrix(t, dir)
	rounds := m.Until.Judged
	if rounds < 3 || rounds > 6 {
		t.Fatalf("the A/A stopped after %d rounds, want 3 to 6", rounds)
	}
	var order, want []string
	for _, c := range m.Cells {
		if c.State == "skipped" {
			continue
		}
		if c.State != "ok" {
			t.Errorf("cell %s: %s", c.ID, c.State)
		}
		order = append(order, c.Label[strings.LastIndex(c.Label, " ")+1:]) // "innodb KNOB=V (a)"
	}
	for i := range rounds {
		if i%2 == 0 {
			want = append(want, "(a)", "(b)")
		} else {
			want = append(want, "(b)", "(a)")
		}
	}
	if got := strings.Join(order, " "); got != strings.Join(want, " ") {
		t.Errorf("arms ran in order %s, want %s", got, strings.Join(want, " "))
	}
	for i := 0; i+1 < 2*rounds; i += 2 {
		if m.Cells[i].Rep != m.Cells[i+1].Rep || m.Cells[i].Label == m.Cells[i+1].Label {
			t.Errorf("round %d does not hold both arms: %s, %s", i/2+1, m.Cells[i].ID, m.Cells[i+1].ID)
		}
	}

	// The running ETA, from measured cell times.
	if !regexp.MustCompile(`matrix: [0-9]+/12 done, ETA \S+ \(measured \S+/cell over [0-9]+ cell\(s\)`).MatchString(r.stderr) {
		t.Errorf("no measured ETA line on stderr")
	}

	// The noise floor: ratio, CI and n in report.md and on stdout.
	n := strconv.Itoa(rounds)
	line := regexp.MustCompile(`A/A: (\d+\.\d+)x \[(\d+\.\d+), (\d+\.\d+)\] \(n=` + n + ` each, p[=<][0-9.]+\): the noise floor of this cluster for pure-random-writes`)
	md := string(mustRead(t, filepath.Join(dir, "report.md")))
	got := line.FindStringSubmatch(md)
	if got == nil {
		t.Fatalf("report.md has no A/A noise-floor line")
	}
	if !line.MatchString(r.stdout) {
		t.Errorf("stdout does not end with the A/A line")
	}
	if !regexp.MustCompile(`A/A: .*; (equivalent within ±10%|not resolved: the interval overlaps ±10%)`).MatchString(md) || strings.Contains(md, "different by more than") {
		t.Errorf("the A/A under --precision 10%% did not end equivalent or not resolved:\n%s", md)
	}
	var nf struct {
		Measured []struct {
			AARun    string   `json:"aa_run"`
			Ratio    *float64 `json:"ratio"`
			Low      *float64 `json:"ci95_low"`
			High     *float64 `json:"ci95_high"`
			NA       int      `json:"n_a"`
			NB       int      `json:"n_b"`
			CIMethod string   `json:"ci_method"`
		} `json:"measured"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "noise-floor.json")), &nf); err != nil {
		t.Fatal(err)
	}
	if len(nf.Measured) != 1 {
		t.Fatalf("noise-floor.json: %d floors, want 1", len(nf.Measured))
	}
	f := nf.Measured[0]
	if f.Ratio == nil || f.Low == nil || f.High == nil || *f.Low > *f.Ratio || *f.High < *f.Ratio || f.NA != rounds || f.NB != rounds || f.CIMethod != "blocked" || f.AARun != filepath.Base(dir) {
		t.Errorf("noise-floor.json floor %+v", f)
	}
	t.Logf("noise floor of the lab: %s", got[0])

	// A later matrix of the same workload under the same runs root records
	// the A/A as its noise floor (auto) and its report names it.
	later := l.mustOK(t, append([]string{"matrix", "-i", l.inventory, "--engines=innodb", "--knobs", flushLog + "=2", "--repeat", "3", "--runs", runs}, workload...)...)
	laterDir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		NoiseFloor string `json:"noise_floor"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(laterDir, "matrix.json")), &rec); err != nil || rec.NoiseFloor != filepath.Base(dir) {
		t.Errorf("the later matrix recorded noise floor %q (%v), want %q", rec.NoiseFloor, err, filepath.Base(dir))
	}
	if note := "Noise floor (A/A " + filepath.Base(dir) + ", " + n + "+" + n + " runs)"; !strings.Contains(later.stdout, note) ||
		!strings.Contains(string(mustRead(t, filepath.Join(laterDir, "report.md"))), note) {
		t.Errorf("the later matrix's report does not name its noise floor (%q)", note)
	}

	// A report of two of its cells held against it: the same parameters
	// and cluster, so the floor applies and is named.
	cells := []string{filepath.Join(dir, m.Cells[0].Dir), filepath.Join(dir, m.Cells[1].Dir)}
	rr := l.mustOK(t, append([]string{"report", "--noise-floor", dir, "--out", t.TempDir()}, cells...)...)
	if !strings.Contains(rr.stdout, "Noise floor (A/A "+dir+", "+n+"+"+n+" runs)") || strings.Contains(rr.stdout, "not applicable") {
		t.Errorf("the report held against the A/A does not name its floor:\n%s", rr.stdout)
	}
	// The third campaign: the knob's other value, with sync_binlog=1 (thirdKnobs).
	l.mustOK(t, append([]string{"matrix", "-i", l.inventory, "--engines=innodb", "--knobs", thirdKnobs, "--repeat", "3", "--runs", runs}, workload...)...)
	thirdDir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	checkHistory(t, l, runs, []string{dir, laterDir, thirdDir})
}
