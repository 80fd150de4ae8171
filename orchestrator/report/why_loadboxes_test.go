package report

import (
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// A configuration driven from two load boxes keeps a row and a flag per
// load box: only the saturated one is flagged, and the sentence names it.
func TestWhyRowPerLoadBox(t *testing.T) {
	busy := cost("loadbox", "loadbox", func(x *analyse.Cost) { x.ClientCPU, x.BoxCPU, x.BoxRunQueue = 0.95, 0.97, 1 })
	idle := cost("loadbox2", "loadbox", func(x *analyse.Cost) { x.ClientCPU, x.BoxCPU, x.BoxRunQueue = 0.3, 0.4, 1 })
	g := group("b", 1.1, cost("master", "master", func(c *analyse.Cost) {}), busy, idle)
	if !g.ClientBound || g.ClientWhy != "loadbox: client 95.0% of 2 cores" || g.LoadBox != busy {
		t.Errorf("client-bound %v %q, first load box %v", g.ClientBound, g.ClientWhy, g.LoadBox)
	}
	w := &judge.Why{Groups: []*judge.GroupWhy{g}, Base: g}
	flags := map[string]string{}
	for _, row := range render.UseRows(w) {
		if row[2] == "loadbox" {
			flags[row[1]] = row[len(row)-1]
		}
	}
	if len(flags) != 2 || !strings.HasPrefix(flags["loadbox"], "client-bound: ") || flags["loadbox2"] != "" {
		t.Errorf("load box rows and flags: %q", flags)
	}
	base := group("a", 1, cost("master", "master", func(c *analyse.Cost) {}))
	if got := judge.Attribution(base, g); !strings.Contains(got, "(loadbox: client 95.0% of 2 cores)") {
		t.Errorf("the sentence does not name the saturated load box: %s", got)
	}
}
