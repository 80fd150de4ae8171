package render

import (
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/load"
)

// WriteMarkdown writes report.md; plots are referenced as plots/<name>.svg
// (Write puts them there).
func WriteMarkdown(rep *judge.Report, w io.Writer) error {
	if err := DrawPlots(rep); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# Benchmark report\n\n")
	for _, t := range rep.Tables {
		if len(rep.Tables) > 1 {
			b.WriteString(md(AnswerFor(t)) + ":\n\n")
		}
		for _, l := range TableAnswer(t) {
			b.WriteString("- " + md(l) + "\n")
		}
		b.WriteString("\n")
		if set := Setting(rep, t); len(set) > 0 {
			for _, l := range set {
				b.WriteString(md(l) + "  \n")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(mdContents(rep) + "\n")
	b.WriteString("## Method\n\n")
	for _, l := range preamble(rep, mdCode) {
		b.WriteString(l + "\n\n")
	}
	if len(rep.NoEffect) > 0 {
		b.WriteString("## Knobs with no effect on this server\n\n")
		for _, ne := range rep.NoEffect {
			fmt.Fprintf(&b, "- %s: no effect on this server (%s). Differences between settings of it are noise, not findings.\n", mdCode(ne[0]), md(ne[1]))
		}
		b.WriteString("\n")
	}
	for _, t := range rep.Tables {
		reportMdTable(rep, &b, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// preamble explains the method in a few lines, shared by md and html.
func preamble(rep *judge.Report, code func(string) string) []string {
	src := make([]string, len(rep.Sources))
	for i, s := range rep.Sources {
		src[i] = code(s)
	}
	out := []string{"Inputs: " + strings.Join(src, ", ") + "."}
	if w := warmupSummary(rep); w != "" {
		out = append(out, w)
	}
	if w := rep.WindowSummary(); w != "" {
		out = append(out, w)
	}
	if w := rep.SteadySummary(); w != "" {
		out = append(out, w)
	}
	out = append(out,
		"Steady-state rate: the mean of the client's per-second interval rates in the window; the tool's final figure when it printed none. "+
			"Latency in the window: avg is the client threads over its transaction rate there (Little's law: in a closed loop every thread always has one transaction in flight; "+
			"none for a --rate run), pNN the mean of the client's per-second pNN there (the client prints no distribution per interval, so it is not the window's own percentile); "+
			"a configuration's are the means of its runs'. The client's whole-run summary (warm-up included) is only in results.csv, named so. "+
			"Lag in seconds is the slaves' Seconds_Behind_Master, a whole-second counter: <1 s is a slave transactions behind while it read 0. "+
			"Invariants checked per run (flagged in the Runs table and results.csv, never averaged silently): every interval printed, "+
			"sustained <= steady, the client's and the master's rates agree, catch-up consistent with the final lag and the apply rates seen.",
		fmt.Sprintf("Statistics: over the runs that ended ok; sd is the sample standard deviation, the 95%% CI of a mean uses Student's t; "+
			"one decision rule: a comparison is significant exactly when its interval of the ratio excludes 1 (its analysis is stated below); unpaired, that is Fieller's interval, every ratio r that Welch's test of a - r·b does not reject at %.2f "+
			"(the Welch-Satterthwaite degrees of freedom of each r, so at r = 1 it is Welch's t-test of equal means, whose p is printed); "+
			"with several configurations against one baseline the level is Holm's step-down, and each interval is printed at its comparison's level; "+
			"CV above %s is flagged noisy, with the runs per configuration the stated analysis would need to resolve the difference (80%% power, Student's t: unpaired, Welch's test of n runs a side; blocked, n rounds from the rounds' log ratios' spread; not given over several clusters); "+
			"with at least %d runs on both sides, the median and a Mann-Whitney U test too.", analyse.Alpha, judge.Pct(analyse.MaxCV), analyse.MinMannWhitney),
	)
	return append(out, rep.AnalysisLines()...)
}

func reportMdTable(rep *judge.Report, b *strings.Builder, t *judge.Table) {
	fmt.Fprintf(b, "## %s (%s, %s)\n\n", md(t.Workload), md(t.Tool), md(t.Metric))
	fmt.Fprintf(b, "Baseline: **%s**", md(t.Baseline.Label))
	if t.BaselineNote != "" {
		fmt.Fprintf(b, " (%s)", md(t.BaselineNote))
	}
	b.WriteString("\n\n")
	if vs := verdicts(t); len(vs) > 0 {
		for _, v := range vs {
			b.WriteString("- " + md(v) + "\n")
		}
		b.WriteString("\n")
	}
	if fl := t.FairnessLines(); len(fl) > 0 {
		b.WriteString("Fairness: differences between the configurations that are not on the comparison's axes:\n\n")
		for _, l := range fl {
			b.WriteString("- " + md(l) + "\n")
		}
		b.WriteString("\n")
	} else if len(t.Groups) > 1 && t.HasVariables() {
		b.WriteString("Fairness: no durability, caching or IO difference between the configurations beyond their axes.\n\n")
	}
	for _, l := range Head(rep, t) {
		b.WriteString("- " + md(l) + "\n")
	}
	b.WriteString("\n")
	// The configurations' tables first, the diagnostics after them.
	mdSections(b, t)
	b.WriteString("\n")
	mdWhy(rep, b, t)
	if len(t.Plots) > 0 {
		b.WriteString("\n### Plots\n\n")
		b.WriteString(shadingNote + "\n\n")
		for _, p := range t.Plots {
			fmt.Fprintf(b, "![%s](%s)\n\n", md(p.Title), path.Join(load.PlotsDir, p.Name+".svg"))
		}
	}
	mdEvidence(rep, b, t)
}

// shadingNote explains the shaded bands of the time charts.
const shadingNote = "Each configuration has one colour in every chart; a time chart's thick line is the mean of its runs at each second, the faint lines each run. Shaded: semi-sync off (orange), stalls (red), faults (purple), replica stopped or host not answering (grey), stack samples (yellow: taken in a profiling tail after the load unless the run sampled inside it, as older runs did; a gdb sample pauses the server, so one inside the load is left out of every figure); the periods of all the runs merged, so a shade never darkens over the lines; " +
	"the dashed line ends the warm-up. The latency chart has a log scale. Time counts from the monitors' start, right before the benchmark."

func verdicts(t *judge.Table) []string {
	var out []string
	for _, g := range t.Groups {
		if g.Verdict != "" {
			out = append(out, g.Verdict)
			// A caveat that limits the verdict goes right under it.
			out = append(out, t.Caveats(t.Baseline, g)...)
		}
	}
	if t.Floor != nil {
		out = append(out, t.Floor.Note())
	}
	if l := t.RuleLine(); l != "" {
		out = append(out, l)
	}
	return out
}

func groupHeader(t *judge.Table) []string {
	p := PctlName(pctl(t))
	return []string{"configuration", "n", t.Metric + " mean", "sd", "95% CI", "median", "CV", "vs baseline", "ratio 95% CI", "p",
		"avg ms in the window (mean of runs)", p + " ms in the window (mean of runs)", "errors", "tables MiB", "on disk MiB", "space amp", "binlog MiB", "relay MiB", "datadir MiB",
		"async s / no_tx", "max lag s / tx (whole run)", "consistency"}
}

func groupRows(t *judge.Table) [][]string {
	var rows [][]string
	for _, g := range t.Groups {
		ratio, p := "baseline", ""
		if g != t.Baseline {
			ratio, p = analyse.Ratio(g.Ratio), pText(g)
			if len(g.NoEffect) > 0 {
				p = "no effect on this server"
			}
		}
		rows = append(rows, []string{g.Label, judge.NText(g), analyse.Num(g.Rate.Mean, 2), analyse.Num(g.Rate.SD, 2), CI(g.Rate, 2),
			analyse.Num(g.Median, 2), cvText(g), ratio, ratioCIText(g, t.Baseline), p, analyse.Num(g.WinLatAvg, 2), analyse.Num(g.WinLatPct, 2), analyse.Num(g.Errors, 0),
			mib(g.TableBytes), mib(g.DiskBytes), analyse.Num(g.SpaceAmp, 2), mib(g.BinlogBytes), mib(g.RelayBytes), mib(g.DatadirBytes),
			semiText(g.FallbackS, g.NoTx), LagText(g.MaxLagS, g.MaxLagTx), judge.Dash(g.Consistency)})
	}
	return rows
}

// statCols is how many of the configuration columns hold the rate
// statistics; the others (latency, footprint, health) make a second table
// so that neither is wider than a page.
const statCols = 10

// colsOf keeps columns [from, to) of each row.
func colsOf(rows [][]string, from, to int) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = r[from:to:to]
	}
	return out
}

// healthCols keeps the label and the columns after statCols.
func healthCols(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = append(r[:1:1], r[statCols:]...)
	}
	return out
}

func runHeader(t *judge.Table) []string {
	p := PctlName(pctl(t))
	return []string{"run", "configuration", "rep", "state", "invariants", t.Metric + " steady", "from", "catch-up s", "avg ms in the window", p + " ms in the window", "errors", "async s / no_tx", "max lag s / tx (whole run)", "consistency"}
}

func runRows(t *judge.Table) [][]string {
	var rows [][]string
	for _, r := range t.Runs {
		v, how := t.SteadyOf(r)
		b := r.Bench
		if b == nil {
			b = &load.Bench{LatAvg: load.NaN(), LatPct: load.NaN(), LatMax: load.NaN(), Errors: load.NaN()}
		}
		rep := "—"
		if r.Rep > 0 {
			rep = strconv.Itoa(r.Rep)
		}
		state := judge.Dash(r.State)
		if r.State == "" {
			state = "parsed log"
		}
		if r.Error != "" && r.Error != r.State {
			state += ": " + r.Error
		}
		h := r.Health
		rows = append(rows, []string{r.ID, r.Label, rep, state, judge.FlagText(r), judge.SteadyCell(v, r), judge.Dash(steadyText(how, r)), secsCell(r.Repl.CatchUpS),
			analyse.Num(b.WindowLatAvg(r.Win), 2), analyse.Num(b.WindowLat(r.Win), 2), analyse.Num(b.Errors, 0),
			semiText(h.FallbackS, h.NoTx), LagText(h.MaxLagS, h.MaxLagTx), judge.Dash(h.Consistency)})
	}
	return rows
}

func mdRows(b *strings.Builder, header []string, rows [][]string) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdCell(c) + " |")
		}
		b.WriteString("\n")
	}
	line(header)
	b.WriteString("|" + strings.Repeat(" --- |", len(header)) + "\n")
	for _, r := range rows {
		line(r)
	}
}

