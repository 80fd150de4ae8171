package report

import (
	"math"
	"strings"
	"testing"
)

func TestWording(t *testing.T) {
	base := &Group{Label: "innodb sync_binlog=0", Rate: Sample{N: 3, Mean: 1000}}
	g := &Group{Label: "rocksdb sync_binlog=1", Rate: Sample{N: 3, Mean: 840}, Ratio: 0.84, Test: &TTest{P: 0.003}}
	if got, want := verdict("writes/s", base, g, nil), "rocksdb sync_binlog=1: 0.84x innodb sync_binlog=0 writes/s (p=0.003, significant)"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	g = &Group{Label: "tokudb", Rate: Sample{N: 1, Mean: 1630}, Ratio: 1.63, TestErr: ErrTooFew}
	if got, want := verdict("writes/s", &Group{Label: "innodb", Rate: Sample{N: 1}}, g, nil), "tokudb: 1.63x innodb writes/s (n/a (one run))"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	for _, c := range []struct {
		t    *TTest
		want string
	}{
		{&TTest{P: 0.0004}, "p<0.001, significant"},
		{&TTest{P: 0.0499}, "p=0.0499, significant"},
		{&TTest{P: 0.05}, "p=0.05, not significant"},
		{&TTest{P: 0.412}, "p=0.412, not significant"},
		{nil, "n/a"},
	} {
		if got := Significance(c.t, nil); got != c.want {
			t.Errorf("Significance(%v) = %q, want %q", c.t, got, c.want)
		}
	}
	if Ratio(math.Inf(1)) != "n/a" || Ratio(math.NaN()) != "n/a" || Ratio(1.005) != "1.00x" {
		t.Errorf("Ratio: %q %q %q", Ratio(math.Inf(1)), Ratio(math.NaN()), Ratio(1.005))
	}
}

func TestSummary(t *testing.T) {
	rep := build(t, Options{}, matrixDir)
	s := rep.Summary()
	inno := rep.Tables[0].Baseline
	for _, want := range []string{
		"warm-up 2 s (matrix.json) excluded from steady-state figures",
		"pure-random-writes (sysbench, writes/s): baseline innodb: " + num(inno.Rate.Mean, 2) + " writes/s ± " + num(inno.Rate.SD, 2) + " (n=2)",
		"  " + rep.Tables[0].group("rocksdb").Verdict,
		"  not in the statistics: 05-innodb-r3 (failed)\n",
		"  not in the statistics: 06-rocksdb-r3 (pending)\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
