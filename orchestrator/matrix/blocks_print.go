package matrix

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteDesign prints a matrix over several clusters: the design (seed,
// clusters, rounds), one table per cluster with its cells in run order,
// rounds moved off failed clusters, and the estimate of what is left,
// which is the longest cluster's share since the clusters run in parallel.
func WriteDesign(w io.Writer, m *Matrix, d *Design, costs Costs) error {
	p := &printer{w: w}
	p.printf("Matrix %s: %s, %d configuration(s) x %d repetition(s) on each of %d cluster(s); baseline: %s\n",
		orDash(m.Workload), axesSummary(m), len(m.Labels()), m.Repeat, len(d.Blocks), m.Baseline)
	order := "each round's cells in random order"
	if d.GroupEngines {
		order = "each round's engines, and the knob values within an engine, in random order"
	}
	p.printf("Randomised block design: a block per cluster, %s; seed %d (--seed %d reproduces it)\n", order, d.Seed, d.Seed)
	for _, b := range d.Blocks {
		p.printf("\nCluster %s", b.Cluster)
		if b.Failed != "" {
			p.printf(" (taken out: %s)", b.Failed)
		}
		p.printf(":\n")
		tw := tabwriter.NewWriter(p, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "#\tID\tENGINE\tKNOBS\tREP\tSTATE")
		for i, id := range b.Cells {
			c := m.cell(id)
			state := string(c.State)
			if !d.Analysed(id) {
				state += " (excluded: incomplete round)"
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d\t%s\n", i+1, c.ID, c.Engine, knobsColumn(c.Knobs), c.Rep, state)
		}
		if err := tw.Flush(); err != nil && p.err == nil {
			p.err = err
		}
	}
	for _, mv := range d.Moved {
		p.printf("* round %d of %s moved to %s as its round %d (%s)\n", mv.Round, mv.From, mv.To, mv.ToRound, mv.Reason)
	}
	p.printf("\n")
	if costs.PerCell > 0 {
		wall, per := d.Estimate(m, costs)
		p.printf("Estimated duration: %s with the clusters in parallel (", FormatDuration(wall))
		for i, b := range d.Blocks {
			if i > 0 {
				p.printf(", ")
			}
			p.printf("%s %s", b.Cluster, FormatDuration(per[i]))
		}
		p.printf(")\n")
		if costs.Source != "" {
			p.printf("  (%s)\n", costs.Source)
		}
	} else {
		p.printf("Estimated duration: unknown\n")
	}
	return p.err
}
