package report

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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

// TestHostileNamesAreInert (N9): a matrix whose configuration label and
// directory name are hostile gives a report.md, report.html, results.csv
// and SVG plots in which they are text: no raw tag or link in the markup,
// no CSV cell a spreadsheet would run.
func TestHostileNamesAreInert(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "m`<img src=x onerror=alert(4)>")
	if err := os.CopyFS(dir, os.DirFS(matrixDir)); err != nil {
		t.Fatal(err)
	}
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
	_, paths, err := Generate([]string{dir}, out, []string{FormatCSV, FormatMarkdown, FormatHTML}, Options{AllowMixed: true})
	if err != nil {
		t.Fatal(err)
	}
	sawLabel := false
	for _, p := range paths {
		body, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(body)
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
