package render

import (
	"io"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/judge"
)

// A section is one titled table of a workload's part of the report,
// defined once here: report.md and report.html render tableSections in
// this order and tables.csv holds every cell of them, so a section added
// to the list appears in the three (TestSectionInEveryFormat).
type Section struct {
	// ID is the HTML table's class and tables.csv's section column.
	ID, Title string
	// Of is the section's content for one workload's table; nil leaves
	// the section out of that table.
	Of func(t *judge.Table) *SectionTable
}

// SectionTable is a section's content for one workload's table.
type SectionTable struct {
	Notes    []string // paragraphs above the table
	Warnings []string
	Header   []string
	Rows     [][]string
	// Baseline is the baseline configuration's row (HTML marks it), -1
	// when the section has none.
	Baseline int
	// Links, when set, make row i's first cell a link to Links[i]
	// (HTML: a run's evidence).
	Links []string
}

// Link is row i's anchor, "" for none.
func (s *SectionTable) Link(i int) string {
	if i < len(s.Links) {
		return s.Links[i]
	}
	return ""
}

// TableSections are the tables of each workload, in the order they are
// shown. "Where the time went" and the plots come before and after them,
// rendered on their own (why_render.go, plots.go): they are not tables of
// cells.
var TableSections = []Section{
	{"configurations", "Configurations", func(t *judge.Table) *SectionTable {
		h, rows := groupHeader(t), groupRows(t)
		s := &SectionTable{Header: h[:statCols], Rows: colsOf(rows, 0, statCols), Baseline: -1}
		for i, r := range rows {
			if t.Baseline != nil && r[0] == t.Baseline.Label {
				s.Baseline = i
			}
		}
		return s
	}},
	{"pivot", "Two factors (2x2)", PivotSection},
	{"health", "Latency, footprint and health", func(t *judge.Table) *SectionTable {
		h, rows := groupHeader(t), groupRows(t)
		return &SectionTable{Header: append(h[:1:1], h[statCols:]...), Rows: healthCols(rows), Baseline: -1}
	}},
	{"replicas", "Replicas", func(t *judge.Table) *SectionTable {
		if !hasReplicas(t) {
			return nil
		}
		return &SectionTable{Notes: []string{replicaNote}, Header: replicaHeader(t), Rows: replicaRows(t), Baseline: -1}
	}},
	{"clusters", "By cluster", func(t *judge.Table) *SectionTable {
		b := t.Blocks
		if b == nil {
			return nil
		}
		return &SectionTable{Notes: b.Notes, Warnings: b.Warnings, Header: b.Header, Rows: b.Rows, Baseline: -1}
	}},
	{"runs", "Runs", func(t *judge.Table) *SectionTable {
		s := &SectionTable{Header: runHeader(t), Rows: runRows(t), Baseline: -1}
		for _, r := range t.Runs {
			link := ""
			if r.Evidence != nil {
				link = evidenceAnchor(t, r)
			}
			s.Links = append(s.Links, link)
		}
		return s
	}},
}

// shownSection is a section as a workload's table shows it.
type shownSection struct {
	ID, Title string
	*SectionTable
}

// SectionsOf are the sections t shows, in order.
func SectionsOf(t *judge.Table) []shownSection {
	var out []shownSection
	for _, s := range TableSections {
		if st := s.Of(t); st != nil {
			out = append(out, shownSection{s.ID, s.Title, st})
		}
	}
	return out
}

// mdSections writes t's sections as markdown.
func mdSections(b *strings.Builder, t *judge.Table) {
	for i, s := range SectionsOf(t) {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("### " + md(s.Title) + "\n\n")
		for _, n := range s.Notes {
			b.WriteString(md(n) + "\n")
		}
		if len(s.Notes) > 0 {
			b.WriteString("\n")
		}
		for _, w := range s.Warnings {
			b.WriteString("- **WARNING** " + md(w) + "\n")
		}
		if len(s.Warnings) > 0 {
			b.WriteString("\n")
		}
		if len(s.Rows) > 0 {
			mdRows(b, s.Header, s.Rows)
		}
	}
}

// cellRow is one cell of a section's table: a row of tables.csv.
type cellRow struct {
	t      *judge.Table
	s      shownSection
	row    int // 0-based
	column int
}

// sectionColumns are tables.csv's columns: every table of report.md and
// report.html in long form, one row per cell, so what the report shows
// can be read back without parsing markdown or HTML.
var sectionColumns = []Column[cellRow]{
	{"workload", "the workload's table the cell is in (as in results.csv), its section (`configurations`, `health`, `replicas`, `clusters`, `runs`: the report's tables, in their order)",
		func(c cellRow) string { return c.t.Workload }},
	{"section", "", func(c cellRow) string { return c.s.ID }},
	{"row", "the row's number in its table (1 is the first under the header) and its first cell (the configuration, cluster or run)",
		func(c cellRow) string { return strconv.Itoa(c.row + 1) }},
	{"row_label", "", func(c cellRow) string { return c.s.Rows[c.row][0] }},
	{"column", "the column's header, and the cell as the report prints it (text: the numeric columns of results.csv, configurations.csv and hosts.csv hold the same figures unformatted)",
		func(c cellRow) string { return c.s.Header[c.column] }},
	{"cell", "", func(c cellRow) string { return c.s.Rows[c.row][c.column] }},
}

// FileTablesCSV holds every cell of the report's tables (sectionColumns).
const FileTablesCSV = "tables.csv"

// WriteTablesCSV writes tables.csv.
func WriteTablesCSV(rep *judge.Report, w io.Writer) error {
	var rows [][]string
	for _, t := range rep.Tables {
		for _, s := range SectionsOf(t) {
			for i, r := range s.Rows {
				for j := range r {
					if j < len(s.Header) {
						rows = append(rows, Values(cellRow{t, s, i, j}, sectionColumns))
					}
				}
			}
		}
	}
	return writeRows(w, Header(sectionColumns), rows)
}
