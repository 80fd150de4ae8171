package render

import (
	"regexp"
	"strconv"
	"strings"
)

// mdHTMLStart is what a renderer takes for the start of an HTML tag, a
// comment or an autolink: '<' before a letter, '/', '!' or '?'. A bare
// "p < 0.05" stays as it is.
var mdHTMLStart = regexp.MustCompile(`<([A-Za-z/!?])`)

// mdText makes s inline markdown text: table pipes and the brackets that
// would close a link text or a link definition ("](", "][", "]:")
// backslash-escaped, a tag start as &lt;, newlines as spaces. (A backtick
// can only open a code span, in which nothing is rendered.)
func mdText(s string) string {
	s = strings.NewReplacer("\\", `\\`, "|", `\|`, "](", `\](`, "][", `\][`, "]:", `\]:`, "\r", " ", "\n", " ", codeCellMark, "").Replace(s)
	return mdHTMLStart.ReplaceAllString(s, "&lt;$1")
}

// codeCellMark starts a table cell that is one code span already
// (codeCell): mdRows escapes only its pipes. mdText drops it from values.
const codeCellMark = "\x00"

// codeCell is a table cell showing s as code.
func codeCell(s string) string { return codeCellMark + mdCode(s) }

// mdCell is one table cell: text, or a code span from codeCell.
func mdCell(c string) string {
	if rest, ok := strings.CutPrefix(c, codeCellMark); ok {
		return strings.ReplaceAll(rest, "|", `\|`)
	}
	return md(c)
}

// mdCode is s as an inline code span: fenced by one more backtick than
// its longest run of them, so that nothing in s ends the span early
// (inside one, markup is shown, not rendered).
func mdCode(s string) string {
	s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// mdFence is a code fence for a block of lines: one backtick more than
// the longest run of them in the lines (at least three), so that no line
// of a config file ends the block and is rendered.
func mdFence(lines []string) string {
	longest := 0
	for _, l := range lines {
		run := 0
		for _, c := range l {
			if c == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// CSVCell neutralises a cell a spreadsheet would run as a formula
// (OWASP's rule: one starting with = + - @, a tab or a carriage return
// gets a leading '); numbers, negative ones included, stay numbers.
func CSVCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}

// csvRow is csvCell on every cell.
func csvRow(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		out[i] = CSVCell(c)
	}
	return out
}
