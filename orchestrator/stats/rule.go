package stats

import (
	"fmt"
	"math"

	"github.com/orch-bench/orch/orchestrator/schema"
)

// Rule is a matrix's stopping rule: run rounds (one run of every
// configuration) until every comparison's interval of the ratio is as
// narrow as asked, or MaxRounds are done. It stops on precision, never on
// significance: how wide an interval is depends on the runs' spread, not on
// which way their means fell, so the stop does not bias the estimate or
// the verdict's error rates (TestStoppingRuleErrorRates measures them).
type Rule struct {
	// Precision is the target half-width of each ratio's interval
	// relative to the ratio (0.05: ±5%).
	Precision float64
	// MinRounds (at least the package's MinRounds) and MaxRounds bound
	// the rounds.
	MinRounds, MaxRounds int
	// Equivalence, when > 0, is the band [1-E, 1+E] within which two
	// configurations count as equivalent.
	Equivalence float64
	// Alpha is the family-wise level (Holm over the comparisons); a
	// significance rule spends it over its rounds (Level).
	Alpha float64
	// Goal is GoalPrecision (also when empty) or GoalSignificant.
	Goal string
	// Analysis is AnalysisBlocked, AnalysisUnpaired, or "" for the
	// design's: blocked whenever the runs name their blocks (rounds).
	Analysis string
}

// RuleOf is the stopping rule a matrix.json's until holds, as stats
// evaluates it: the one both the matrix (to stop) and the report (to
// decide) apply. Its Analysis is matrix.json's analysis, which the
// caller sets (it holds for a matrix without a stopping rule too).
func RuleOf(u *schema.Until) Rule {
	return Rule{Precision: u.Precision, MinRounds: u.MinRounds, MaxRounds: u.MaxRounds, Equivalence: u.Equivalence, Alpha: Alpha, Goal: u.Goal}
}

// MinRounds is the fewest rounds a rule may stop after: with two runs a
// side the spread is so uncertain that stopping when the interval happens
// to be narrow inflates the false-positive rate (TestStoppingRuleErrorRates).
const MinRounds = 3

// Validate says what is wrong with the rule, in the words of the flags.
func (r Rule) Validate() error {
	switch {
	case r.Goal != "" && r.Goal != GoalPrecision && r.Goal != GoalSignificant:
		return fmt.Errorf("--until %s: want %s or %s", r.Goal, GoalPrecision, GoalSignificant)
	case r.Goal == GoalSignificant && r.Precision != 0:
		return fmt.Errorf("--until %s with --precision: two stopping rules, choose one (--until %s stops on the interval's width, %s on the decision)", GoalSignificant, GoalPrecision, GoalSignificant)
	case r.Goal != GoalSignificant && !(r.Precision > 0 && r.Precision < 1):
		return fmt.Errorf("--precision %s: want a percentage above 0 and below 100", pctString(r.Precision))
	case r.MinRounds < MinRounds:
		return fmt.Errorf("--min-repeat %d: want at least %d (stopping after 2 rounds on an interval that is narrow by chance makes the error rates dishonest: simulated, 6.2%% false differences and 93.8%% coverage)", r.MinRounds, MinRounds)
	case r.MaxRounds < r.MinRounds:
		return fmt.Errorf("--max-repeat %d is below --min-repeat %d", r.MaxRounds, r.MinRounds)
	case r.Equivalence < 0 || r.Equivalence >= 1:
		return fmt.Errorf("--equivalence %s: want a percentage from 0 to below 100", pctString(r.Equivalence))
	}
	return nil
}

// Comparison is one configuration's runs against the baseline's, each
// value one run's steady-state figure; OtherBlocks and BaseBlocks, when
// set, say where each run ran (parallel to Other and Base), and the
// blocked analysis uses them.
type Comparison struct {
	Label                   string
	Other, Base             []float64
	OtherBlocks, BaseBlocks []Block
}

// Outcome is what a comparison's interval says.
type Outcome string

// Outcomes. Different: the interval excludes 1 (at its Holm level);
// with an equivalence band, Equivalent when the interval lies inside it
// and Different only when it lies wholly outside it, else Unresolved.
const (
	Different     Outcome = "different"
	NoDifference  Outcome = "no significant difference"
	Equivalent    Outcome = "equivalent"
	Unresolved    Outcome = "not resolved"
	NotComparable Outcome = "not comparable"
)

