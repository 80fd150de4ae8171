// Command recheck recomputes a matrix's report from its cells' raw files
// (internal/recheck: its own parser, clock alignment and statistics) and
// compares every figure of results.csv, why.json and report.md's head and
// verdict lines with it:
//
//	go run ./scripts/recheck MATRIX_DIR [REPORT_DIR]
//
// REPORT_DIR defaults to MATRIX_DIR (where orch matrix writes its report).
// It exits 1 when a figure is more than 1% off or a figure of the head or
// verdict lines is one it does not recompute, 2 on bad input.
package main

import (
	"fmt"
	"os"

	"github.com/orch-bench/orch/internal/recheck"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/recheck MATRIX_DIR [REPORT_DIR]")
		os.Exit(2)
	}
	dir, out := os.Args[1], os.Args[1]
	if len(os.Args) == 3 {
		out = os.Args[2]
	}
	res, err := recheck.Matrix(dir, out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recheck:", err)
		os.Exit(2)
	}
	fmt.Printf("recheck: %d figures compared (%d head and verdict lines), within %.0f%%: %d off, %d not recomputed\n",
		res.Compared, res.Lines, 100*recheck.Tolerance, len(res.Problems), len(res.Uncovered))
	for _, s := range res.Shifts {
		fmt.Println("  clock:", s)
	}
	for _, p := range res.Problems {
		fmt.Println("  OFF:", p)
	}
	for _, u := range res.Uncovered {
		fmt.Println("  NOT RECOMPUTED:", u)
	}
	for _, n := range res.NotRecomputed {
		fmt.Println("  not recomputed (the report's own check, or a decision the simulation cannot make):", n)
	}
	if len(res.Problems) > 0 || len(res.Uncovered) > 0 {
		os.Exit(1)
	}
}
