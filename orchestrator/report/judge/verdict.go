package judge

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// Confidence is 1-alpha as a percentage: 0.025 -> "97.5%".
func Confidence(alpha float64) string {
	return strconv.FormatFloat(100*(1-alpha), 'g', 4, 64) + "%"
}

// Verdict words a comparison the way engineers say it, with everything a
// reviewer needs on the same line:
//
//	rocksdb: 0.79x innodb writes/s (client) [0.76, 0.82] (p=0.003,
//	significant), 0.45x sustained [0.41, 0.49] (an estimate with its 95%
//	interval, not tested); replicas applied 0.25x (lag grew 2.6k tx/s,
//	catch-up 38 s): not sustained
func Verdict(t *Table, base, g *Group, noEffect map[string]string) string {
	switch {
	case g.Rate.N == 0:
		return fmt.Sprintf("%s: no run ended ok, nothing to compare", g.Label)
	case base.Rate.N == 0:
		return fmt.Sprintf("%s: the baseline %s has no run that ended ok, nothing to compare with", g.Label, base.Label)
	}
	if len(g.NoEffect) > 0 {
		why := make([]string, len(g.NoEffect))
		for i, k := range g.NoEffect {
			why[i] = k
			if r := noEffect[k]; r != "" {
				why[i] += ": " + r
			}
		}
		return fmt.Sprintf("%s: no effect on this server (%s); %s %s %s is noise, not a finding",
			g.Label, strings.Join(why, "; "), analyse.Ratio(g.Ratio), base.Label, t.Metric)
	}
	// The test's p goes right after the figure it tests (the master's
	// rate), never after the replicas' words, where "not sustained (p=...)"
	// read as a test of sustainability.
	sig := " (" + Significance(g.Test, g.TestErr)
	if g.UTest != nil {
		sig += "; Mann-Whitney " + PValue(g.UTest.P)
	}
	sig += ")"
	var b strings.Builder
	b.WriteString(g.Label + ": " + t.ratioPhrase(base, g, sig))
	if analyse.Known(g.Replica) && analyse.Known(base.Replica) {
		// The applied ratio is the Replicas line's (one figure, printed
		// there); here whether the runs kept up.
		fmt.Fprintf(&b, "; replicas: %s", RunsPhrase(g.ReplicaRuns))
		if !g.KeptUp {
			b.WriteString(": not sustained")
		}
		if !base.KeptUp {
			fmt.Fprintf(&b, "; %s's replicas: %s", base.Label, RunsPhrase(base.ReplicaRuns))
		}
	}
	if g.Noisy || base.Noisy {
		b.WriteString("; " + noisePhrase(base, g))
	}
	if w := g.OutcomeWords(base, t.Until); w != "" {
		b.WriteString("; " + w)
	}
	if g.RepsNeeded > 0 && g.RepsNeeded > min(g.Rate.N, base.Rate.N) {
		fmt.Fprintf(&b, "; about %d runs per configuration would resolve this difference", g.RepsNeeded)
	}
	if k := g.Flagged() + base.Flagged(); k > 0 {
		fmt.Fprintf(&b, "; %s flagged for a broken invariant (Runs table)", Plural(k, "run"))
	}
	if n := min(g.Rate.N, base.Rate.N); n < 3 {
		fmt.Fprintf(&b, "; caveat: n=%d, too few runs to judge the noise", n)
	}
	return b.String()
}

// ratioPhrase is "0.79x innodb writes/s (client) [0.76, 0.82]" and
// the test's words sig, with the sustained ratio too as the headline
// option says (an estimate with its interval: the test is of the master's
// rate), or for a time metric "took 1.91x innodb's time [1.52, 2.40]".
func (t *Table) ratioPhrase(base, g *Group, sig string) string {
	if t.LowerIsBetter {
		return fmt.Sprintf("took %s %s's time%s", analyse.Ratio(g.Ratio), base.Label, CIPhrase(g.RatioCI, g.RatioCIErr)) + sig
	}
	master := fmt.Sprintf("%s %s %s", analyse.Ratio(g.Ratio), base.Label, t.Metric)
	if !analyse.Known(g.Replica) || !analyse.Known(base.Replica) {
		return master + CIPhrase(g.RatioCI, g.RatioCIErr) + sig
	}
	commits := masterCommits(base, g)
	master += " (client)" + CIPhrase(g.RatioCI, g.RatioCIErr) + sig + commits
	if math.IsNaN(g.SustainedRatio) {
		return master // no catch-up measured: no sustained rate
	}
	estimate := CIPhrase(g.SustainedCI, g.SustainedCIErr)
	if g.SustainedCI != nil {
		estimate += " (an estimate with its interval, not tested)"
	}
	switch t.Headline {
	case analyse.HeadlineMaster:
		return master
	case analyse.HeadlineSustained:
		return fmt.Sprintf("%s %s %s sustained%s; client %s%s%s%s", analyse.Ratio(g.SustainedRatio), base.Label, t.Metric, estimate,
			analyse.Ratio(g.Ratio), CIPhrase(g.RatioCI, g.RatioCIErr), sig, commits)
	}
	return master + ", " + analyse.Ratio(g.SustainedRatio) + " sustained" + estimate
}

