package matrix

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Until is a matrix that runs rounds until its answer is known: its cells
// are planned for MaxRounds repetitions, and after every complete round
// (one run of every configuration, interleaved as in any plan) the
// comparisons' intervals are judged; once each is within Precision of its
// ratio, or MaxRounds are done, the cells not yet run are skipped. The
// rule is stats.Rule; where it stands is saved with the plan, so --resume
// goes on with the same rule.
type Until = schema.Until

// MinRounds is the fewest rounds a stopping rule may run (--min-repeat's
// default): fewer give no interval to judge (stats.MinRounds).
const MinRounds = stats.MinRounds

// describeUntil is the plan's line for the rule, and where it stands once
// rounds were judged.
func describeUntil(u *Until) string {
	s := fmt.Sprintf("Stopping rule: rounds until every ratio's 95%% interval is within ±%s of the ratio, at least %d and at most %d rounds (--precision %s --min-repeat %d --max-repeat %d)",
		pctWords(u.Precision), u.MinRounds, u.MaxRounds, pctWords(u.Precision), u.MinRounds, u.MaxRounds)
	if u.Goal == stats.GoalSignificant {
		r := stats.RuleOf(u)
		s = fmt.Sprintf("Stopping rule: rounds until every comparison is decided, at least %d and at most %d rounds (--until significant --min-repeat %d --max-repeat %d); the 5%% false-positive rate is spent over the rounds, round %d deciding at α=%.3g and round %d at α=%.3g",
			u.MinRounds, u.MaxRounds, u.MinRounds, u.MaxRounds, u.MinRounds, r.Level(u.MinRounds), u.MaxRounds, r.Level(u.MaxRounds))
	}
	if u.Equivalence > 0 {
		s += fmt.Sprintf("; equivalent when the interval lies within ±%s of 1, different when it lies outside", pctWords(u.Equivalence))
	}
	switch {
	case u.Stopped:
		s += "; " + u.Why
	case u.Judged > 0:
		s += fmt.Sprintf("; %d round(s) judged", u.Judged)
	}
	return s
}

// pctWords is 0.05 as "5%".
func pctWords(x float64) string { return strconv.FormatFloat(100*x, 'g', 4, 64) + "%" }

// Judge computes the comparisons of the matrix in dir after its first
// rounds rounds, exactly as the report will (the seam to the report, which
// this package does not import).
type Judge func(dir string, rounds int) ([]stats.Status, error)

// CompletedRounds is the largest k such that every cell of repetitions 1
// to k has finished (ok or failed; skipped cells never count).
func (m *Matrix) CompletedRounds() int {
	last, firstOpen := 0, math.MaxInt
	for _, c := range m.Cells {
		if c.State == Skipped {
			continue
		}
		last = max(last, c.Rep)
		if !c.State.Finished() {
			firstOpen = min(firstOpen, c.Rep)
		}
	}
	if firstOpen == math.MaxInt {
		return last
	}
	return firstOpen - 1
}

// EndRound judges the matrix when a round has just completed: it returns
// the round's line and whether the rule has ended the matrix, in which
// case every cell not yet started is marked skipped. Call it after each
// cell's Finish and Save; it saves the plan itself when it changed it.
func (m *Matrix) EndRound(judge Judge) (line string, stopped bool, err error) {
	u := m.Until
	if u == nil || u.Stopped {
		return "", u != nil && u.Stopped, nil
	}
	k := m.CompletedRounds()
	if k <= u.Judged {
		return "", false, nil
	}
	sts, err := judge(m.Dir(), k)
	if err != nil {
		return "", false, fmt.Errorf("matrix: judge round %d: %w", k, err)
	}
	stop, why := stats.RuleOf(u).Stop(k, sts)
	line = fmt.Sprintf("round %d: %s: %s", k, statusWords(sts), why)
	u.Judged, u.Lines = k, append(u.Lines, line)
	if stop {
		u.Stopped, u.Why = true, why
		for i := range m.Cells {
			if c := &m.Cells[i]; c.State == Pending || c.State == Interrupted {
				c.State, c.Error = Skipped, "not needed: "+why
			}
		}
	}
	if err := m.Save(); err != nil {
		return line, stop, err
	}
	return line, stop, nil
}

// judgeRound runs EndRound after a cell and prints its line. A judge that
// fails (a report that cannot be built yet) costs precision, not the
// matrix: the cells go on, up to MaxRounds.
func (m *Matrix) judgeRound(judge Judge, logf func(string, ...any)) {
	if m.Until == nil || judge == nil {
		return
	}
	line, _, err := m.EndRound(judge)
	switch {
	case err != nil:
		logf("matrix: %v (going on)", err)
	case line != "":
		logf("matrix: %s", line)
	}
}

// statusWords is "rocksdb/innodb 0.74x [0.70, 0.78] half-width 5.4%" per
// comparison.
func statusWords(sts []stats.Status) string {
	if len(sts) == 0 {
		return "no comparison yet"
	}
	parts := make([]string, len(sts))
	for i, s := range sts {
		switch {
		case s.Err != nil:
			parts[i] = fmt.Sprintf("%s %v", s.Label, s.Err)
		case s.Interval.Unbounded:
			parts[i] = fmt.Sprintf("%s %s, interval unbounded", s.Label, analyse.Ratio(s.Ratio))
		default:
			parts[i] = fmt.Sprintf("%s %s half-width %.1f%%", s.Label, render.RatioWithin(s.Ratio, s.Interval.Low, s.Interval.High), 100*s.HalfWidth)
		}
		if s.Outcome != "" && s.Outcome != stats.NotComparable {
			parts[i] += " (" + string(s.Outcome) + ")"
		}
	}
	return strings.Join(parts, "; ")
}
