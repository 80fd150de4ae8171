package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/internal/recheck"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// demoDir is a trimmed copy of a real lab matrix (the demo's command:
// innodb vs rocksdb, 2 repetitions, --warmup 5), with the raw client text
// and monitor CSVs, whose gdb stack samples fell inside the load.
const demoDir = "testdata/demo"

// TestIndependentRecomputation: every figure of the verdict and of the
// Configurations, Replicas and Per-transaction tables, recomputed from the
// raw files by internal/recheck's own parser (regexps of sysbench's
// lines, CSV columns by name, gtid_pos counters), matches the report's
// within 1%.
func TestIndependentRecomputation(t *testing.T) {
	out := t.TempDir()
	if _, _, err := render.Generate([]string{demoDir}, out, []string{"md", "csv"}, analyse.Options{}); err != nil {
		t.Fatal(err)
	}
	res, err := recheck.Matrix(demoDir, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d figures compared", res.Compared)
	if res.Compared < 150 {
		t.Errorf("only %d figures compared", res.Compared)
	}
	for _, p := range res.Problems {
		t.Error(p)
	}
	// Every figure of the head and verdict lines is one the recheck
	// recomputes (internal/recheck/head.go).
	t.Logf("%d head and verdict lines read", res.Lines)
	if res.Lines < 4 {
		t.Errorf("only %d head and verdict lines read", res.Lines)
	}
	for _, u := range res.Uncovered {
		t.Errorf("not recomputed: %s", u)
	}
	t.Logf("not recomputed (the report's own checks; decisions within the simulation's error): %q", res.NotRecomputed)
	// The runs' client and master rates agree with each other too.
	for id, s := range res.Steady {
		if m := res.Master[id]; math.Abs(s/m-1) > 0.01 {
			t.Errorf("%s: client %.1f vs master %.1f", id, s, m)
		}
	}
}

// TestRecheckCatchesADisagreement: the recheck fails on a head or
// verdict figure the runs do not give (the verdict's ratio, the
// steady-state line's drop, second and runs, the replicas' peak lag and
// its second), and on a clock shift its own alignment does not find (it
// no longer adopts the report's).
func TestRecheckCatchesADisagreement(t *testing.T) {
	out := t.TempDir()
	if _, _, err := render.Generate([]string{demoDir}, out, []string{"md", "csv"}, analyse.Options{}); err != nil {
		t.Fatal(err)
	}
	edit := func(name string, re *regexp.Regexp, repl string) {
		t.Helper()
		p := filepath.Join(out, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		loc := re.FindIndex(b)
		if loc == nil {
			t.Fatalf("%s: no %s", name, re)
		}
		b = append(append(append([]byte{}, b[:loc[0]]...), repl...), b[loc[1]:]...)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The verdict's ratio 2.4% up, the first run's shift 0.3 s later.
	edit("report.md", regexp.MustCompile(`(?m)^- rocksdb: 0\.840x`), "- rocksdb: 0.860x")
	edit("why.json", regexp.MustCompile(`"client_offset_s":\s*"?[0-9.]+"?`), `"client_offset_s": 0.35`)
	// The head's steady-state line: the drop 17% -> 27%, its second ~8 s
	// -> ~12 s, the runs that shifted 1 -> 2 of 2.
	edit("report.md", regexp.MustCompile(`(?m)^- Steady state \(rocksdb vs innodb\): rocksdb: no steady state: 17% drop at ~8 s in 1 of 2 runs`),
		"- Steady state (rocksdb vs innodb): rocksdb: no steady state: 27% drop at ~12 s in 2 of 2 runs")
	// The verdict's replica phrase: the peak lag 5.4k -> 6.4k tx, its
	// second 6.0 -> 9.0 s.
	edit("report.md", regexp.MustCompile(`replicas: kept up in 2 of 2 runs; peak lag 5\.4k tx \(03-rocksdb-r2 slave2 at 6\.0 s\)`),
		"replicas: kept up in 2 of 2 runs; peak lag 6.4k tx (03-rocksdb-r2 slave2 at 9.0 s)")
	res, err := recheck.Matrix(demoDir, out)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Problems, "\n")
	for _, want := range []string{"rocksdb (head/verdict) ratio: report 0.86", "client clock shift s (own alignment vs the report's): report 0.35",
		"rocksdb steady state: change %: report 27", "rocksdb steady state: at s: report 12", "rocksdb steady state: runs shifted: report 2",
		"rocksdb replicas: peak lag tx: report 6400", "rocksdb replicas: peak lag at s: report 9"} {
		if !strings.Contains(all, want) {
			t.Errorf("the recheck did not catch %q; its problems:\n%s", want, all)
		}
	}
}

// TestRecheckPerPhase: the demo's raw files with a 4 s warm-up (matrix.json
// says so, for the report and the recheck alike): both rocksdb runs then
// drop at ~8 s, so the steady-state line gives the ratio per phase with
// Fieller's intervals and the advice on run length; the recheck
// recomputes every figure of it, and catches an interval's bound and the
// advised warm-up altered.
func TestRecheckPerPhase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	if err := os.CopyFS(dir, os.DirFS(demoDir)); err != nil {
		t.Fatal(err)
	}
	mj := filepath.Join(dir, "matrix.json")
	b, err := os.ReadFile(mj)
	if err != nil {
		t.Fatal(err)
	}
	b = regexp.MustCompile(`"warmup_s": 5\b`).ReplaceAll(b, []byte(`"warmup_s": 4`))
	if err := os.WriteFile(mj, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, _, err := render.Generate([]string{dir}, out, []string{"md", "csv"}, analyse.Options{}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`(?m)^- Steady state \(rocksdb vs innodb\): .*per phase: .* after ~[0-9]+ s; to measure the later phase alone.*$`).Find(md)
	if line == nil {
		t.Fatalf("no steady-state line with a ratio per phase in:\n%s", md)
	}
	res, err := recheck.Matrix(dir, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Problems {
		t.Error(p)
	}
	for _, u := range res.Uncovered {
		t.Errorf("not recomputed: %s", u)
	}
	t.Logf("not recomputed (the report's own checks; decisions within the simulation's error): %q", res.NotRecomputed)

	// The later phase's upper bound and the advised warm-up, altered.
	bad := regexp.MustCompile(`, ([0-9.]+)\] after`).ReplaceAll(line, []byte(", 9.99] after"))
	bad = regexp.MustCompile(`--warmup [0-9]+`).ReplaceAll(bad, []byte("--warmup 99"))
	md = []byte(strings.Replace(string(md), string(line), string(bad), 1))
	if err := os.WriteFile(filepath.Join(out, "report.md"), md, 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err = recheck.Matrix(dir, out); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Problems, "\n")
	for _, want := range []string{"after the shift interval high: report 9.99", "advice: --warmup s: report 99"} {
		if !strings.Contains(all, want) {
			t.Errorf("the recheck did not catch %q; its problems:\n%s", want, all)
		}
	}
}
