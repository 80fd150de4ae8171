package judge

import (
	"fmt"
	"math"
	"strconv"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// rule is the table's stopping rule as stats applies it: the matrix's,
// or significance at Alpha for a table without one.
func (t *Table) rule() stats.Rule {
	r := stats.Rule{Alpha: analyse.Alpha}
	if t.Until != nil {
		r = stats.RuleOf(&t.Until.Until)
	}
	r.Analysis = t.Analysis.Asked
	return r
}

// round is the round the table's comparisons are judged at (it sets a
// significance rule's level, stats.Rule.Level): the round being judged,
// or the last judged, and at least the rule's first judged round (a
// matrix stopped before its first judged round).
func (t *Table) round() int {
	u := t.Until
	if u == nil {
		return 0
	}
	k := u.Round
	if k == 0 {
		k = u.Judged
	}
	return max(k, u.MinRounds)
}

// FamilyAlpha is the level a table's comparisons are decided at together
// (Holm over them): Alpha, or under a significance rule the share of Alpha
// its round spends (stats.Rule.Level).
func (t *Table) FamilyAlpha() float64 { return t.rule().Level(t.round()) }

// Take sets g's test, interval and status from the judge's status s.
func (g *Group) Take(s stats.Status) {
	g.Judged = &s
	if !math.IsNaN(s.Ratio) {
		g.Ratio = s.Ratio // the analysis's estimate, beside its interval
	}
	if s.Test == nil {
		g.TestErr = s.Err
		return
	}
	g.Test = &analyse.TTest{T: s.Test.T, DF: s.Test.DF, P: s.Test.P, Level: s.Decision.Alpha, M: s.Decision.M}
	g.RatioCI, g.RatioCIErr = intervalOf(s)
}

// intervalOf is a judged status's interval as the report prints it, or
// why there is none.
func intervalOf(s stats.Status) (*analyse.RatioCI, error) {
	switch {
	case s.Err != nil:
		return nil, s.Err
	case s.Interval.Unbounded:
		return nil, analyse.ErrUnbounded
	}
	return &analyse.RatioCI{Low: s.Interval.Low, High: s.Interval.High, Level: s.Interval.Alpha}, nil
}

// JudgeMatrix is how a matrix with a stopping rule judges itself after a
// round: the comparisons of the report that would be written now, with
// the intervals the report prints (so the rule and the report can never
// disagree). Labels are "other/baseline"; several tables' comparisons are
// all listed.
func JudgeMatrix(dir string, rounds int) ([]stats.Status, error) {
	in, err := load.Load([]string{dir})
	if err != nil {
		return nil, err
	}
	if in.Until != nil {
		in.Until.Round = rounds
	}
	rep, err := Build(in, analyse.Options{})
	if err != nil {
		return nil, err
	}
	var out []stats.Status
	for _, t := range rep.Tables {
		out = append(out, t.statuses(in.Until)...)
	}
	return out, nil
}

// statuses are the table's comparisons as the stopping rule sees them.
func (t *Table) statuses(u *load.UntilDoc) []stats.Status {
	var out []stats.Status
	b := t.Baseline
	for _, g := range t.Groups {
		if g == b {
			continue
		}
		out = append(out, g.Status(b, u))
	}
	return out
}

// Status is the group's comparison with the baseline b as the judge
// decided it (take); a comparison the judge could not test (no runs, one
// run, no variation) is not comparable, or what its interval at Alpha says
// when it has one (no variation: the ratio itself).
func (g *Group) Status(b *Group, u *load.UntilDoc) stats.Status {
	if g.Judged != nil {
		return *g.Judged
	}
	s := stats.Status{Label: g.Label + "/" + b.Label, N: g.Rate.N, NBase: b.Rate.N, Ratio: g.Ratio,
		HalfWidth: math.Inf(1), Outcome: stats.NotComparable, Err: g.TestErr}
	rule := stats.Rule{Alpha: analyse.Alpha}
	if u != nil {
		rule = stats.RuleOf(&u.Until)
	}
	if g.RatioCI != nil {
		s.Interval = stats.Interval{Low: g.RatioCI.Low, High: g.RatioCI.High, Alpha: g.RatioCI.Level}
		s.HalfWidth = s.Interval.HalfWidth(g.Ratio)
		s.Outcome = rule.Outcome(s.Interval, false)
	}
	return s
}

// OutcomeWords is the equivalence outcome of a matrix with a band:
// "equivalent within ±10%", "different by more than ±10%" or "not
// resolved: the interval overlaps ±10%"; "" without a band.
func (g *Group) OutcomeWords(b *Group, u *load.UntilDoc) string {
	if u == nil || u.Equivalence <= 0 {
		return ""
	}
	band := pctPlain(u.Equivalence)
	switch g.Status(b, u).Outcome {
	case stats.Equivalent:
		return "equivalent within ±" + band
	case stats.Different:
		return "different by more than ±" + band
	}
	return "not resolved: the interval overlaps ±" + band
}

// RuleLine says how a matrix with a stopping rule ended, judged by this
// report's analysis: "±10% not reached: ±19.7% after 4 rounds", not the
// rule restated; the rule's bounds and analysis in brackets, and the
// matrix's own words when it stopped on a judgement this report does not
// share (a matrix.json older than its analysis).
func (t *Table) RuleLine() string {
	u := t.Until
	if u == nil {
		return ""
	}
	bounds := fmt.Sprintf(" (rounds %d-%d)", u.MinRounds, u.MaxRounds)
	if t.Analysis.Used != "" {
		bounds = fmt.Sprintf(" (rounds %d-%d, %s analysis)", u.MinRounds, u.MaxRounds, t.Analysis.Used)
	}
	if u.Goal == stats.GoalSignificant {
		s := fmt.Sprintf("Stopping rule: rounds until every comparison is decided (at least %d, at most %d rounds), %g spent over the rounds (O'Brien-Fleming-type spending, Bonferroni over rounds): these comparisons are decided at α=%.3g", u.MinRounds, u.MaxRounds, analyse.Alpha, t.FamilyAlpha())
		if u.Stopped {
			return s + "; " + u.Why + t.skippedWords()
		}
		return s + fmt.Sprintf("; not finished: %d round(s) judged", u.Judged) + t.skippedWords()
	}
	stop, why := t.rule().Stop(u.Judged, t.statuses(u))
	switch {
	case !u.Stopped:
		return fmt.Sprintf("Stopping rule: not finished after %d round(s) judged: %s", u.Judged, why) + bounds + t.skippedWords()
	case stop:
		return "Stopping rule: " + why + bounds + t.skippedWords()
	}
	return fmt.Sprintf("Stopping rule: the matrix stopped (%s); judged by this report after %d rounds: %s", u.Why, u.Judged, why) + bounds + t.skippedWords()
}

// skippedWords counts the cells a stopping rule did not need.
func (t *Table) skippedWords() string {
	if t.Skipped > 0 {
		return fmt.Sprintf(" (%d planned cell(s) not needed)", t.Skipped)
	}
	return ""
}

// pctPlain is 0.1 as "10%".
func pctPlain(x float64) string { return strconv.FormatFloat(100*x, 'g', 4, 64) + "%" }

// NoiseCV is the run-to-run coefficient of variation an A/A matrix
// measured (its arms' CVs pooled as the root mean square), for planning
// how many rounds a stopping rule will need.
func NoiseCV(dir string) (float64, error) {
	in, err := load.Load([]string{dir})
	if err != nil {
		return math.NaN(), err
	}
	rep, err := Build(in, analyse.Options{})
	if err != nil {
		return math.NaN(), err
	}
	sum, n := 0.0, 0
	for _, t := range rep.Tables {
		for _, g := range t.Groups {
			if !math.IsNaN(g.CV) {
				sum, n = sum+g.CV*g.CV, n+1
			}
		}
	}
	if n == 0 {
		return math.NaN(), fmt.Errorf("%s: no configuration with two runs or more", dir)
	}
	return math.Sqrt(sum / float64(n)), nil
}
