package matrix

import (
	"fmt"
	"github.com/orch-bench/orch/orchestrator/runs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// A cell takes its load's time plus what orch does around it: bringing the
// cluster up, prepare, the replicas' catch-up, the checks, collect. That
// overhead depends on the workload and the cluster far more than a
// constant can say (a 6-cell plan said 5 min and took 10: catch-up and
// prepare). So the plan measures it on the cells earlier matrices of the
// same workload ran under the same root (each ok cell's wall time less its
// load time) and says so, or says it could not.

// maxEarlierMatrices bounds how many earlier matrices are read.
const maxEarlierMatrices = 5

// PlanCosts is CostsOf(w) with the per-cell overhead measured on earlier
// matrices of w's workload under root when there are some; Source says
// which, or that the estimate has no prepare and catch-up in it.
func PlanCosts(root string, w *bench.Workload) Costs {
	c := CostsOf(w)
	if c.PerCell == 0 {
		return c
	}
	load := c.PerCell - CellOverhead
	over, n, from := earlierOverhead(root, w.Name)
	if n == 0 {
		c.Source = fmt.Sprintf("orch's overhead assumed %s a cell: no earlier cell of %s under %s measured prepare and replica catch-up", FormatDuration(CellOverhead), w.Name, root)
		return c
	}
	c.PerCell = load + max(over, 0)
	c.Source = fmt.Sprintf("overhead %s a cell (prepare, catch-up, checks) as measured on %d cell(s) of %s", FormatDuration(over), n, from)
	return c
}

// earlierOverhead is the mean overhead of the ok cells of the newest
// earlier matrices of workload under root, how many cells, and where.
func earlierOverhead(root, workload string) (time.Duration, int, string) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, 0, ""
	}
	var sum time.Duration
	n, read := 0, 0
	var dirs []string
	for i := len(entries) - 1; i >= 0 && read < maxEarlierMatrices; i-- {
		e := entries[i]
		dir := filepath.Join(root, e.Name())
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") || !runs.IsMatrix(dir) {
			continue
		}
		m, err := Load(dir)
		if err != nil || m.Workload != workload {
			continue
		}
		read++
		got := 0
		for _, c := range m.Cells {
			if c.State != OK || c.Started.IsZero() || !c.Ended.After(c.Started) {
				continue
			}
			cw, err := m.CellWorkload(c.Engine)
			if err != nil || cw.Options.TimeS == nil {
				continue
			}
			sum += c.Ended.Sub(c.Started) - time.Duration(*cw.Options.TimeS)*time.Second
			n++
			got++
		}
		if got > 0 {
			dirs = append(dirs, e.Name())
		}
	}
	if n == 0 {
		return 0, 0, ""
	}
	return sum / time.Duration(n), n, strings.Join(dirs, ", ")
}
