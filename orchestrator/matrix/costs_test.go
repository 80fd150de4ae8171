package matrix

import (
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// The plan's per-cell time holds the overhead earlier cells of the same
// workload measured (prepare, catch-up, checks), not a constant: the
// review's 6-cell plan said 5 min and took 10. Without earlier cells it
// says the estimate leaves them out.
func TestPlanCostsFromEarlierCells(t *testing.T) {
	root := t.TempDir()
	w, err := bench.LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Override(map[string]string{"time": "30"}); err != nil {
		t.Fatal(err)
	}
	c := PlanCosts(root, w)
	if c.PerCell != 30*time.Second+CellOverhead || !strings.Contains(c.Source, "no earlier cell of pure-random-writes") {
		t.Fatalf("nothing earlier: %+v", c)
	}

	// An earlier matrix of the workload whose two ok cells took 80 s and
	// 100 s for 30 s of load each: 60 s of overhead a cell.
	m, err := Build(Spec{Engines: "innodb", Workload: "pure-random-writes", Repeat: 3, Overrides: map[string]string{"time": "30"}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, secs := range []int{80, 100} {
		c := &m.Cells[i]
		c.State, c.Started, c.Ended = OK, t0, t0.Add(time.Duration(secs)*time.Second)
	}
	m.Cells[2].State, m.Cells[2].Started, m.Cells[2].Ended = Failed, t0, t0.Add(time.Second) // left out
	if _, err := Create(root, m, t0); err != nil {
		t.Fatal(err)
	}
	c = PlanCosts(root, w)
	if c.PerCell != 90*time.Second || !strings.Contains(c.Source, "overhead 1m a cell (prepare, catch-up, checks) as measured on 2 cell(s)") {
		t.Fatalf("measured: %+v", c)
	}
	var b strings.Builder
	if err := WritePlan(&b, m, c); err != nil || !strings.Contains(b.String(), "as measured on 2 cell(s)") {
		t.Fatalf("plan: %v\n%s", err, b.String())
	}
}
