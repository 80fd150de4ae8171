package history

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Comparison is campaign B against campaign A: per workload, each
// configuration present in both on the same footing (one series), judged
// by the report's own rule (stats.Rule.Evaluate: Welch's test, Holm over
// the workload's comparisons, Fieller's interval of B/A at its Holm
// level); and the configurations that could not be compared, with the
// identity fields that differ.
type Comparison struct {
	Tables  []CompareTable
	Refused []string
}

// CompareTable is one workload's comparisons.
type CompareTable struct {
	Workload, Metric string
	LowerIsBetter    bool
	Rows             []CompareRow
}

// CompareRow is one configuration in both campaigns.
type CompareRow struct {
	Config string
	Series string
	A, B   stats.Sample
	Status stats.Status
}

// Compare compares B's runs with A's. Runs pair up by series (identity
// without the ignored fields); a configuration (engine and knobs) of A
// whose series B lacks is refused, naming the fields in which B's runs of
// that configuration differ.
func Compare(a, b []Entry, ignore []string) Comparison {
	ga, gb := bySeries(a, ignore), bySeries(b, ignore)
	var cmp Comparison
	tables := map[string]*CompareTable{}
	var order []string
	var cs = map[string][]stats.Comparison{}
	for _, k := range ga.order {
		ea := ga.runs[k]
		id := ea[0].Identity
		eb, ok := gb.runs[k]
		if !ok {
			cmp.Refused = append(cmp.Refused, refusal(id, gb, ignore))
			continue
		}
		tk := id.Workload + "\x00" + id.Metric
		t := tables[tk]
		if t == nil {
			t = &CompareTable{Workload: id.Workload, Metric: id.Metric, LowerIsBetter: ea[0].LowerIsBetter}
			tables[tk] = t
			order = append(order, tk)
		}
		va, vb := values(ea), values(eb)
		t.Rows = append(t.Rows, CompareRow{Config: configName(id), Series: k, A: stats.Describe(va), B: stats.Describe(vb)})
		cs[tk] = append(cs[tk], stats.Comparison{Label: configName(id), Other: vb, Base: va})
	}
	for _, k := range gb.order {
		if _, ok := ga.runs[k]; ok {
			continue
		}
		// B's runs of another series: said, never silently left out. When
		// A's runs of the configuration found no counterpart, their
		// refusal above names the difference already.
		id := gb.runs[k][0].Identity
		switch {
		case !hasConfig(ga, id, ignore):
			cmp.Refused = append(cmp.Refused, fmt.Sprintf("%s %s: only in B", id.Workload, configName(id)))
		case compared(ga, gb, id, ignore):
			cmp.Refused = append(cmp.Refused, fmt.Sprintf("%s %s: B's runs of another series not compared: %s", id.Workload, configName(id), why(id, ga, ignore, "A")))
		}
	}
	rule := stats.Rule{Alpha: stats.Alpha}
	for _, tk := range order {
		t := tables[tk]
		seen := map[string]int{}
		for _, r := range t.Rows {
			seen[r.Config]++
		}
		for i, r := range t.Rows {
			if seen[r.Config] > 1 {
				t.Rows[i].Config += " [" + r.Series + "]"
			}
		}
		for i, s := range rule.Evaluate(0, cs[tk]) {
			t.Rows[i].Status = s
		}
		cmp.Tables = append(cmp.Tables, *t)
	}
	return cmp
}

type grouped struct {
	order []string
	runs  map[string][]Entry
}

func bySeries(es []Entry, ignore []string) grouped {
	g := grouped{runs: map[string][]Entry{}}
	for _, e := range es {
		k := e.Identity.Key(ignore)
		if _, ok := g.runs[k]; !ok {
			g.order = append(g.order, k)
		}
		g.runs[k] = append(g.runs[k], e)
	}
	return g
}

func values(es []Entry) []float64 {
	var out []float64
	for _, e := range es {
		if e.Usable() {
			out = append(out, e.Value)
		}
	}
	return out
}

// configName is a configuration as a matrix labels it: engine and knobs.
func configName(id Identity) string {
	return strings.TrimSpace(id.Engine + " " + id.Knobs)
}

