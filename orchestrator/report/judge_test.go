package report

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/schema"
	"github.com/orch-bench/orch/orchestrator/stats"
)

// A matrix whose stopping rule ended it after 2 rounds: the third round's
// cells are skipped and left out, the head says why it stopped, and the
// rule's judge sees exactly the interval the report prints.
func TestMatrixWithStoppingRule(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m")
	copyDir(t, "testdata/matrix", dir)
	// The fixture's first cell ran 15 s, the others 10 s: make them
	// comparable, as one matrix's cells are.
	man := filepath.Join(dir, "cells", "01-innodb-r1", "manifest.json")
	mb, err := os.ReadFile(man)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(man, []byte(strings.Replace(string(mb), `"TimeS": 15`, `"TimeS": 10`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, load.FileMatrix)
	var m map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	cells := m["cells"].([]any)
	for _, label := range []string{"innodb", "rocksdb"} {
		cells = append(cells, map[string]any{"id": "0x-" + label + "-r3", "label": label, "engine": label, "rep": 3,
			"state": "skipped", "error": "not needed", "dir": "cells/0x-" + label + "-r3"})
	}
	m["cells"] = cells
	m["until"] = map[string]any{"precision": 0.5, "min_rounds": 2, "max_rounds": 3, "equivalence": 0.9,
		"rounds_judged": 2, "stopped": true, "why": "stopped after 2 rounds: every interval's half-width is within 50%"}
	out, _ := json.Marshal(m)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if in.Skipped != 2 {
		t.Errorf("skipped %d, want 2", in.Skipped)
	}
	rep, err := judge.Build(in, analyse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	head := strings.SplitN(md.String(), "\n## ", 2)[0]
	// The matrix stopped on its round-2 judgement; this report judges the
	// rounds by blocks (the design's analysis), which stops on precision
	// from round stats.MinBlockedRounds only: the line says both.
	if !strings.Contains(head, "Stopping rule: the matrix stopped (stopped after 2 rounds: every interval's half-width is within 50%); judged by this report after 2 rounds: going on: ") ||
		!strings.Contains(head, " (rounds 2-3, blocked analysis) (2 planned cell(s) not needed)") {
		t.Errorf("head lacks the rule:\n%s", head)
	}
	for _, r := range rep.Tables[0].Runs {
		if strings.HasPrefix(r.ID, "0x-") {
			t.Errorf("skipped cell %s is in the table", r.ID)
		}
	}
	sts, err := judge.JudgeMatrix(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	var g *judge.Group
	for _, x := range rep.Tables[0].Groups {
		if x.Label == "rocksdb" {
			g = x
		}
	}
	if len(sts) == 0 || g == nil {
		t.Fatalf("statuses %+v, group %v", sts, g)
	}
	s := sts[0]
	if s.Label != "rocksdb/innodb" || s.Ratio != g.Ratio {
		t.Errorf("status %+v vs group ratio %v", s, g.Ratio)
	}
	if g.RatioCI != nil && (s.Interval.Low != g.RatioCI.Low || s.Interval.High != g.RatioCI.High) {
		t.Errorf("judge's interval [%v, %v], report's [%v, %v]", s.Interval.Low, s.Interval.High, g.RatioCI.Low, g.RatioCI.High)
	}
	if !strings.Contains(g.Verdict, "±90%") {
		t.Errorf("verdict lacks the equivalence outcome: %s", g.Verdict)
	}
}

// The pooled CV of the A/A fixture's arms, recomputed from their runs.
func TestNoiseCV(t *testing.T) {
	root := t.TempDir()
	dir := aaFixture(t, root)
	cv, err := judge.NoiseCV(dir)
	if err != nil {
		t.Fatal(err)
	}
	in, err := load.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := judge.Build(in, analyse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Each arm's CV by hand: the sample sd (n-1) over the mean.
	var sq []float64
	for _, g := range rep.Tables[0].Groups {
		mean, ss := 0.0, 0.0
		for _, x := range g.Steady {
			mean += x / float64(len(g.Steady))
		}
		for _, x := range g.Steady {
			ss += (x - mean) * (x - mean)
		}
		c := math.Sqrt(ss/float64(len(g.Steady)-1)) / mean
		sq = append(sq, c*c)
	}
	want := math.Sqrt((sq[0] + sq[1]) / 2)
	if math.Abs(cv-want) > 1e-12 || !(cv > 0) {
		t.Errorf("NoiseCV = %v, want %v", cv, want)
	}
}

// Under a significance rule a table decides at its round's share of the
// 5%, the same level the rule judged that round at.
func TestSignificanceRuleLevel(t *testing.T) {
	u := &load.UntilDoc{Until: schema.Until{Goal: stats.GoalSignificant, MinRounds: 3, MaxRounds: 5, Judged: 4}}
	tb := &judge.Table{Until: u}
	if got, want := tb.FamilyAlpha(), stats.RuleOf(&u.Until).Level(4); got != want || got >= analyse.Alpha {
		t.Errorf("report level %v, rule's round-4 level %v", got, want)
	}
	u.Round = 5
	if got := tb.FamilyAlpha(); got != stats.RuleOf(&u.Until).Level(5) {
		t.Errorf("judging round 5 at %v", got)
	}
	if got := (&judge.Table{Until: &load.UntilDoc{Until: schema.Until{Precision: 0.1, MinRounds: 3, MaxRounds: 5, Judged: 4}}}).FamilyAlpha(); got != analyse.Alpha {
		t.Errorf("precision rule level %v", got)
	}
}
