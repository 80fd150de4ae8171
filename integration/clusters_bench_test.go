package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMatrixClusters measures the wall time of one 4-cell matrix
// (innodb, rocksdb, two repetitions) on one cluster against the same four
// cells spread over two clusters (one repetition each: a block design).
// Target: two clusters <= 0.6x one cluster's wall. Both clusters share
// this machine's two cores, so each runs slower when both do; the wall
// time is what the user waits for. It prints figures and asserts nothing
// about speed.
//
// It uses the two-cluster lab of ORCH_LAB_CLUSTERS_INVENTORY (from `orch
// lab up --clusters 2`), or builds one of its own on 10.96.0.0/23 and
// removes it afterwards (root).
//
//	ORCH_LAB_INVENTORY=$PWD/inventories/lab.yaml ORCH_BIN=$PWD/bin/orch \
//	  go test -run '^$' -bench MatrixClusters -benchtime 1x ./integration/
func BenchmarkMatrixClusters(b *testing.B) {
	bin := os.Getenv("ORCH_BIN")
	if bin == "" {
		b.Skip("no orch binary: set ORCH_BIN")
	}
	orch := func(args ...string) {
		b.Helper()
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			b.Fatalf("orch %v: %v\n%s", args, err, out)
		}
	}
	inv := os.Getenv("ORCH_LAB_CLUSTERS_INVENTORY")
	if inv == "" {
		dir := b.TempDir()
		state := filepath.Join(dir, "state")
		inv = filepath.Join(dir, "lab.yaml")
		b.Cleanup(func() { _ = exec.Command(bin, "lab", "down", "--state-dir", state, "-i", inv).Run() })
		orch("lab", "up", "--clusters", "2", "--subnet", clustersSubnet, "--state-dir", state, "-i", inv)
	}
	cells := []string{"--engines=innodb,rocksdb", "--workload", "pure-random-writes",
		"--time", "10", "--tables", "2", "--table-size", "5000", "--threads", "4", "--warmup", "2"}
	wall := func(extra ...string) time.Duration {
		args := append([]string{"matrix", "-i", inv, "--runs", b.TempDir()}, extra...)
		start := time.Now()
		orch(append(args, cells...)...)
		return time.Since(start)
	}
	fmt.Printf("%6s %14s %14s %8s\n", "run", "one cluster", "two clusters", "ratio")
	var sum float64
	for i := 0; i < b.N; i++ {
		one := wall("--cluster", "lab1", "--repeat", "2")
		two := wall("--repeat", "1", "--seed", "1")
		ratio := float64(two) / float64(one)
		sum += ratio
		fmt.Printf("%6d %14s %14s %7.2fx\n", i+1, one.Round(time.Millisecond), two.Round(time.Millisecond), ratio)
	}
	b.ReportMetric(sum/float64(b.N), "x-one-cluster-wall")
}
