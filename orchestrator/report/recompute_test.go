package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/internal/recheck"
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
	if _, _, err := Generate([]string{demoDir}, out, []string{"md", "csv"}, Options{}); err != nil {
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
	t.Logf("the report's own checks, not recomputed: %q", res.NotRecomputed)
	// The runs' client and master rates agree with each other too.
	for id, s := range res.Steady {
		if m := res.Master[id]; math.Abs(s/m-1) > 0.01 {
			t.Errorf("%s: client %.1f vs master %.1f", id, s, m)
		}
	}
}

// TestRecheckCatchesADisagreement: the recheck fails on a head or
// verdict figure the runs do not give, and on a clock shift its own
// alignment does not find (it no longer adopts the report's).
func TestRecheckCatchesADisagreement(t *testing.T) {
	out := t.TempDir()
	if _, _, err := Generate([]string{demoDir}, out, []string{"md", "csv"}, Options{}); err != nil {
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
	res, err := recheck.Matrix(demoDir, out)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Problems, "\n")
	for _, want := range []string{"rocksdb (head/verdict) ratio: report 0.86", "client clock shift s (own alignment vs the report's): report 0.35"} {
		if !strings.Contains(all, want) {
			t.Errorf("the recheck did not catch %q; its problems:\n%s", want, all)
		}
	}
}