// mdEvidence lists per run what differs from the baseline run: versions,
// host facts, rendered config and server variables.
func mdEvidence(rep *judge.Report, b *strings.Builder, t *judge.Table) {
	base := t.BaselineRun()
	if base == nil {
		return
	}
	b.WriteString("\n### Evidence\n\n")
	fmt.Fprintf(b, "Compared with the baseline run %s. The HTML report has every run's full versions and host facts. "+
		"Runs whose differences from it are the same are shown once, together.\n\n", md(base.ID))
	// Identical blocks (the same config and variable differences, as with
	// every repetition of one configuration) are shown once, headed by
	// every run they apply to.
	var runs sameBlocks
	for _, r := range t.Runs {
		if r.Evidence == nil {
			continue
		}
		var blk strings.Builder
		if r == base {
			ev := r.Evidence
			fmt.Fprintf(&blk, "- orch %s; servers: %s; clients: %s\n", md(judge.Dash(ev.OrchVersion)), md(kv(ev.Servers)), md(kv(ev.Clients)))
			blk.WriteString("- baseline run\n")
		} else {
			mdEvidenceDiff(rep, &blk, t, base, r)
		}
		runs.add(blk.String(), md(r.ID))
	}
	for _, blk := range runs {
		fmt.Fprintf(b, "#### %s\n\n%s\n", strings.Join(blk.names, ", "), blk.text)
	}
}

