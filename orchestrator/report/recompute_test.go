package report

import (
	"math"
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
	if _, _, err := Generate([]string{demoDir}, out, []string{"csv"}, Options{}); err != nil {
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
	// The runs' client and master rates agree with each other too.
	for id, s := range res.Steady {
		if m := res.Master[id]; math.Abs(s/m-1) > 0.01 {
			t.Errorf("%s: client %.1f vs master %.1f", id, s, m)
		}
	}
}
