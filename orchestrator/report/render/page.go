package render

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/orch-bench/orch/orchestrator/report/judge"
)

// heading is one entry of the table of contents: its text, its level (2 or
// 3) and the id report.html gives it.
type heading struct {
	Text  string
	Level int
	ID    string
}

// outline is the page's headings in order.
func outline(rep *judge.Report) []heading {
	out := []heading{{"Method", 2, "method"}}
	if len(rep.NoEffect) > 0 {
		out = append(out, heading{"Knobs with no effect on this server", 2, "no-effect"})
	}
	for _, t := range rep.Tables {
		w := "w-" + slugify(t.Workload)
		out = append(out, heading{t.Workload + " (" + t.Tool + ", " + t.Metric + ")", 2, w})
		for _, s := range SectionsOf(t) {
			out = append(out, heading{s.Title, 3, w + "-" + s.ID})
		}
		if t.Why != nil {
			out = append(out, heading{WhyHeading, 3, w + "-why"})
		}
		if len(t.Plots) > 0 {
			out = append(out, heading{"Plots", 3, w + "-plots"})
		}
		if hasEvidence(t) {
			out = append(out, heading{"Evidence", 3, w + "-evidence"})
		}
	}
	return out
}

// hasEvidence: the workload's Evidence part is shown (a baseline run with
// its evidence).
func hasEvidence(t *judge.Table) bool { return t.BaselineRun() != nil }

// mdContents is report.md's table of contents: one line for the Method and
// one per workload, each heading a link to its anchor as GitHub-style
// renderers make it (mdAnchors).
func mdContents(rep *judge.Report) string {
	a := MDAnchors{}
	var lines []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			lines = append(lines, "- "+cur[0]+strings.Join(cur[1:], " · "))
		}
		cur = nil
	}
	for _, h := range outline(rep) {
		link := "[" + mdText(h.Text) + "](#" + a.Of(h.Text) + ")"
		if h.Level == 2 {
			flush()
			cur = []string{link + ": "}
			continue
		}
		cur = append(cur, link)
	}
	flush()
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, ": ")
	}
	return "Contents:\n\n" + strings.Join(lines, "\n") + "\n"
}

// MDAnchors gives headings the anchors GitHub-style Markdown renderers
// make: lower case, letters, digits, '-' and '_' kept, spaces as '-',
// everything else dropped; a repeated heading gets -1, -2, ...
type MDAnchors map[string]int

func (a MDAnchors) Of(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	s := b.String()
	n := a[s]
	a[s] = n + 1
	if n > 0 {
		return s + "-" + strconv.Itoa(n)
	}
	return s
}
