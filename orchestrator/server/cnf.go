package server

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// An option file as orch reads its own rendered profiles: sections, options
// (name = value or a bare name) and comments, in order. Only what profiles
// need is supported: no !include (orch writes one self-contained file) and
// no quoting (values that would need it are rejected, see checkValue).

type lineKind int

const (
	lineBlank lineKind = iota
	lineComment
	lineSection
	lineOption
)

type cnfLine struct {
	kind    lineKind
	text    string // comment text (with its '#') or section name
	section string // the section an option belongs to
	name    string // canonical name: lower case, '_' for '-', no loose- prefix
	value   string
	bare    bool // written without "= value"
	loose   bool // written with the loose- prefix
	origin  string
	srcLine int // line in the rendered profile, for errors
}

type cnfFile struct{ lines []cnfLine }

// Sections orch accepts in profiles come from flavor: the server groups
// ([mysqld], and [mariadb], which only MariaDB reads) and [mysqld_safe],
// passed through for the wrapper's own options.
const (
	sectionMysqld     = flavor.MainGroup
	sectionMysqldSafe = flavor.WrapperGroup
)

// isServerSection reports whether options in section are server variables.
func isServerSection(s string) bool { return flavor.IsServerGroup(s) }

// profileSections names the accepted sections for errors: "[mysqld],
// [mariadb] and [mysqld_safe]".
func profileSections() string {
	gs := flavor.ProfileGroups()
	for i, g := range gs {
		gs[i] = "[" + g + "]"
	}
	return strings.Join(gs[:len(gs)-1], ", ") + " and " + gs[len(gs)-1]
}

// canonName spells an option name the way SHOW VARIABLES does, and reports
// whether it carried the loose- prefix (flavor.OptionName).
func canonName(name string) (string, bool) { return flavor.OptionName(name) }