// masterCommits is ", master commits 0.744x" when the master's commit
// rate compares otherwise than the client's count (the verdict's ratio,
// which the test is of): a client's writes/s and the master's commits/s
// are two quantities, and where they differ the line says which is which;
// "" when they print alike or the master's rate is not known.
func masterCommits(base, g *Group) string {
	if base.Replica.MasterTxPS <= 0 || math.IsNaN(g.Replica.MasterTxPS) {
		return ""
	}
	m := analyse.Ratio(g.Replica.MasterTxPS / base.Replica.MasterTxPS)
	if m == analyse.Ratio(g.Ratio) || m == analyse.Ratio(math.NaN()) {
		return ""
	}
	return ", master commits " + m
}

// CIPhrase is " [0.760, 0.820]" (the ratio's digits, Ratio), " [CI unbounded]" or "" (too few runs).
func CIPhrase(ci *analyse.RatioCI, err error) string {
	switch {
	case ci != nil:
		// Rates are never negative: a lower bound below 0 (the numerator's
		// mean not significantly above 0) reads as 0.
		s := " " + RatioInterval(ci.Low, ci.High)
		if ci.Level > 0 && ci.Level < analyse.Alpha {
			s += " (" + Confidence(ci.Level) + " CI, Holm)"
		}
		return s
	case errors.Is(err, analyse.ErrUnbounded):
		return " [95% CI unbounded]"
	case errors.Is(err, stats.ErrZeroBaseline):
		return " (" + err.Error() + ")"
	}
	return ""
}

// catchingUp is the share of the master's rate by which a slave's lag
// must fall through the window for it to be said to be catching up: its
// apply rate is then its backlog's, above what the master asked of it.
const catchingUp = 0.02

// caughtUpInWindow: the slowest slave's lag fell through the window by
// more than catchingUp of the master's rate.
func caughtUpInWindow(f load.ReplicaFigures) bool {
	return !math.IsNaN(f.LagGrowthTxPS) && f.MasterTxPS > 0 && -f.LagGrowthTxPS > catchingUp*f.MasterTxPS && !math.IsNaN(f.LagEndTx)
}

// ReplicaText sums up a configuration's replicas for the console.
func ReplicaText(g *Group) string {
	f := g.Replica
	s := fmt.Sprintf("replicas applied %s tx/s (master %s tx/s; %s)", Kilo(f.ApplyTxPS), Kilo(f.MasterTxPS), RunsPhrase(g.ReplicaRuns))
	if !g.KeptUp {
		s += ": not sustained"
	}
	return s
}

// Kilo formats a count readably: 875, 2.6k, 1.2M.
func Kilo(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v):
		return "—"
	case a < 1000:
		return fmt.Sprintf("%.0f", v)
	case a < 1e6:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e3), ".0") + "k"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v/1e6), ".0") + "M"
}

// secs formats a duration in seconds: "38 s", "2.5 s", "1 ms".
func secs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v < 0.0005:
		return "<1 ms"
	case v < 0.1:
		return fmt.Sprintf("%.0f ms", v*1000)
	case v < 10:
		return fmt.Sprintf("%.1f s", v)
	}
	return fmt.Sprintf("%.0f s", v)
}

// Pct formats a fraction as a percentage, a round one without its
// decimal: "7.2%", "5%" (a rule's threshold; a CV).
func Pct(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", 100*v), ".0") + "%"
}

// MetricWords names the metric with its direction.
func (t *Table) MetricWords() string {
	if t.LowerIsBetter {
		return t.Metric + ", lower is better"
	}
	return t.Metric
}
