package matrix

import (
	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/stats"
	"maps"

	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Costs are what the plan's estimate assumes: the time of one cell (load
// plus benchmark plus checks) and of one engine switch (profile change and
// restarts). Zero means unknown.
type Costs struct {
	PerCell time.Duration
	Switch  time.Duration
	// Source says what PerCell's overhead comes from (PlanCosts); ""
	// prints nothing.
	Source string
}

// WritePlan prints the plan: one row per cell in execution order, then the
// totals, the estimated duration of what is left to run, and the knobs with
// no effect on this server. A resumed matrix shows each cell's state.
func WritePlan(w io.Writer, m *Matrix, costs Costs) error {
	p := &printer{w: w}
	p.printf("Matrix %s: %s, %d configuration(s) x %d repetition(s); baseline: %s\n",
		orDash(m.Workload), axesSummary(m), len(m.Labels()), m.Repeat, m.Baseline)
	if m.AA {
		p.printf("A/A: one configuration as two identical arms (a) and (b), interleaved; the report states the noise floor of this cluster\n")
	}
	if len(m.Overrides) > 0 {
		p.printf("Workload overrides: %s\n", overridesSummary(m.Overrides))
	}
	if u := m.Until; u != nil {
		p.printf("%s\n", describeUntil(u))
	}
	switch {
	case m.Analysis == "":
		// An older plan: the report analyses it by its design.
	case m.Analysis == stats.AnalysisUnpaired:
		p.printf("Analysis: unpaired (--analysis, recorded): ratio of means, Fieller's interval, rounds ignored\n")
	case m.Until != nil && m.Until.Goal != stats.GoalSignificant:
		p.printf("Analysis: blocked by round (recorded): each round's ratio, Student's t across rounds; the rule stops on precision from round %d\n", max(m.Until.MinRounds, stats.MinBlockedRounds))
	default:
		p.printf("Analysis: blocked by round (recorded): each round's ratio, Student's t across rounds\n")
	}
	p.printf("\n")
	resumed := m.Count(Pending) != len(m.Cells)
	tw := tabwriter.NewWriter(p, 0, 0, 2, ' ', 0)
	header := "#\tID\tENGINE\tKNOBS\tREP"
	if resumed {
		header += "\tSTATE"
	}
	fmt.Fprintln(tw, header)
	for i, c := range m.Cells {
		row := fmt.Sprintf("%d\t%s\t%s\t%s\t%d", i+1, c.ID, c.Engine, knobsColumn(c.Knobs), c.Rep)
		if resumed {
			row += "\t" + string(c.State)
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil && p.err == nil {
		p.err = err
	}
	p.printf("\n")

	left := m.Remaining()
	total := fmt.Sprintf("%d cells", len(m.Cells))
	if resumed {
		total += fmt.Sprintf(" (%d ok, %d failed, %d to run)", m.Count(OK), m.Count(Failed), len(left))
	}
	p.printf("Total: %s, %d engine switch(es)\n", total, EngineSwitches(m.Cells))
	est := "Estimated duration"
	if m.Until != nil && !m.Until.Stopped {
		est = "At most" // the rule may stop after fewer rounds
	}
	if costs.PerCell > 0 {
		p.printf("%s: %s (%d cell(s) x %s + %d switch(es) x %s)\n", est,
			FormatDuration(Estimate(left, costs.PerCell, costs.Switch)),
			len(left), FormatDuration(costs.PerCell), EngineSwitches(left), FormatDuration(costs.Switch))
		if costs.Source != "" {
			p.printf("  (%s)\n", costs.Source)
		}
	} else {
		p.printf("%s: unknown\n", est)
	}
	if m.Repeat == 1 && m.Until == nil && !m.AA {
		// One run per configuration has no spread: no interval, no test,
		// every verdict would be a single pair of numbers.
		p.printf("Note: one run per configuration: no statistics will be possible (no interval, no test); pass --repeat 3 or more, " +
			"or --precision 5%% to run rounds until every ratio is known within 5%%\n")
	}
	return p.err
}

// printer is an io.Writer that keeps the first write error, so the plan is
// written without a check after every line.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	n, err := p.w.Write(b)
	p.err = err
	return n, err
}

func (p *printer) printf(format string, a ...any) { fmt.Fprintf(p, format, a...) }

// axesSummary is "engines innodb,rocksdb; sync_binlog=0,1; ...".
func axesSummary(m *Matrix) string {
	parts := []string{"engines " + strings.Join(m.Engines, ",")}
	for _, ax := range m.Knobs {
		parts = append(parts, ax.Name+"="+strings.Join(ax.Values, ","))
	}
	return strings.Join(parts, "; ")
}

// knobsColumn lists a cell's knobs.
func knobsColumn(knobs []KV) string {
	if len(knobs) == 0 {
		return "-"
	}
	parts := make([]string, len(knobs))
	for i, k := range knobs {
		parts[i] = k.Name + "=" + k.Value
	}
	return strings.Join(parts, " ")
}

func overridesSummary(o map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(o)) {
		parts = append(parts, k+"="+o[k])
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// FormatDuration is a duration for people: whole seconds under a minute,
// whole minutes from an hour ("1h12m", "4m30s", "45s").
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d <= 0:
		return "0s"
	case d >= time.Hour:
		d = d.Round(time.Minute)
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return strconv.Itoa(h) + "h"
		}
		return fmt.Sprintf("%dh%02dm", h, m)
	case d >= time.Minute:
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 {
			return strconv.Itoa(m) + "m"
		}
		return fmt.Sprintf("%dm%02ds", m, s)
	default:
		return d.String()
	}
}

// WriteFairness prints the plan's fairness warnings, those that stop the
// matrix without --allow-asymmetry (durability, or made by a knob) marked
// ASYMMETRY.
func WriteFairness(w io.Writer, ws []fairness.Warning) error {
	p := &printer{w: w}
	for _, x := range ws {
		mark := "WARNING"
		if fairness.Refused(x) {
			mark = "ASYMMETRY"
		}
		p.printf("%s %s\n", mark, x)
	}
	return p.err
}
