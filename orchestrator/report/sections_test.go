package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/judge"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

// mdTables splits report.md into its tables by the heading above each:
// heading -> rows of cells (header first).
func mdTables(md string) map[string][][]string {
	out := map[string][][]string{}
	heading := ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "#"):
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
		case strings.HasPrefix(line, "| ---"):
		case strings.HasPrefix(line, "|"):
			var cells []string
			for _, c := range strings.Split(strings.Trim(line, "|"), " | ") {
				cells = append(cells, strings.TrimSpace(c))
			}
			out[heading] = append(out[heading], cells)
		}
	}
	return out
}

// leadNum is the first number of a cell ("**7867 (0.82x)**" -> 7867).
var leadNum = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

func cellNum(s string) float64 {
	v, err := strconv.ParseFloat(leadNum.FindString(s), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// column is the cells of the column whose header starts with name, by the
// row's first cell (the label or run).
func column(rows [][]string, name string, key func(row []string) string) map[string]float64 {
	out := map[string]float64{}
	if len(rows) == 0 {
		return out
	}
	for i, h := range rows[0] {
		if strings.HasPrefix(h, name) {
			for _, r := range rows[1:] {
				if k := key(r); k != "" {
					out[k] = cellNum(r[i])
				}
			}
		}
	}
	return out
}

// TestMasterRateAgreesAcrossSections: over every fixture with time
// series, the master's rate of a configuration printed in the
// Configurations, Replicas and Per-transaction tables, and of a run in
// the Runs table, results.csv (steady_metric, master_tx_per_s) and
// hosts.csv (the master's host_tx_per_s), agree within 1%, unless the report flags that run's client
// and master as disagreeing.
func TestMasterRateAgreesAcrossSections(t *testing.T) {
	for _, in := range []string{matrixDir, demoDir, "testdata/runs/20261129T221023Z-pure-random-writes-innodb"} {
		rep := build(t, analyse.Options{}, in)
		var md, csvb, hostsb bytes.Buffer
		if err := render.WriteMarkdown(rep, &md); err != nil {
			t.Fatal(err)
		}
		if err := render.WriteCSV(rep, &csvb); err != nil {
			t.Fatal(err)
		}
		if err := render.WriteHostsCSV(rep, &hostsb); err != nil {
			t.Fatal(err)
		}
		hosts, err := csv.NewReader(&hostsb).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		masterTPS := map[string]string{}
		for _, h := range hosts[1:] {
			if h[slices.Index(hosts[0], "host_role")] == "master" {
				masterTPS[h[slices.Index(hosts[0], "run")]] = h[slices.Index(hosts[0], "host_tx_per_s")]
			}
		}
		name := filepath.Base(in)
		tabs := mdTables(md.String())
		first := func(r []string) string { return r[0] }
		masterRow := func(r []string) string {
			if len(r) > 2 && r[2] == "master" {
				return r[0]
			}
			return ""
		}
		tb := rep.Tables[0]
		conf := column(tabs["Configurations"], tb.Metric+" mean", first)
		repl := column(tabs["Replicas"], "master tx/s", first)
		cost := column(tabs["Per transaction"], "tx/s", masterRow)
		disagree := map[string]bool{}
		for _, g := range tb.Groups {
			for _, r := range g.Runs {
				for _, f := range r.Flags {
					if strings.HasPrefix(f, "client ") {
						disagree[g.Label], disagree[r.ID] = true, true
					}
				}
			}
		}
		agree := func(what string, a, b float64, key string) {
			t.Helper()
			if disagree[key] || math.IsNaN(a) || math.IsNaN(b) {
				return
			}
			if math.Abs(a/b-1) > 0.01 {
				t.Errorf("%s: %s: %v vs %v", name, what, a, b)
			}
		}
		checked := 0
		for label, c := range conf {
			if r, ok := repl[label]; ok {
				agree(label+" Configurations vs Replicas", c, r, label)
				checked++
			}
			if p, ok := cost[label]; ok {
				agree(label+" Configurations vs Per transaction", c, p, label)
				checked++
			}
		}
		runs := column(tabs["Runs"], tb.Metric+" steady", first)
		recs, err := csv.NewReader(&csvb).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		idx := map[string]int{}
		for i, h := range recs[0] {
			idx[h] = i
		}
		for _, rec := range recs[1:] {
			if rec[idx["in_statistics"]] != "true" {
				continue
			}
			id := rec[idx["run"]]
			steady, _ := strconv.ParseFloat(rec[idx["steady_metric"]], 64)
			mtx, _ := strconv.ParseFloat(rec[idx["master_tx_per_s"]], 64)
			htps, _ := strconv.ParseFloat(masterTPS[id], 64)
			agree(id+" Runs vs results.csv steady", runs[id], steady, id)
			agree(id+" steady vs master_tx_per_s", steady, mtx, id)
			agree(id+" master_tx_per_s vs hosts.csv host_tx_per_s", mtx, htps, "")
			checked += 3
		}
		if checked < 3 {
			t.Errorf("%s: only %d comparisons", name, checked)
		}
	}
}

// TestSectionInEveryFormat: a section added to tableSections appears in
// report.md, report.html and tables.csv with its title and cells, after
// the sections before it, without touching any renderer.
func TestSectionInEveryFormat(t *testing.T) {
	saved := render.TableSections
	defer func() { render.TableSections = saved }()
	render.TableSections = append(slices.Clip(saved), render.Section{ID: "probe-section", Title: "A section added in one place", Of: func(tb *judge.Table) *render.SectionTable {
		return &render.SectionTable{Notes: []string{"a note above it"}, Header: []string{"configuration", "runs_n"},
			Rows: [][]string{{tb.Groups[0].Label, strconv.Itoa(len(tb.Groups[0].Runs))}}, Baseline: -1}
	}})
	rep := build(t, analyse.Options{}, matrixDir)
	var md, html, tab bytes.Buffer
	for _, w := range []func() error{func() error { return render.WriteMarkdown(rep, &md) }, func() error { return render.WriteHTML(rep, &html) }, func() error { return render.WriteTablesCSV(rep, &tab) }} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	label := rep.Tables[0].Groups[0].Label
	runs := strconv.Itoa(len(rep.Tables[0].Groups[0].Runs))
	// Markdown: after the Runs table, with its note and its row.
	m := md.String()
	at, runsAt := strings.Index(m, "### A section added in one place\n\na note above it\n\n| configuration | runs_n |"), strings.Index(m, "### Runs")
	if at < 0 || runsAt < 0 || at < runsAt {
		t.Errorf("report.md: the added section is missing or before Runs (at %d, Runs at %d)", at, runsAt)
	}
	if !strings.Contains(m, "| "+label+" | "+runs+" |") {
		t.Errorf("report.md: no row %q | %s", label, runs)
	}
	// HTML: its heading, its table with the section's class, its cell.
	h := html.String()
	for _, want := range []string{`-probe-section">A section added in one place</h3>`, `<p class="note">a note above it</p>`, `<table class="probe-section">`, "<td>" + runs + "</td>"} {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// tables.csv: one row per cell, under the section's id.
	rows, err := csv.NewReader(&tab).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	sections := map[string]bool{}
	for _, r := range rows[1:] {
		sections[r[1]] = true
		if r[1] == "probe-section" {
			got = append(got, r)
		}
	}
	want := [][]string{
		{rep.Tables[0].Workload, "probe-section", "1", label, "configuration", label},
		{rep.Tables[0].Workload, "probe-section", "1", label, "runs_n", runs},
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("tables.csv rows of the section:\n got %q\nwant %q", got, want)
	}
	// Every section the fixture shows is in tables.csv too.
	for _, s := range render.SectionsOf(rep.Tables[0]) {
		if !sections[s.ID] || !strings.Contains(m, "### "+s.Title) || !strings.Contains(h, `-`+s.ID+`">`+s.Title+"</h3>") {
			t.Errorf("section %s (%q) missing from a format: csv %v", s.ID, s.Title, sections[s.ID])
		}
	}
}

// TestTablesCSVIsWhatMarkdownShows: every cell tables.csv holds is the
// cell of report.md's table of the same section, row and column.
func TestTablesCSVIsWhatMarkdownShows(t *testing.T) {
	rep := build(t, analyse.Options{}, demoDir)
	var md, tab bytes.Buffer
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	if err := render.WriteTablesCSV(rep, &tab); err != nil {
		t.Fatal(err)
	}
	mdt := mdTables(md.String())
	rows, err := csv.NewReader(&tab).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, s := range render.TableSections {
		titles[s.ID] = s.Title
	}
	if len(rows) < 20 {
		t.Fatalf("tables.csv has %d rows", len(rows))
	}
	for _, r := range rows[1:] {
		tb := mdt[titles[r[1]]]
		n, _ := strconv.Atoi(r[2])
		if n < 1 || n >= len(tb) {
			t.Errorf("%v: no row %d in report.md's %q table", r, n, titles[r[1]])
			continue
		}
		col := slices.Index(tb[0], r[4])
		// csvCell: a cell that a spreadsheet would run as a formula
		// ("-1.8 (slave2)") is written with a leading quote.
		if col < 0 || render.CSVCell(strings.ReplaceAll(tb[n][col], `\|`, "|")) != r[5] || render.CSVCell(tb[n][0]) != r[3] {
			t.Errorf("%v: report.md's %q row %d reads %q", r, titles[r[1]], n, tb[n])
		}
	}
}
