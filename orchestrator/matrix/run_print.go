package matrix

import (
	"fmt"
	"path/filepath"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/fairness"
	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/stats"
	"github.com/orch-bench/orch/topology"
)

// lint prints the plan's fairness warnings for inv and refuses a
// durability asymmetry, or any a knob makes for one engine only, unless
// allowed. hint names the servers' flavour ("" for the inventory's);
// without one the lint waits for the servers (linted false, said on Err),
// so that an inventory without mysql.flavor still runs.
func (u *useCase) lint(inv *topology.Inventory, m *Matrix, hint string) (linted bool, err error) {
	ws, err := Fairness(inv, m, hint)
	if err != nil {
		if hint == "" {
			fmt.Fprintf(u.Err, "matrix: fairness checked once the servers are known (%v)\n", err)
			return false, nil
		}
		return false, fmt.Errorf("matrix: fairness: %w", err)
	}
	if err := WriteFairness(u.Out, ws); err != nil {
		return true, err
	}
	if w, refused := fairness.Refusal(ws); refused && !u.AllowAsymmetry {
		if w.Knob != nil {
			return true, orchestrator.BadInputf("matrix: %s", w.Knob.Line(w))
		}
		return true, orchestrator.BadInputf("matrix: the configurations differ in durability beyond the matrix's axes (ASYMMETRY above): fix the profiles or pass --allow-asymmetry")
	}
	return true, nil
}

// planNoiseFloor records in a new matrix the A/A matrix its report holds
// verdicts against: the one NoiseFloor names (checked now, before any
// host), the newest finished A/A of the workload under Root (auto), or
// none. An A/A matrix has none: it measures one.
func (u *useCase) planNoiseFloor(m *Matrix) error {
	flag := u.NoiseFloor
	if m.AA || flag == NoiseFloorNone {
		return nil
	}
	dir := flag
	if flag == NoiseFloorAuto || flag == "" {
		if dir = FindNoiseFloor(u.Root, m.Workload); dir == "" {
			// No A/A: the newest earlier matrix of the workload still
			// says how much its runs varied.
			if earlier := FindEarlier(u.Root, m.Workload); earlier != "" {
				u.expectRounds(m, earlier, "the runs of "+filepath.Base(earlier)+", an earlier matrix of the workload,")
			}
			return nil
		}
	} else if _, err := CheckNoiseFloor(dir); err != nil {
		return orchestrator.BadInputf("matrix: --noise-floor: %v", err)
	}
	if err := m.SetNoiseFloor(dir, u.Root); err != nil {
		return orchestrator.BadInputf("matrix: --noise-floor %s: %v", dir, err)
	}
	fmt.Fprintf(u.Out, "Noise floor: A/A matrix %s (the report says which verdicts lie inside it)\n", m.NoiseFloor)
	u.expectRounds(m, dir, "the noise floor's runs")
	return nil
}

// expectRounds prints what a precision rule will take, from the CV of the
// runs of the matrix in dir (whose words name them).
func (u *useCase) expectRounds(m *Matrix, dir, whose string) {
	r := m.Until
	if r == nil || r.Precision <= 0 {
		return
	}
	cv, err := judge.NoiseCV(dir)
	if err != nil || !(cv > 0) {
		return
	}
	n, ok := stats.ExpectedRounds(cv, r.Precision, r.MinRounds, r.MaxRounds)
	word := fmt.Sprintf("about %d rounds", n)
	if !ok {
		word = fmt.Sprintf("more than --max-repeat %d rounds", r.MaxRounds)
	}
	fmt.Fprintf(u.Out, "Expected: %s to reach ±%g%% (%s vary by CV %.1f%%)\n", word, 100*r.Precision, whose, 100*cv)
}

// writeEnd is the matrix's closing count, why its rule stopped, and which
// clusters of a design were taken out.
func (u *useCase) writeEnd(m *Matrix) {
	w := u.Out
	if m.Design != nil {
		fmt.Fprintf(w, "matrix: %d clusters (seed %d)\n", len(m.Design.Blocks), m.Design.Seed)
	}
	line := fmt.Sprintf("matrix %s: %d ok, %d failed, %d not run", m.Dir(), m.Count(OK), m.Count(Failed), len(m.Remaining()))
	if n := m.Count(Skipped); n > 0 {
		line += fmt.Sprintf(", %d not needed", n)
	}
	fmt.Fprintln(w, line)
	if r := m.Until; r != nil && r.Stopped {
		fmt.Fprintf(w, "matrix: %s\n", r.Why)
	}
	if m.Design == nil {
		return
	}
	for _, b := range m.Design.Blocks {
		if b.Failed != "" {
			fmt.Fprintf(w, "matrix: cluster %s was taken out: %s\n", b.Cluster, b.Failed)
		}
	}
}

// writeReport writes report.md, report.html and results.csv into the
// matrix directory, as `orch report DIR` would, and prints the verdicts.
func (u *useCase) writeReport(dir string) error {
	formats := []string{render.FormatMarkdown, render.FormatHTML, render.FormatCSV}
	rep, paths, err := render.Generate([]string{dir}, dir, formats, analyse.Options{AllowMixed: u.AllowMixed})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	// The verdicts (and fairness warnings), where they are, and last the
	// answer, as the report's head gives it.
	fmt.Fprint(u.Out, render.Summary(rep))
	fmt.Fprintln(u.Out, "report: "+render.WrittenLine(paths))
	fmt.Fprint(u.Out, render.AnswerText(rep))
	return nil
}
