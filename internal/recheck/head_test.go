package recheck

import (
	"strings"
	"testing"
)

// TestOneConfiguration: with one configuration the head gives its level
// (mean ± sd, n), checked against the runs; the table's own head bullets
// right after "Baseline:" (no verdicts) are not read as verdicts.
func TestOneConfiguration(t *testing.T) {
	md := "# Benchmark report\n\n- innodb: 4378.95 writes/s ± 843.39 (n=3); one configuration, nothing compared\n\nServers: x\n\n" +
		"## w (sysbench, writes/s)\n\nBaseline: **innodb**\n\n- Data: 2 tables (sbtest1..sbtest2) start empty\n- Runs in the statistics: innodb n=3\n\n### Configurations\n"
	lines := headAndVerdicts(md)
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "innodb: ") {
		t.Fatalf("head and verdict lines %q", lines)
	}
	for _, c := range []struct {
		mean, sd float64
		problems int
	}{{4378.95, 843.39, 0}, {4378.95, 943.39, 1}, {4478.95, 843.39, 1}} {
		res := &Result{levels: map[string][3]float64{"innodb": {c.mean, c.sd, 3}}}
		res.checkLines(md, "innodb", []string{"innodb"})
		if len(res.Problems) != c.problems || len(res.Uncovered) > 0 || res.Compared != 3 {
			t.Errorf("mean %g sd %g: %d compared, problems %q, uncovered %q", c.mean, c.sd, res.Compared, res.Problems, res.Uncovered)
		}
	}
}

// The Replicas line's applied ratios, one with the backlog phrase after
// it and a label holding a knob: each ratio is compared (the demo of
// 2026-12-06 said "rocksdb 0.777x (a backlog ...)", which was read as the
// ratio "0.777x (a" and reported OFF).
func TestAppliedRatiosOnTheReplicasLine(t *testing.T) {
	md := "# Benchmark report\n\n- Replicas: kept up in every configuration; applied vs innodb: rocksdb 0.777x " +
		"(a backlog from before the window in 1 run: not the master's pace), innodb sync_binlog=0 1.02x\n\nServers: x\n"
	for _, c := range []struct {
		rocks, knob float64
		problems    int
	}{{0.7774, 1.021, 0}, {0.80, 1.021, 1}, {0.7774, 0.95, 1}} {
		res := &Result{comparisons: map[string]*comparison{"rocksdb": {applied: c.rocks}, "innodb sync_binlog=0": {applied: c.knob}},
			replicas: map[string]replicaRuns{"rocksdb": {backlog: 1}, "innodb": {}, "innodb sync_binlog=0": {}}}
		res.checkLines(md, "innodb", []string{"innodb", "rocksdb", "innodb sync_binlog=0"})
		n := 0
		for _, p := range res.Problems {
			if strings.Contains(p, "applied ratio") {
				n++
			}
		}
		if n != c.problems {
			t.Errorf("applied %g, %g: problems %q", c.rocks, c.knob, res.Problems)
		}
	}
}

// A decisive demo's head: "p<0.001" is a bound the recomputed p must be
// under, and the stopping rule's "(2 planned cell(s) not needed)" is
// matrix.json's skipped cells (both were numbers no rule claimed).
func TestBoundedPAndCellsNotNeeded(t *testing.T) {
	md := "# Benchmark report\n\n- rocksdb vs innodb: -25% writes/s [-27%, -23%] (p<0.001, n=5+5)\n" +
		"- Stopping rule: ±15% reached after 5 rounds: every interval's half-width is within it (worst rocksdb/innodb: ±2.91%) " +
		"(rounds 3-6, blocked analysis) (2 planned cell(s) not needed)\n\nServers: x\n"
	for _, c := range []struct {
		p        float64
		skipped  int
		problems int
	}{{0.0004, 2, 0}, {0.002, 2, 1}, {0.0004, 1, 1}} {
		res := &Result{comparisons: map[string]*comparison{"rocksdb": {n: 5, nBase: 5, ratio: 0.747, lo: 0.7253, hi: 0.7688, p: c.p}},
			until: &until{Precision: 0.15, MinRounds: 3, MaxRounds: 6, Judged: 5, skipped: c.skipped}}
		res.checkLines(md, "innodb", []string{"innodb", "rocksdb"})
		if len(res.Problems) != c.problems || len(res.Uncovered) > 0 {
			t.Errorf("p %g, %d skipped: problems %q, uncovered %q", c.p, c.skipped, res.Problems, res.Uncovered)
		}
	}
}
