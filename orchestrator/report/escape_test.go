package report

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/render"
	"github.com/orch-bench/orch/orchestrator/schema"
)

// hostileLabel would run as a formula in a spreadsheet and as script or
// a link in a markdown renderer, if copied raw.
const hostileLabel = `=HYPERLINK("http://evil.invalid","x")<img src=x onerror=alert(1)><script>alert(2)</script>[c](javascript:alert(3))`

// markup is what must never appear raw in a report: a tag that runs
// something; in markdown also a link (a "](" not escaped as "\](").
var (
	markup   = regexp.MustCompile(`(?i)<img src=x|<script>alert`)
	markLink = regexp.MustCompile(`(?i)(^|[^\\])\]\(javascript:`)
)

// Hostile values from the runs' manifests and results: a host name (also
// a directory and file name in the run: hosts/NAME/, timeseries/NAME-*),
// the inventory's cluster name and the server version string. Each would
// be a formula at the start of a CSV cell, and each carries a tag or a
// link a markdown renderer would run.
const (
	hostileHost    = `=1+1<img src=x onerror=alert(5)>[h](javascript:alert(6))`
	hostileCluster = `@SUM(1+1)<script>alert(7)</script>[c](javascript:alert(8))`
	hostileVersion = `MariaDB 10.11.19<img src=x onerror=alert(9)>[v](javascript:alert(10))`
)

// TestHostileNamesAreInert (N9): a matrix whose configuration label,
// directory name, host name, cluster name and server version are hostile
// gives a report.md, report.html, results.csv and SVG plots in which they
// are text: no raw tag or link in the markup, no CSV cell a spreadsheet
// would run.
func TestHostileNamesAreInert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m`<img src=x onerror=alert(4)>")
	if err := os.CopyFS(dir, os.DirFS(matrixDir)); err != nil {
		t.Fatal(err)
	}
	hostilize(t, dir)
	mj := filepath.Join(dir, "matrix.json")
	b, err := os.ReadFile(mj)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := json.Marshal(hostileLabel)
	b = []byte(strings.ReplaceAll(string(b), `"label": "rocksdb"`, `"label": `+string(q)))
	if err := os.WriteFile(mj, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, paths, err := render.Generate([]string{dir}, out, []string{render.FormatCSV, render.FormatMarkdown, render.FormatHTML}, analyse.Options{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	sawLabel := false
	saw := map[string]bool{} // which hostile value reached which output
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
		for _, v := range []string{"alert(5)", "alert(7)", "alert(9)", "alert(11)"} {
			if strings.Contains(text, v) {
				saw[v+" in "+filepath.Ext(p)] = true
			}
		}
		switch {
		case strings.HasSuffix(p, ".csv"):
			rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				for _, c := range r {
					if c != "" && strings.ContainsRune("=+@\t\r", rune(c[0])) {
						t.Errorf("results.csv: cell %q would run as a formula", c)
					}
					sawLabel = sawLabel || strings.Contains(c, "HYPERLINK")
				}
			}
		case strings.HasSuffix(p, ".md"), strings.HasSuffix(p, ".html"), strings.HasSuffix(p, ".svg"):
			if strings.HasSuffix(p, ".md") {
				text = outsideCode(text)
			}
			if m := markLink.FindString(text); m != "" && strings.HasSuffix(p, ".md") {
				t.Errorf("report.md: a live link %q", m)
			}
			if m := markup.FindString(text); m != "" {
				i := strings.Index(text, m)
				t.Errorf("%s: raw %q in %q", filepath.Base(p), m, text[max(0, i-40):min(len(text), i+60)])
			}
		}
	}
	if !sawLabel {
		t.Error("the label never reached results.csv: the test proves nothing")
	}
	// The host name, cluster name and version reach the markdown and HTML
	// reports, the host name the CSV too: else the test proves nothing.
	for _, want := range []string{"alert(5) in .md", "alert(5) in .html", "alert(5) in .csv",
		"alert(7) in .md", "alert(7) in .html", "alert(9) in .md", "alert(9) in .html", "alert(11) in .md"} {
		if !saw[want] {
			t.Errorf("never seen: %s (seen: %v)", want, saw)
		}
	}
}

// hostilize gives the matrix copied to dir hostile names: slave1 becomes
// hostileHost in every file's text and, as the run directory writes it
// (schema.Sanitize), in every path; the inventory's name becomes
// hostileCluster and every server version hostileVersion. A line that
// would end a markdown code fence, then a tag, is added to the host's
// config in the runs after the first (the baseline), whose diff report.md
// shows.
func hostilize(t *testing.T, dir string) {
	t.Helper()
	jsonText := func(s string) string {
		b, _ := json.Marshal(s)
		return strings.Trim(string(b), `"`)
	}
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s := string(b)
		if ext := filepath.Ext(p); ext == ".json" || ext == ".jsonl" {
			s = strings.ReplaceAll(s, "slave1", jsonText(hostileHost))
			s = strings.ReplaceAll(s, `"name": "lab"`, `"name": "`+jsonText(hostileCluster)+`"`)
			s = strings.ReplaceAll(s, `"MariaDB 10.11.19"`, `"`+jsonText(hostileVersion)+`"`)
		} else {
			s = strings.ReplaceAll(s, "slave1", hostileHost)
		}
		if filepath.Base(p) == "config.cnf" && strings.Contains(p, "slave1") && !strings.Contains(p, "01-") {
			s += "\n```\n<img src=x onerror=alert(11)>\n"
		}
		paths = append(paths, p)
		return os.WriteFile(p, []byte(s), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		rel, _ := filepath.Rel(dir, p)
		if to := strings.ReplaceAll(rel, "slave1", schema.Sanitize(hostileHost)); to != rel {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, to)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(p, filepath.Join(dir, to)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// outsideCode is markdown text without its code spans, in which nothing
// is rendered (a span opened by N backticks ends at the next run of N).
func outsideCode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '`' {
			b.WriteByte(s[i])
			i++
			continue
		}
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		fence, j := s[i:i+n], i+n
		end := -1
		for k := j; k < len(s); {
			if s[k] != '`' {
				k++
				continue
			}
			m := 0
			for k+m < len(s) && s[k+m] == '`' {
				m++
			}
			if m == len(fence) {
				end = k + m
				break
			}
			k += m
		}
		if end < 0 {
			b.WriteString(fence)
			i = j
			continue
		}
		i = end
	}
	return b.String()
}
