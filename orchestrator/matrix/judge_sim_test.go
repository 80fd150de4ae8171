package matrix

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// TestJudgeMatchesEvaluate is why the stopping-rule simulation
// (stats.TestStoppingRuleErrorRates, through stats.Rule.Evaluate and
// stats.Rule.Stop) measures the code a matrix runs: a matrix decides with
// the same Rule.Stop (stats.RuleOf(Until) is the stats.Rule of its flags),
// given the statuses report.JudgeMatrix reads from its cells' results. On
// simulated campaigns at the lab's CV, for each rule the simulation runs,
// every round's report statuses (ratio, interval, half-width, outcome)
// equal Evaluate's on the same runs, and EndRound stops the matrix on the
// round the simulation's Stop does, with the same words.
func TestJudgeMatchesEvaluate(t *testing.T) {
	rules := []Until{
		{Precision: 0.10, MinRounds: 3, MaxRounds: 6},
		{Precision: 0.10, MinRounds: 3, MaxRounds: 4},
		{Goal: stats.GoalSignificant, MinRounds: 3, MaxRounds: 6},
	}
	rng := rand.New(rand.NewPCG(7, 11))
	// The design's analysis (blocked by round) and the other one
	// pre-registered in matrix.json.
	for _, analysis := range []string{"", stats.AnalysisUnpaired} {
		for _, u := range rules {
			for _, cv := range []float64{0.10, 0.13} {
				for _, ratio := range []float64{1, 1.05} {
					for i := 0; i < 2; i++ {
						u := u
						name := fmt.Sprintf("%+v --analysis %q cv %g ratio %g #%d", u, analysis, cv, ratio, i)
						judgeCampaign(t, name, &u, analysis, cv, ratio, rng)
					}
				}
			}
		}
	}
}

// judgeCampaign runs one simulated campaign as a matrix (innodb the
// baseline, rocksdb the other, each cell's results.json holding its run's
// rate) and checks each round's judge against stats.
func judgeCampaign(t *testing.T, name string, u *Until, analysis string, cv, ratio float64, rng *rand.Rand) {
	t.Helper()
	m, err := New("w", []string{"innodb", "rocksdb"}, nil, u.MaxRounds)
	if err != nil {
		t.Fatal(err)
	}
	m.Until, m.Analysis = u, analysis
	if _, err := Create(t.TempDir(), m, time.Unix(1_800_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	rule := stats.RuleOf(u)
	want := stats.Rule{Precision: u.Precision, MinRounds: u.MinRounds, MaxRounds: u.MaxRounds, Goal: u.Goal, Alpha: stats.Alpha}
	if rule != want {
		t.Fatalf("%s: stats.RuleOf %+v, want %+v", name, rule, want)
	}
	rule.Analysis = analysis // matrix.json's, beside its rule
	runs, blocks := map[string][]float64{}, map[string][]stats.Block{}
	judged := 0
	for {
		c, ok := m.Next()
		if !ok {
			break
		}
		now := time.Unix(1_800_000_000, 0)
		if err := m.Start(c.ID, now); err != nil {
			t.Fatal(err)
		}
		mean := 1000.0
		if c.Engine == "rocksdb" {
			mean *= ratio
		}
		v := mean * (1 + cv*stats.HeavyTailed(rng))
		runs[c.Engine] = append(runs[c.Engine], v)
		blocks[c.Engine] = append(blocks[c.Engine], stats.Block{Round: c.Rep})
		writeCell(t, m, c.ID, c.Engine, v)
		if err := m.Finish(c.ID, OK, nil, now); err != nil {
			t.Fatal(err)
		}
		if err := m.Save(); err != nil {
			t.Fatal(err)
		}
		k := m.CompletedRounds()
		line, stopped, err := m.EndRound(judge.JudgeMatrix)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Below --min-repeat the line is for the console only (Stop does
		// not stop there, and a significance rule has spent nothing yet:
		// the report prints the first round's level, Evaluate 0).
		if line == "" || k < u.MinRounds {
			continue
		}
		judged = k
		got, err := judge.JudgeMatrix(m.Dir(), k)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s round %d: %v %+v", name, k, err, got)
		}
		ev := rule.Evaluate(k, []stats.Comparison{{Label: "rocksdb/innodb", Other: runs["rocksdb"], Base: runs["innodb"],
			OtherBlocks: blocks["rocksdb"], BaseBlocks: blocks["innodb"]}})
		if want := rule.AnalysisOf(true); got[0].Analysis != want || ev[0].Analysis != want {
			t.Errorf("%s round %d: analysed %s (report) and %s (Evaluate), want %s", name, k, got[0].Analysis, ev[0].Analysis, want)
		}
		if !sameStatus(got[0], ev[0]) {
			t.Errorf("%s round %d:\n report %+v\nEvaluate %+v", name, k, got[0], ev[0])
		}
		stop, why := rule.Stop(k, ev)
		if stop != stopped || !endsWith(line, why) {
			t.Errorf("%s round %d: matrix %v %q, simulation %v %q", name, k, stopped, line, stop, why)
		}
	}
	if judged < u.MinRounds {
		t.Errorf("%s: judged %d rounds", name, judged)
	}
}

// sameStatus compares what the rule reads from a status. One difference
// is by design: an unbounded interval (the baseline's mean not
// significantly above 0, at two or three heavy-tailed runs) is
// (-Inf, +Inf) in the report, while Evaluate keeps its finite side, if
// any; both have an infinite half-width and the same outcome, and the
// simulation's coverage counts such an interval only when its finite side
// holds the truth (so it is, if anything, below the report's).
func sameStatus(a, b stats.Status) bool {
	near := func(x, y float64) bool {
		// Both NaN: neither side could compute it (a heavy-tailed draw
		// below 0 has no log ratio), and both say why in Err.
		return x == y || (math.IsNaN(x) && math.IsNaN(y)) || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
	}
	same := a.Label == b.Label && a.N == b.N && a.NBase == b.NBase && near(a.Ratio, b.Ratio) &&
		near(a.HalfWidth, b.HalfWidth) && a.Outcome == b.Outcome && a.Interval.Unbounded == b.Interval.Unbounded &&
		a.Decision.Significant == b.Decision.Significant && near(a.Decision.P, b.Decision.P) && near(a.Decision.Alpha, b.Decision.Alpha)
	if a.Interval.Unbounded {
		return same
	}
	return same && near(a.Interval.Low, b.Interval.Low) && near(a.Interval.High, b.Interval.High) && near(a.Interval.Alpha, b.Interval.Alpha)
}

func endsWith(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

// writeCell writes a cell's run: a sysbench result whose rate is v.
func writeCell(t *testing.T, m *Matrix, id, engine string, v float64) {
	t.Helper()
	dir, err := m.CellDir(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"manifest.json": fmt.Sprintf(`{"status": "ok", "engine": %q, "workload": {"Name": "w"}}`, engine),
		"results.json":  fmt.Sprintf(`{"workload": "w", "tool": "sysbench", "engine": %q, "benchmark": {"tool": "sysbench", "complete": true, "tps": %v, "qps": %v}}`, engine, v, v),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