// sameConfig: the same workload, metric and configuration (engine and
// knobs, but for those --ignore names).
func sameConfig(a, b Identity, ignore []string) bool {
	if a.Workload != b.Workload || a.Metric != b.Metric {
		return false
	}
	for _, f := range []string{"engine", "knobs"} {
		if !slices.Contains(ignore, f) && a.field(f) != b.field(f) {
			return false
		}
	}
	return true
}

func hasConfig(g grouped, id Identity, ignore []string) bool {
	for _, es := range g.runs {
		if sameConfig(es[0].Identity, id, ignore) {
			return true
		}
	}
	return false
}

// compared: a series of id's configuration is in both a and b.
func compared(ga, gb grouped, id Identity, ignore []string) bool {
	for k, es := range ga.runs {
		if _, ok := gb.runs[k]; ok && sameConfig(es[0].Identity, id, ignore) {
			return true
		}
	}
	return false
}

// refusal says why A's configuration has no counterpart in B: the fields
// in which B's runs of the same workload and configuration differ.
func refusal(id Identity, gb grouped, ignore []string) string {
	head := fmt.Sprintf("%s %s: not compared", id.Workload, configName(id))
	if !hasConfig(gb, id, ignore) {
		return head + ": only in A"
	}
	return head + ": " + why(id, gb, ignore, "B")
}

// why names the fields in which the other side's runs of id's
// configuration differ from id (the closest series), with the --ignore
// that would compare them.
func why(id Identity, other grouped, ignore []string, side string) string {
	var best []string
	for _, k := range other.order {
		o := other.runs[k][0].Identity
		if !sameConfig(o, id, ignore) {
			continue
		}
		d := Diff(id, o, ignore)
		if side == "A" {
			d = Diff(o, id, ignore) // always A -> B
		}
		if best == nil || len(d) < len(best) {
			best = d
		}
	}
	fields := make([]string, len(best))
	for i, d := range best {
		fields[i] = d[:strings.Index(d, ":")]
	}
	return fmt.Sprintf("different series, %s (--ignore %s compares them anyway)", strings.Join(best, "; "), strings.Join(fields, ","))
}

// Err is the comparison's refusal as bad input when nothing could be
// compared.
func (c Comparison) Err() error {
	if len(c.Tables) > 0 {
		return nil
	}
	if len(c.Refused) == 0 {
		return orchestrator.BadInputf("compare: no runs with figures in A and B")
	}
	return orchestrator.BadInputf("compare: nothing on the same footing:\n  %s", strings.Join(c.Refused, "\n  "))
}

// Write prints the comparison as tables, benchstat-like, then the
// refused configurations.
func (c Comparison) Write(w io.Writer) {
	for _, t := range c.Tables {
		better := "higher is better"
		if t.LowerIsBetter {
			better = "lower is better"
		}
		fmt.Fprintf(w, "%s (%s, %s)\n", t.Workload, t.Metric, better)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CONFIG\tA mean ±95% CI\tB mean ±95% CI\tB/A [Fieller CI]\tp (Holm level)\tVERDICT")
		for _, r := range t.Rows {
			s := r.Status
			ratio, p := "-", "-"
			if !math.IsNaN(s.Ratio) {
				ratio = fmt.Sprintf("%.3f", s.Ratio)
				if s.Err == nil {
					ratio += fmt.Sprintf(" [%s, %s]", bound(s.Interval.Low), bound(s.Interval.High))
				}
			}
			if s.Test != nil {
				p = fmt.Sprintf("%.3g (%.3g)", s.Test.P, s.Decision.Alpha)
			}
			verdict := string(s.Outcome)
			if s.Err != nil {
				verdict += ": " + s.Err.Error()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Config, meanCI(r.A), meanCI(r.B), ratio, p, verdict)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	sort.Strings(c.Refused)
	for _, r := range c.Refused {
		fmt.Fprintln(w, r)
	}
}

func bound(v float64) string {
	if math.IsInf(v, 0) {
		return fmt.Sprint(v)
	}
	return fmt.Sprintf("%.3f", v)
}

func meanCI(s stats.Sample) string {
	switch s.N {
	case 0:
		return "no runs"
	case 1:
		return num(s.Mean) + " (n=1)"
	}
	return fmt.Sprintf("%s ±%.1f%% (n=%d)", num(s.Mean), 100*(s.CIHigh-s.Mean)/s.Mean, s.N)
}