// sameBlocks are text blocks in order of first appearance, each with the
// names of everything it was given for: an identical block is shown once,
// headed by all of them.
type sameBlocks []struct {
	text  string
	names []string
}

func (s *sameBlocks) add(text, name string) {
	for i := range *s {
		if (*s)[i].text == text {
			(*s)[i].names = append((*s)[i].names, name)
			return
		}
	}
	*s = append(*s, struct {
		text  string
		names []string
	}{text, []string{name}})
}

// mdEvidenceDiff writes how run r's evidence differs from the baseline
// run's.
func mdEvidenceDiff(rep *judge.Report, b *strings.Builder, t *judge.Table, base, r *load.Run) {
	for _, d := range t.EvidenceDiffs(base, r) {
		b.WriteString("- " + md(d) + "\n")
	}
	// Hosts with the same differences (a configuration's profile on
	// every server) share one block.
	var hosts sameBlocks
	for _, hd := range load.DiffEvidence(base.Evidence, r.Evidence) {
		var body strings.Builder
		switch {
		case hd.Missing != "":
			body.WriteString(" " + md(hd.Missing) + "\n")
		case len(hd.Config) == 0 && len(hd.Vars) == 0:
			body.WriteString(" config and variables as the baseline's\n")
		default:
			body.WriteString("\n")
			if len(hd.Config) > 0 {
				fence := mdFence(hd.Config)
				body.WriteString("\n  " + fence + "diff\n")
				for _, l := range hd.Config {
					body.WriteString("  " + strings.NewReplacer("\r", " ", "\n", " ").Replace(l) + "\n")
				}
				body.WriteString("  " + fence + "\n\n")
			}
			for _, v := range hd.Vars {
				fmt.Fprintf(&body, "  - %s: %s → %s\n", mdCode(v.Name), md(v.Base), md(v.Cur))
			}
		}
		hosts.add(body.String(), md(hd.Host))
	}
	for _, blk := range hosts {
		fmt.Fprintf(b, "- %s:%s", strings.Join(blk.names, ", "), blk.text)
	}
}

// md escapes text for a Markdown table cell or list item.
func md(s string) string { return mdText(s) }

// kv formats a map as "k: v, k: v" sorted by key.
func kv(m map[string]string) string {
	if len(m) == 0 {
		return "—"
	}
	parts := make([]string, 0, len(m))
	for _, k := range load.SortedKeys(m) {
		parts = append(parts, k+": "+m[k])
	}
	return strings.Join(parts, ", ")
}