// validName reports whether n (canonical) can be a server variable name:
// it is spliced into SET GLOBAL, so nothing but [a-z0-9_] is allowed.
func validName(n string) bool {
	if n == "" {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// checkValue rejects values an unquoted option-file line cannot carry.
func checkValue(name, v string) error {
	if v != strings.TrimSpace(v) {
		return fmt.Errorf("%s: value %q has leading or trailing spaces", name, v)
	}
	if strings.ContainsAny(v, "#\"'\\") {
		return fmt.Errorf("%s: value %q holds # or a quote, which an option file would read differently", name, v)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return fmt.Errorf("%s: value %q holds a control character", name, v)
		}
	}
	return nil
}

// parseCnf reads rendered profile text. src names it in errors.
func parseCnf(src, text string) (*cnfFile, error) {
	f := &cnfFile{}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		raw := strings.TrimSpace(sc.Text())
		switch {
		case raw == "":
			f.lines = append(f.lines, cnfLine{kind: lineBlank})
		case raw[0] == '#' || raw[0] == ';':
			f.lines = append(f.lines, cnfLine{kind: lineComment, text: "#" + raw[1:]})
		case raw[0] == '!':
			return nil, fmt.Errorf("%s:%d: a ! directive (!include, !includedir): a profile renders to one self-contained file", src, n)
		case raw[0] == '[':
			name, ok := strings.CutSuffix(raw[1:], "]")
			name = strings.ToLower(strings.TrimSpace(name))
			if !ok || name == "" {
				return nil, fmt.Errorf("%s:%d: malformed section header", src, n)
			}
			if !isServerSection(name) && name != sectionMysqldSafe {
				return nil, fmt.Errorf("%s:%d: a section profiles do not use (they may use %s)", src, n, profileSections())
			}
			section = name
			f.lines = append(f.lines, cnfLine{kind: lineSection, text: name})
		default:
			if section == "" {
				return nil, fmt.Errorf("%s:%d: a line outside any section (want [mysqld] first)", src, n)
			}
			k, v, hasValue := strings.Cut(raw, "=")
			name, loose := canonName(k)
			v = strings.TrimSpace(v)
			if !validName(name) {
				return nil, fmt.Errorf("%s:%d: not an option name (letters, digits, '_' and '-' only)", src, n)
			}
			if err := checkValue(name, v); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", src, n, err)
			}
			f.lines = append(f.lines, cnfLine{kind: lineOption, section: section, name: name, value: v,
				bare: !hasValue, loose: loose, origin: "profile", srcLine: n})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	return f, nil
}

// accumulating options add up instead of the last one winning.
func accumulating(name string) bool { return name == "plugin_load_add" }

// checkDuplicates rejects a server option set twice: in an option file the
// last one wins silently, so a profile saying two things is a mistake.
func (f *cnfFile) checkDuplicates(src string) error {
	seen := map[string]int{}
	for _, l := range f.lines {
		if l.kind != lineOption || !isServerSection(l.section) || accumulating(l.name) {
			continue
		}
		if first, ok := seen[l.name]; ok {
			return fmt.Errorf("%s: %s is set twice (lines %d and %d)", src, l.name, first, l.srcLine)
		}
		seen[l.name] = l.srcLine
	}
	return nil
}

// find returns the index of the server option name, or -1.
func (f *cnfFile) find(name string) int {
	for i, l := range f.lines {
		if l.kind == lineOption && isServerSection(l.section) && l.name == name {
			return i
		}
	}
	return -1
}

// set overrides a server option's value in place, or appends it to the
// [mysqld] section, recording where the value came from.
func (f *cnfFile) set(name, value, origin string) {
	if i := f.find(name); i >= 0 {
		l := &f.lines[i]
		note := fmt.Sprintf("# %s: %s (profile: %s)", name, origin, displayValue(*l))
		if l.origin != "profile" {
			note = fmt.Sprintf("# %s: %s", name, origin)
		}
		l.value, l.bare, l.origin = value, false, origin
		f.insert(i, cnfLine{kind: lineComment, text: note})
		return
	}
	f.add(name, value, origin)
}

// loads reports whether the file's server sections load library with
// plugin_load_add already.
func (f *cnfFile) loads(library string) bool {
	for _, l := range f.lines {
		if l.kind == lineOption && isServerSection(l.section) && l.name == "plugin_load_add" && l.value == library {
			return true
		}
	}
	return false
}

// add appends an accumulating option (plugin_load_add) to the [mysqld]
// section, after any it already has.
func (f *cnfFile) add(name, value, origin string) {
	at := f.endOf(sectionMysqld)
	if at < 0 {
		f.lines = append(f.lines, cnfLine{kind: lineBlank}, cnfLine{kind: lineSection, text: sectionMysqld})
		at = len(f.lines)
	}
	f.insert(at, cnfLine{kind: lineComment, text: "# " + name + ": " + origin},
		cnfLine{kind: lineOption, section: sectionMysqld, name: name, value: value, origin: origin})
}

// endOf returns the index just past the last option of the first section
// named s, or -1 when there is none.
func (f *cnfFile) endOf(s string) int {
	at := -1
	in := false
	for i, l := range f.lines {
		switch {
		case l.kind == lineSection && l.text == s && at < 0:
			in, at = true, i+1
		case l.kind == lineSection:
			in = false
		case in && l.kind == lineOption:
			at = i + 1
		}
	}
	return at
}

func (f *cnfFile) insert(at int, ls ...cnfLine) {
	f.lines = append(f.lines[:at], append(ls, f.lines[at:]...)...)
}

func displayValue(l cnfLine) string {
	if l.bare {
		return "(bare)"
	}
	return l.value
}

func optionText(l cnfLine) string {
	name := l.name
	if l.loose {
		name = flavor.LoosePrefix + name
	}
	if l.bare {
		return name
	}
	return name + " = " + l.value
}

// text writes the file back, collapsing runs of blank lines.
func (f *cnfFile) text() string {
	var b strings.Builder
	blank := true // no blank line at the top
	for _, l := range f.lines {
		switch l.kind {
		case lineBlank:
			if !blank {
				b.WriteString("\n")
			}
			blank = true
			continue
		case lineComment:
			b.WriteString(l.text)
		case lineSection:
			if !blank {
				b.WriteString("\n")
			}
			b.WriteString("[" + l.text + "]")
		case lineOption:
			b.WriteString(optionText(l))
		}
		b.WriteString("\n")
		blank = false
	}
	return b.String()
}
