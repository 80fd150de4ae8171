package render

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// ReportAnswer is the report's answer lines, every table's, as report.md opens
// with them (a table's workload first when there are several): for a
// console that ends with the answer.
func ReportAnswer(rep *judge.Report) []string {
	var out []string
	for _, t := range rep.Tables {
		if len(rep.Tables) > 1 {
			out = append(out, AnswerFor(t)+":")
		}
		out = append(out, TableAnswer(t)...)
	}
	return out
}

// AnswerText is the console's last lines: "answer:" and the answer lines,
// indented ("" when there is nothing to answer).
func AnswerText(rep *judge.Report) string {
	lines := ReportAnswer(rep)
	if len(lines) == 0 {
		return ""
	}
	return "answer:\n  " + strings.Join(lines, "\n  ") + "\n"
}

// AnswerFor names the table an answer is about.
func AnswerFor(t *judge.Table) string {
	return t.Workload + " (" + t.Tool + ", " + t.MetricWords() + "), baseline " + t.Baseline.Label
}

// TableAnswer is the table's answer lines.
func TableAnswer(t *judge.Table) []string {
	lead, more := AnswerParts(t)
	return append(lead, more...)
}

// AnswerParts are the answer's comparisons (lead: report.html sets them
// in bold) and the lines that qualify them.
func AnswerParts(t *judge.Table) (lead, more []string) {
	var out []string
	if len(t.Mixed) > 0 {
		out = append(out, "NOT COMPARABLE, compared as asked (--allow-mixed): "+strings.Join(t.Mixed, "; "))
	}
	base := t.Baseline
	for _, g := range t.Groups {
		if g != base {
			out = append(out, ComparisonLine(t, base, g))
			// A caveat that limits the answer goes right under it.
			out = append(out, t.Caveats(base, g)...)
		}
	}
	if len(t.Groups) == 1 {
		out = append(out, base.Label+": "+levelText(t, base)+"; one configuration, nothing compared")
	}
	lead, out = out, nil
	if t.Floor != nil {
		out = append(out, t.Floor.Note())
	}
	if l := t.RuleLine(); l != "" {
		out = append(out, l)
	}
	if l := t.TrendWarning(); l != "" {
		out = append(out, l)
	}
	if l := ReplicaLine(t); l != "" {
		out = append(out, l)
	}
	if len(t.Fairness) > 0 {
		l := "Fairness: UNFAIR: " + t.Fairness[0].String()
		if n := len(t.Fairness) - 1; n > 0 {
			l += fmt.Sprintf(" (and %d more below)", n)
		}
		out = append(out, l)
	}
	if l := noiseLine(t); l != "" {
		out = append(out, l)
	}
	return lead, out
}

// levelText is a configuration's rate as the console summary prints it:
// "9648.53 writes/s ± 178.21 (n=2)".
func levelText(t *judge.Table, g *judge.Group) string {
	switch g.Rate.N {
	case 0:
		return "no run ended ok"
	case 1:
		return analyse.Num(g.Rate.Mean, 2) + " " + t.Metric + " (n=1)"
	}
	return fmt.Sprintf("%s %s ± %s (n=%d)", analyse.Num(g.Rate.Mean, 2), t.Metric, analyse.Num(g.Rate.SD, 2), g.Rate.N)
}

// ComparisonLine is one comparison: significant
//
//	rocksdb vs innodb: -34% writes/s [-41%, -27%] (p=0.003, n=5+5)
//
// not significant
//
//	rocksdb vs innodb: ~ no significant difference (p=0.276, n=2+2): need ~6 runs each
//
// and why there is no test when there is none.
func ComparisonLine(t *judge.Table, base, g *judge.Group) string {
	head := g.Label + " vs " + base.Label + ": "
	ns := fmt.Sprintf("n=%d+%d", g.Rate.N, base.Rate.N)
	switch {
	case g.Rate.N == 0 || base.Rate.N == 0:
		return head + "nothing to compare (" + ns + ": no run ended ok)"
	case len(g.NoEffect) > 0:
		return head + "~ no effect on this server (" + strings.Join(g.NoEffect, ", ") + "): the difference is noise"
	case g.Test == nil:
		why := "no test"
		if g.TestErr != nil {
			why = strings.TrimSuffix(strings.TrimPrefix(g.TestErr.Error(), "n/a ("), ")")
		}
		if errors.Is(g.TestErr, analyse.ErrTooFew) {
			why = "too few runs, a test needs 2 or more each"
		}
		return head + PctChange(g.Ratio) + " " + changeOf(t) + ", untested: " + ns + ", " + why
	}
	p := judge.PValueAt(g.Test.P, g.Test.DecidedAt())
	if g.Test.M > 1 {
		p += " at Holm's " + strconv.FormatFloat(g.Test.DecidedAt(), 'g', 3, 64)
	}
	var s string
	// --headline sustained: the user asked for the cluster's sustained
	// rate, so the answer leads with it: an estimate with its interval
	// (the test is of the master's rate, named as such after it, so that
	// "no significant difference" and an interval excluding 0 are never
	// said of one quantity).
	sustained := t.Headline == analyse.HeadlineSustained && analyse.Known(g.Replica) && analyse.Known(base.Replica) && !math.IsNaN(g.SustainedRatio)
	if sustained {
		head += "sustained " + PctChange(g.SustainedRatio) + " " + changeOf(t) + PctInterval(g.SustainedCI, g.SustainedCIErr) +
			" (an estimate with its interval, not tested); client: "
	}
	if g.Test.Significant() {
		s = head + PctChange(g.Ratio) + " " + changeOf(t) + PctInterval(g.RatioCI, g.RatioCIErr) + " (" + p + ", " + ns + ")"
	} else {
		s = head + "~ no significant difference (" + p + ", " + ns + ")"
		if g.RepsNeeded > min(g.Rate.N, base.Rate.N) {
			s += fmt.Sprintf(": need ~%d runs each", g.RepsNeeded)
		}
	}
	if w := g.OutcomeWords(base, t.Until); w != "" {
		if g.Status(base, t.Until).Outcome == stats.Equivalent {
			w += PctInterval(g.RatioCI, g.RatioCIErr)
		}
		s += "; " + w
	}
	return s
}