// Status is one comparison after a round.
type Status struct {
	Label    string
	N, NBase int
	// Ratio is the analysis's estimate: the ratio of the means
	// (unpaired, one cluster), else the geometric mean of the blocks' (or
	// clusters') ratios.
	Ratio    float64
	Interval Interval
	// Analysis is AnalysisBlocked or AnalysisUnpaired: the one the test,
	// the interval and the ratio all come from.
	Analysis string
	// Test is the comparison's test (Welch's, or Student's t on the log
	// ratios); nil when it could not be run (Err says why).
	Test      *TTest
	Decision  Decision
	HalfWidth float64 // relative; +Inf when unbounded or not computable
	Outcome   Outcome
	Err       error
}

// Evaluate computes each comparison's ratio, test, interval (at its Holm
// level) and outcome, all from one analysis (AnalysisOf: blocked when the
// runs name their blocks unless the rule says unpaired), after rounds complete rounds (the round sets a
// significance rule's level; see Level). It is the one judge: the report
// decides its comparisons with it (report.Table.compare), a matrix stops
// on what the report decides (report.JudgeMatrix), and the simulation that
// justifies the rule (Campaigns) runs it.
func (r Rule) Evaluate(rounds int, cs []Comparison) []Status {
	alpha := r.Level(rounds)
	out := make([]Status, len(cs))
	ps := make([]float64, len(cs))
	ests := make([]estimate, len(cs))
	for i, c := range cs {
		out[i], ests[i] = r.judge(c)
		ps[i] = math.NaN()
		if out[i].Test != nil {
			ps[i] = out[i].Test.P
		}
	}
	for i, d := range Holm(ps, alpha) {
		if math.IsNaN(d.P) {
			continue
		}
		out[i].Decision = d
		r.decide(&out[i], ests[i], d.Alpha, d.Significant)
	}
	return out
}

// At is one comparison under the rule's analysis at level alpha, outside
// any family (no Holm): a figure printed beside a verdict (the sustained
// rate's ratio) with the verdict's own analysis and level.
func (r Rule) At(c Comparison, alpha float64) Status {
	s, e := r.judge(c)
	if s.Test != nil {
		s.Decision = Decision{P: s.Test.P, Adjusted: s.Test.P, Alpha: alpha, Significant: s.Test.P < alpha, M: 1}
		r.decide(&s, e, alpha, s.Decision.Significant)
	}
	return s
}

// estimate is what a comparison's interval is computed from: the blocked
// analysis's log-ratio estimate, or the two samples for Fieller's.
type estimate struct {
	log  *Estimate
	a, b Sample
}

// judge is the comparison's ratio and test under the rule's analysis.
func (r Rule) judge(c Comparison) (Status, estimate) {
	a, b := Describe(c.Other), Describe(c.Base)
	e := estimate{a: a, b: b}
	s := Status{Label: c.Label, N: a.N, NBase: b.N, Ratio: math.NaN(), HalfWidth: math.Inf(1), Outcome: NotComparable, Analysis: r.AnalysisOf(r.blocked(c))}
	var est Estimate
	var w TTest
	var err error
	ok := false
	switch {
	case s.Analysis == AnalysisBlocked:
		est, err = blockedEstimate(c)
		ok = true
	case len(c.OtherBlocks) == len(c.Other) && len(c.BaseBlocks) == len(c.Base):
		est, ok, err = clusteredUnpaired(c)
	}
	if ok {
		// One block holding both sides still gives its ratio (no
		// interval: ErrFewBlocks).
		s.Ratio = math.Exp(est.LogRatio)
		if err == nil {
			e.log = &est
			w, err = est.Test()
		}
	} else {
		var ratio float64
		if ratio, err = Ratio(a, b); err == nil {
			s.Ratio = ratio
			w, err = Welch(a, b)
		}
	}
	if err != nil {
		s.Err = err
		return s, e
	}
	s.Test = &w
	return s, e
}

// decide sets s's interval at level alpha and its outcome.
func (r Rule) decide(s *Status, e estimate, alpha float64, significant bool) {
	var iv Interval
	if e.log != nil {
		iv = e.log.Interval(alpha)
	} else {
		var err error
		if iv, err = Fieller(e.a, e.b, alpha); err != nil {
			s.Err = err
			return
		}
	}
	if iv.Unbounded {
		// The size of the ratio is not pinned, its side of 1 may be:
		// significant is different, and no band holds an unbounded
		// interval (whichever of its ends is finite).
		iv.Low, iv.High = math.Inf(-1), math.Inf(1)
	}
	s.Interval, s.HalfWidth = iv, iv.HalfWidth(s.Ratio)
	s.Outcome = r.Outcome(iv, significant)
}

