package judge

import "strings"

// Caveats are the lines right under a comparison's verdict and answer
// line that limit it: no steady state (steadyLine), and a saturated load
// box (Where the time went's client-bound rule), which was said only on
// screen 3, in the diagnostics, never where the answer is read.
func (t *Table) Caveats(base, g *Group) []string {
	var out []string
	if l := t.SteadyLine(base, g); l != "" {
		out = append(out, l)
	}
	if l := t.clientBoundLine(base, g); l != "" {
		out = append(out, l)
	}
	return out
}

// clientBoundLine is "Client-bound (rocksdb vs innodb): the load box was
// saturated in innodb (loadbox: client 95.0% of 2 cores): the comparison
// measures the load box, not the engines" when either side's load box
// was; "" else.
func (t *Table) clientBoundLine(base, g *Group) string {
	if t.Why == nil {
		return ""
	}
	var who []string
	for _, x := range []*Group{g, base} {
		for _, w := range t.Why.Groups {
			if w.Label == x.Label && w.ClientBound {
				who = append(who, x.Label+" ("+w.ClientWhy+")")
			}
		}
	}
	if len(who) == 0 {
		return ""
	}
	return "Client-bound (" + g.Label + " vs " + base.Label + "): the load box was saturated in " + strings.Join(who, " and ") +
		": the comparison measures the load box, not the engines"
}