// changeOf names what a change is of: "writes/s", or for a time "time
// (s to run all queries, lower is better)".
func changeOf(t *judge.Table) string {
	if t.LowerIsBetter {
		return "time (" + t.MetricWords() + ")"
	}
	return t.Metric
}

// PctChange is a ratio as a change: 0.81x is "-19%", 1.63x "+63%". It is
// read back from the ratio as Ratio prints it, so the two forms never
// disagree in their last digit.
func PctChange(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	v, _ := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(analyse.Ratio(r), "x"), ",", ""), 64)
	d := math.Round(100*v) - 100
	if d == 0 {
		return "±0%"
	}
	return fmt.Sprintf("%+.0f%%", d)
}

// PctInterval is the ratio's interval as changes, " [-41%, -27%]", as
// ciPhrase prints it (a lower bound below 0 reads as 0, i.e. -100%).
func PctInterval(ci *analyse.RatioCI, err error) string {
	switch {
	case ci != nil:
		lo := PctChange(math.Max(0, ci.Low))
		if ci.Low < 0 {
			lo += " (clipped from " + PctChange(ci.Low) + ")"
		}
		s := " [" + lo + ", " + PctChange(ci.High) + "]"
		if ci.Level > 0 && ci.Level < analyse.Alpha {
			s += " (" + judge.Confidence(ci.Level) + " CI, Holm)"
		}
		return s
	case errors.Is(err, analyse.ErrUnbounded):
		return " [CI unbounded]"
	}
	return ""
}

// ReplicaLine says whether the replicas kept up, with the apply ratios
// the verdicts print; "" without replica figures.
func ReplicaLine(t *judge.Table) string {
	base := t.Baseline
	if !hasReplicas(t) || !analyse.Known(base.Replica) {
		return ""
	}
	var behind, applied []string
	for _, g := range t.Groups {
		if !analyse.Known(g.Replica) {
			continue
		}
		if !g.KeptUp {
			behind = append(behind, g.Label+" ("+judge.RunsPhrase(g.ReplicaRuns)+")")
		}
		if g != base {
			a := g.Label + " " + analyse.Ratio(g.ApplyRatio)
			// Judged run by run, never on the runs' mean slope.
			if n := g.ReplicaRuns.CatchingUp + base.ReplicaRuns.CatchingUp; n > 0 {
				a += fmt.Sprintf(" (a backlog from before the window in %s: not the master's pace)", judge.Plural(n, "run"))
			}
			applied = append(applied, a)
		}
	}
	s := "Replicas: kept up in every configuration"
	if len(behind) > 0 {
		s = "Replicas: did NOT keep up: " + strings.Join(behind, ", ")
		for _, g := range t.Groups {
			if g == base || g.KeptUp || math.IsNaN(g.SustainedRatio) {
				continue
			}
			if t.LowerIsBetter {
				// A time: the cluster's is the load's plus the slowest
				// replica's catch-up, so "sustained 16.7x" read as a rate.
				s += fmt.Sprintf("; %s's cluster took %s %s's time (the load and the slowest replica's catch-up)%s",
					g.Label, analyse.Ratio(g.SustainedRatio), base.Label, judge.CIPhrase(g.SustainedCI, g.SustainedCIErr))
				continue
			}
			s += fmt.Sprintf("; %s sustained %s%s", g.Label, analyse.Ratio(g.SustainedRatio), judge.CIPhrase(g.SustainedCI, g.SustainedCIErr))
		}
	}
	if len(applied) > 0 {
		s += "; applied vs " + base.Label + ": " + strings.Join(applied, ", ")
	}
	return s
}

// noiseLine flags noisy configurations, too few runs and runs flagged for
// a broken invariant; "" when none of these applies.
func noiseLine(t *judge.Table) string {
	var parts []string
	var noisy []string
	for _, g := range t.Groups {
		if g.Noisy {
			noisy = append(noisy, g.Label+" "+judge.Pct(g.CV))
		}
	}
	if len(noisy) > 0 {
		parts = append(parts, "CV above "+judge.Pct(analyse.MaxCV)+": "+strings.Join(noisy, ", "))
	}
	n := -1
	flagged := 0
	for _, g := range t.Groups {
		if n < 0 || g.Rate.N < n {
			n = g.Rate.N
		}
		flagged += g.Flagged()
	}
	if n > 0 && n < 3 {
		parts = append(parts, fmt.Sprintf("n=%d: too few runs to judge the noise", n))
	}
	if flagged > 0 {
		parts = append(parts, judge.Plural(flagged, "run")+" flagged for a broken invariant (Runs table)")
	}
	if len(parts) == 0 {
		return ""
	}
	return "Noise: " + strings.Join(parts, "; ")
}
