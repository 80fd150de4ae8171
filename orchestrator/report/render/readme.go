package render

import (
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/report/load"
)

// README markers around the generated column tables: the block between
// them is ColumnsMarkdown, kept equal by TestREADMEColumns and rewritten
// by `make readme` (go test ./orchestrator/report -run TestREADMEColumns -update).
const (
	ReadmeBegin = "<!-- BEGIN columns: generated from orchestrator/report/render/tidy*.go by `make readme`; do not edit -->"
	ReadmeEnd   = "<!-- END columns -->"
)

// columnRows are the README rows of columns: a column without a Doc
// joins the row of the one before it.
func columnRows[T any](cols []Column[T]) [][2]string {
	var rows [][2]string
	for _, c := range cols {
		name := "`" + c.Name + "`"
		if c.Doc == "" && len(rows) > 0 {
			rows[len(rows)-1][0] += ", " + name
			continue
		}
		rows = append(rows, [2]string{name, c.Doc})
	}
	return rows
}

// mdTable renders rows as a markdown table of columns and meanings.
func mdTable(parts ...[][2]string) string {
	var b strings.Builder
	b.WriteString("| column | meaning |\n|---|---|\n")
	for _, rows := range parts {
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s |\n", r[0], strings.ReplaceAll(r[1], "|", `\|`))
		}
	}
	return b.String()
}

// ColumnsMarkdown is the README's description of the CSV files' columns,
// from the definitions the writers use.
func ColumnsMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#### %s: one row per run\n\n", load.FileCSV)
	b.WriteString(mdTable(columnRows(TableColumns), columnRows(RunColumns)))
	fmt.Fprintf(&b, "\nthen every column of %s from `%s` on: the figures of the run's configuration, repeated on each of its runs.\n\n",
		load.FileConfigurationsCSV, ConfColumns[0].Name)
	fmt.Fprintf(&b, "#### %s: one row per configuration\n\n", load.FileConfigurationsCSV)
	b.WriteString(mdTable(columnRows(TableColumns), columnRows(ConfColumns)))
	fmt.Fprintf(&b, "\n#### %s: one row per run and host\n\n", load.FileHostsCSV)
	b.WriteString(mdTable(columnRows(HostColumns)))
	fmt.Fprintf(&b, "\n#### %s: one row per cell of the report's tables\n\n", FileTablesCSV)
	b.WriteString(mdTable(columnRows(sectionColumns)))
	return b.String()
}

// ReplaceReadmeBlock returns readme with the block between the markers
// set to block; ok is false when the markers are missing.
func ReplaceReadmeBlock(readme, block string) (string, bool) {
	i := strings.Index(readme, ReadmeBegin)
	j := strings.Index(readme, ReadmeEnd)
	if i < 0 || j < i {
		return readme, false
	}
	return readme[:i+len(ReadmeBegin)] + "\n" + block + readme[j:], true
}
