package dataset

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/server"
)

// TestLabDropBeyond: sbtest3 and sbtest4 left by a wider workload are
// dropped on the master and, replicated, on both slaves; the two tables the
// spec wants stay.
func TestLabDropBeyond(t *testing.T) {
	l := needLab(t)
	l.createData(t)
	ctx := context.Background()
	stmts := append(sbtestDDL(labInno, "sbtest3", "InnoDB"), sbtestDDL(labInno, "sbtest4", "InnoDB")...)
	labSQL(t, l.master.DB, append(stmts, "CREATE TABLE "+labInno+".sbtest_notes (id INT PRIMARY KEY)")...)
	spec := Spec{Database: labInno, Tables: 2, TableSize: labRows, Engine: "innodb"}
	if ok, _, err := Matches(ctx, l.master.DB, spec); err != nil || ok {
		t.Fatalf("with sbtest3/4 present: Matches = %v, %v", ok, err)
	}
	dropped, err := DropBeyond(ctx, l.master.DB, spec)
	if err != nil || !slices.Equal(dropped, []string{"sbtest3", "sbtest4"}) {
		t.Fatalf("DropBeyond = %v, %v", dropped, err)
	}
	if _, err := WaitCaughtUp(ctx, l.master, l.slaves, time.Minute); err != nil {
		t.Fatal(err)
	}
	for _, n := range append([]*server.Node{l.master}, l.slaves...) {
		if ok, why, err := Matches(ctx, n.DB, spec); err != nil || !ok {
			t.Errorf("%s after DropBeyond: %v %q %v", n, ok, why, err)
		}
		var notes int
		if err := n.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'sbtest_notes'", labInno).Scan(&notes); err != nil || notes != 1 {
			t.Errorf("%s: a table not named like a benchmark table was dropped (%d, %v)", n, notes, err)
		}
	}
}
