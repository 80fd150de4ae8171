package history

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the series: key, what identifies it, runs and points,
// the newest point's value, and its change points; then which series
// differ in one field only, so that the user knows what --ignore would
// merge.
func WriteTable(w io.Writer, series []*Series, ignore []string) {
	fmt.Fprintf(w, "%d series; a difference in any of workload, metric, %s makes a new one", len(series), strings.Join(without(Fields, ignore), ", "))
	if len(ignore) > 0 {
		fmt.Fprintf(w, "; merged across %s (--ignore)", strings.Join(ignore, ", "))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERIES\tWORKLOAD\tENGINE\tKNOBS\tVERSION\tRUNS\tPOINTS\tLAST (95% CI)\tCHANGE POINTS")
	for _, s := range series {
		id := s.Identity
		runs := 0
		for _, p := range s.Points {
			runs += p.Runs
		}
		last := s.Points[len(s.Points)-1]
		cps := "none"
		if n := len(s.Changes); n > 0 {
			c := s.Changes[n-1]
			cps = fmt.Sprintf("%d, latest %s", n, c.Short())
		}
		knobs := id.Knobs
		if knobs == "" {
			knobs = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", s.Key, id.Workload+" ("+id.Metric+")", id.Engine, knobs, id.Version, runs, len(s.Points), sampleText(last), cps)
	}
	tw.Flush()
	for _, s := range series {
		if len(s.Merged) > 0 {
			fmt.Fprintf(w, "series %s merges runs whose %s differ (--ignore)\n", s.Key, strings.Join(s.Merged, ", "))
		}
	}
	for i, a := range series {
		for _, b := range series[i+1:] {
			if d := DiffFields(a.Identity, b.Identity, ignore); len(d) == 1 && d[0] != "workload" && d[0] != "metric" {
				fmt.Fprintf(w, "series %s and %s differ only in %s; --ignore %s makes them one\n", a.Key, b.Key, Diff(a.Identity, b.Identity, ignore)[0], d[0])
			}
		}
	}
}

func without(all, drop []string) []string {
	var out []string
	for _, f := range all {
		keep := true
		for _, d := range drop {
			keep = keep && d != f
		}
		if keep {
			out = append(out, f)
		}
	}
	return out
}

// Short is a change point in a few words: where, how much, what changed.
func (c Change) Short() string {
	s := fmt.Sprintf("at %s %+.1f%%", c.Campaign, 100*c.Relative)
	if c.Worse {
		s += " (worse)"
	}
	if len(c.What) > 0 {
		s += " with " + strings.Join(c.What, "; ")
	}
	return s
}

func sampleText(p Point) string {
	s := p.Sample
	switch {
	case s.N == 0:
		return "no figure"
	case s.N == 1:
		return num(s.Mean) + " (1 run)"
	}
	return fmt.Sprintf("%s [%s, %s] n=%d", num(s.Mean), num(s.CILow), num(s.CIHigh), s.N)
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// WriteSeries prints one series: its identity, its points over time with
// their intervals, and its change points with what else changed there.
func WriteSeries(w io.Writer, s *Series) {
	id := s.Identity
	fmt.Fprintf(w, "series %s: %s, %s\n", s.Key, id.Workload, id.Metric)
	for _, f := range allFields[2:] {
		fmt.Fprintf(w, "  %-9s %s\n", f+":", orNone(id.field(f)))
	}
	if len(s.Merged) > 0 {
		fmt.Fprintf(w, "  merged across %s (--ignore): the values above are the newest run's\n", strings.Join(s.Merged, ", "))
	}
	cpAt := map[int]Change{}
	for _, c := range s.Changes {
		cpAt[c.At] = c
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "POINT\tSTART (UTC)\tCAMPAIGN\tRUNS\tMEAN %s (95%% CI)\tCHANGE\tREPORT\n", id.Metric)
	for i, p := range s.Points {
		mark := ""
		if c, ok := cpAt[i]; ok {
			mark = fmt.Sprintf("<- %+.1f%% (p=%.3f)", 100*c.Relative, c.P)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%d\t%s\t%s\t%s\n", i+1, p.Start.Format("2006-01-02 15:04"), p.Campaign, p.Runs, sampleText(p), mark, p.Report)
	}
	tw.Flush()
	if len(s.Changes) == 0 {
		fmt.Fprintln(w, "no change point (E-divisive means, permutation test at 5%)")
	}
	for _, c := range s.Changes {
		fmt.Fprintf(w, "change point at point %d (%s): %s -> %s %s, %+.1f%%, p=%.3f\n", c.At+1, c.Campaign, num(c.Before), num(c.After), id.Metric, 100*c.Relative, c.P)
		if len(c.What) == 0 {
			fmt.Fprintln(w, "  nothing else recorded changed there")
		}
		for _, wc := range c.What {
			fmt.Fprintln(w, "  changed there: "+wc)
		}
	}
}

// WriteRegressions prints one line per regression and reports how many.
func WriteRegressions(w io.Writer, series []*Series, threshold float64, within int) int {
	n := 0
	for _, s := range series {
		c := s.Regression(threshold, within)
		if c == nil {
			continue
		}
		n++
		fmt.Fprintf(w, "REGRESSION %s %s %s %s: %s\n", s.Key, s.Identity.Workload, s.Identity.Engine, s.Identity.Metric, c.Short())
	}
	return n
}
