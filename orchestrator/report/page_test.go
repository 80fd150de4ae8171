package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// TestPageOutline: report.md and report.html open with a table of contents
// whose every link lands on a heading of the page (Markdown: the anchor a
// GitHub-style renderer gives the heading, counted over every heading of
// the page as it is; HTML: an element's id); a workload shows its
// Configurations table before Where the time went; runs whose evidence
// differs from the baseline's in the same way are shown once, under one
// heading naming them all (the demo's two rocksdb runs), and hosts with the
// same differences under one item (master, slave1, slave2); report.html's
// Inputs line has no Markdown backticks.
func TestPageOutline(t *testing.T) {
	rep := build(t, analyse.Options{}, demoDir)
	var md, html bytes.Buffer
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteHTML(rep, &html); err != nil {
		t.Fatal(err)
	}
	page := md.String()
	// Every heading's anchor, as a renderer makes them, in page order.
	anchors := map[string]bool{}
	a := render.MDAnchors{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(page, -1) {
		anchors[a.Of(m[1])] = true
	}
	contents := page[strings.Index(page, "Contents:"):strings.Index(page, "## Method")]
	links := regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(contents, -1)
	if len(links) < 8 {
		t.Fatalf("contents has %d links:\n%s", len(links), contents)
	}
	for _, l := range links {
		if !anchors[l[1]] {
			t.Errorf("report.md: contents links #%s, no heading has that anchor", l[1])
		}
	}
	if c, w := strings.Index(page, "### Configurations"), strings.Index(page, "### "+render.WhyHeading); c < 0 || w < 0 || c > w {
		t.Errorf("report.md: Configurations at %d, %s at %d", c, render.WhyHeading, w)
	}
	if !strings.Contains(page, "#### 02-rocksdb-r1, 03-rocksdb-r2\n") || strings.Count(page, "`default_storage_engine`: InnoDB → ROCKSDB") != 1 {
		t.Errorf("report.md: the rocksdb runs' identical evidence is not shown once:\n%s", page[strings.Index(page, "### Evidence"):])
	}
	h := html.String()
	for _, m := range regexp.MustCompile(`<li class="toc[23]"><a href="#([^"]+)">`).FindAllStringSubmatch(h, -1) {
		if !strings.Contains(h, `id="`+m[1]+`"`) {
			t.Errorf("report.html: contents links #%s, no element has that id", m[1])
		}
	}
	if i := strings.Index(h, "Inputs: "); i < 0 || strings.Contains(h[i:i+200], "`") {
		t.Errorf("report.html: Inputs line with backticks or missing")
	}
}