// Outcome is what an interval says under the rule: with an equivalence
// band, equivalent inside it, different wholly outside it, else not
// resolved; without one, different when significant.
func (r Rule) Outcome(iv Interval, significant bool) Outcome {
	if r.Equivalence > 0 {
		lo, hi := 1-r.Equivalence, 1+r.Equivalence
		switch {
		case iv.Low >= lo && iv.High <= hi:
			return Equivalent
		case iv.High < lo || iv.Low > hi:
			return Different
		}
		return Unresolved
	}
	if significant {
		return Different
	}
	return NoDifference
}

// MinBlockedRounds is the fewest rounds a precision rule may stop after
// under the blocked analysis: its interval has rounds-1 degrees of
// freedom (half the unpaired analysis's), and stopping on a width that is
// narrow by chance with 2 or 3 of them makes the error rates dishonest
// (simulated at CV 10%, --min-repeat 3 --max-repeat 6: 8.0% false
// differences and 92.0% coverage; from round 5: 5.8% and 94.3%).
const MinBlockedRounds = 5

// minRounds is the first round the rule may stop on precision after,
// given the analysis its statuses were judged with.
func (r Rule) minRounds(sts []Status) int {
	for _, s := range sts {
		if s.Analysis == AnalysisBlocked {
			return max(r.MinRounds, MinBlockedRounds)
		}
	}
	return r.MinRounds
}

// Stop decides after `rounds` complete rounds: whether to stop, and why
// in one line the console and the report print: what was reached, or the
// half-width the rounds got to.
func (r Rule) Stop(rounds int, sts []Status) (bool, string) {
	if r.Goal == GoalSignificant {
		return r.stopSignificant(rounds, sts)
	}
	worst, worstLabel := 0.0, ""
	for _, s := range sts {
		if s.HalfWidth > worst || worstLabel == "" {
			worst, worstLabel = s.HalfWidth, s.Label
		}
	}
	reached := worst <= r.Precision && len(sts) > 0
	least := r.minRounds(sts)
	switch {
	case rounds < r.MinRounds:
		return false, fmt.Sprintf("going on: %d of at least %d rounds", rounds, r.MinRounds)
	case reached && rounds >= least:
		return true, fmt.Sprintf("±%s reached after %d rounds: every interval's half-width is within it (worst %s: ±%s)", pctString(r.Precision), rounds, worstLabel, pctString(worst))
	case rounds >= r.MaxRounds && reached:
		return true, fmt.Sprintf("±%s reached at --max-repeat %d (worst %s: ±%s)", pctString(r.Precision), r.MaxRounds, worstLabel, pctString(worst))
	case rounds >= r.MaxRounds:
		return true, fmt.Sprintf("±%s not reached: ±%s after %d rounds (%s, --max-repeat %d)", pctString(r.Precision), pctString(worst), rounds, worstLabel, r.MaxRounds)
	case reached:
		return false, fmt.Sprintf("going on: ±%s (%s) reached, but the blocked analysis stops on precision only from round %d", pctString(worst), worstLabel, least)
	}
	return false, fmt.Sprintf("going on: %s's half-width is ±%s (target ±%s)", worstLabel, pctString(worst), pctString(r.Precision))
}

// pctString is a share as a percentage: 0.054 -> "5.4%", +Inf -> "unbounded".
func pctString(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "unbounded"
	case math.IsNaN(x):
		return "n/a"
	}
	return fmt.Sprintf("%.3g%%", 100*x)
}

// RunsNeeded is how many runs per configuration would resolve c's
// difference at alpha under the analysis that judges it: rounds from the
// blocks' log ratios (BlocksNeeded) when it is blocked on one cluster,
// Welch's runs (RunsNeeded) when unpaired; 0 when it cannot be said (over
// several clusters the unit is a cluster, not a run).
func (r Rule) RunsNeeded(c Comparison, alpha float64) int {
	s, e := r.judge(c)
	if s.Analysis != AnalysisBlocked {
		if e.log != nil {
			return 0 // several clusters, unpaired within each
		}
		return RunsNeeded(e.a, e.b, alpha)
	}
	if e.log == nil || clusters(c) > 1 {
		return 0
	}
	return BlocksNeeded(*e.log, alpha)
}

// clusters is how many clusters c's runs name.
func clusters(c Comparison) int {
	seen := map[string]bool{}
	for _, b := range append(append([]Block(nil), c.OtherBlocks...), c.BaseBlocks...) {
		seen[b.Cluster] = true
	}
	return len(seen)
}
