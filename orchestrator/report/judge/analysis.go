package judge

import (
	"fmt"
	"slices"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// blocked reports whether the table's runs name their blocks (every run
// of the baseline and of a compared configuration came from a matrix's
// round).
func (t *Table) blocked() bool {
	if t.Baseline == nil || t.Baseline.Blocks == nil {
		return false
	}
	for _, g := range t.Groups {
		if g != t.Baseline && g.Rate.N > 0 && g.Blocks == nil {
			return false
		}
	}
	return true
}

// MethodLine states the analysis in the report's Method: which, why,
// and how its ratio, interval and p are computed.
func (t *Table) MethodLine() string {
	a := t.Analysis
	var why string
	switch {
	case a.From == load.FileMatrix:
		why = "recorded in matrix.json before the runs (orch matrix --analysis; blocked unless asked otherwise, the matrix running in rounds)"
	case a.From != "":
		why = "chosen with orch report --analysis " + a.Asked + ", after the runs (not pre-registered)"
	case a.Used == stats.AnalysisBlocked:
		why = "the design's: the matrix ran every configuration once per round, so rounds are blocks"
	default:
		why = "the runs' rounds are not known"
	}
	clusters := len(t.clusters()) > 1
	if a.Used == stats.AnalysisBlocked {
		s := "Analysis: blocked by round (" + why + "). Each comparison's ratio is the geometric mean of the rounds' ratios (each round's run against the baseline's run of that round), " +
			"its interval exp(m ± t·se) from the mean m and standard error se of the rounds' log ratios with Student's t on rounds-1 degrees of freedom, its p that t-test's " +
			"(so the interval excludes 1 exactly when p is below its level); a round effect both sides share (the machine slower in one round) cancels in the round's ratio."
		if clusters {
			s += " Over several clusters each cluster's mean log ratio counts once: t across clusters (clusters-1 df), the standard error never below what the rounds' own spread gives."
		}
		if t.Until != nil && t.Until.Goal != stats.GoalSignificant {
			s += fmt.Sprintf(" The stopping rule judges the same interval, and stops on its width from round %d at the earliest (with fewer rounds' degrees of freedom, stopping when it is narrow by chance inflates the error rates).", stats.MinBlockedRounds)
		}
		return s
	}
	s := "Analysis: unpaired (" + why + "). Each comparison's ratio is the ratio of the means, its interval Fieller's and its p Welch's (see Statistics), every run taken as independent of the others."
	if clusters {
		s += " Over several clusters each cluster's log ratio of means counts once: t across clusters (clusters-1 df), the standard error never below what the runs' own noise gives (delta method)."
	}
	return s
}

// AnalysisLines are the tables' Method lines, each said once.
func (rep *Report) AnalysisLines() []string {
	var out []string
	for _, t := range rep.Tables {
		if l := t.MethodLine(); !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	return out
}

// sustainedByRounds replaces g's sustained ratio and interval (Fieller's,
// compareWith) by the table's blocked analysis of the runs' sustained
// rates, at the verdict's level: the verdict prints them beside its own
// ratio and interval, so both come from one analysis.
func (t *Table) sustainedByRounds(g, b *Group) {
	level := analyse.Alpha
	if g.Test != nil {
		level = g.Test.DecidedAt()
	}
	s := t.rule().At(stats.Comparison{Other: g.Sustained, Base: b.Sustained, OtherBlocks: g.Blocks, BaseBlocks: b.Blocks}, level)
	g.SustainedRatio = s.Ratio
	g.SustainedCI, g.SustainedCIErr = intervalOf(s)
}
