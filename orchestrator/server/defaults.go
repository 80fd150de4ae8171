package server

import (
	"fmt"
	"strings"
)

// What the server will read: `my_print_defaults --mysqld` prints every
// option of the groups mysqld reads, one per line, in the order it reads
// them, and for a repeated option the last one wins. Checking orch's values
// against that output before a restart catches a file in the wrong include
// directory (Debian's MariaDB reads conf.d/ before mariadb.conf.d/, so a
// file in conf.d silently loses to 50-server.cnf) and a later file
// overriding orch.

// option is one option as the server will read it.
type option struct {
	name  string // canonical (lower case, '_', no loose- prefix)
	value string
	bare  bool
}

// parseDefaults reads `my_print_defaults --mysqld` output (one --option per
// line) or `mysqld --print-defaults` output (all options on one line after
// a heading).
func parseDefaults(out string) []option {
	var opts []option
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "--") {
			continue
		}
		// --print-defaults separates options with spaces; my_print_defaults
		// prints one per line, where a value may itself hold spaces.
		fields := []string{line}
		if strings.Contains(line, " --") && looksLikeArgLine(line) {
			fields = strings.Split(line, " ")
		}
		for _, f := range fields {
			f = strings.TrimPrefix(f, "--")
			if f == "" {
				continue
			}
			k, v, hasValue := strings.Cut(f, "=")
			name, _ := canonName(k)
			opts = append(opts, option{name: name, value: v, bare: !hasValue})
		}
	}
	return opts
}

// looksLikeArgLine tells a --print-defaults line (every space-separated
// word is an --option) from one option whose value holds " --".
func looksLikeArgLine(line string) bool {
	for _, w := range strings.Split(line, " ") {
		if w != "" && !strings.HasPrefix(w, "--") {
			return false
		}
	}
	return true
}

// winner returns the value name takes from opts: the last occurrence wins,
// skip-NAME and disable-NAME mean OFF, enable-NAME means ON.
func winner(opts []option, name string) (option, bool) {
	var w option
	found := false
	for _, o := range opts {
		switch o.name {
		case name:
			w, found = o, true
		case "skip_" + name, "disable_" + name:
			w, found = option{name: name, value: "OFF"}, true
		case "enable_" + name:
			w, found = option{name: name, value: "ON"}, true
		}
	}
	return w, found
}

// hasOption reports whether an accumulating option (plugin_load_add) has
// the given value anywhere.
func hasOption(opts []option, name, value string) bool {
	for _, o := range opts {
		if o.name == name && normValue(o.value) == normValue(value) {
			return true
		}
	}
	return false
}

// optionValue is what an option means, for comparing: a bare boolean is ON.
func optionValue(value string, bare bool) string {
	if bare {
		return "ON"
	}
	return value
}

// overridden says which of the server's own settings orch's file replaces
// without the user having asked: an option of the profile (not
// profile.vars or a --knob) that the server's other option files set to
// something else. opts are read with orch's file in place, which is read
// last, so the occurrence before the last is the server's own.
func overridden(vars []Var, opts []option) []string {
	var out []string
	for _, v := range vars {
		if v.Origin != "profile" || accumulating(v.Name) {
			continue
		}
		var seen []option
		for _, o := range opts {
			if o.name == v.Name {
				seen = append(seen, o)
			}
		}
		if len(seen) < 2 {
			continue
		}
		theirs := seen[len(seen)-2]
		want, had := optionValue(v.Value, v.Bare), optionValue(theirs.value, theirs.bare)
		if normValue(want) != normValue(had) {
			out = append(out, fmt.Sprintf("%s = %s (the server's own option files) is replaced by the profile's %s; name it in profile.vars or --knob to choose", v.Name, had, want))
		}
	}
	return out
}

// checkWinners verifies that every server option orch writes is the one
// the server will use. file names orch's file in the messages.
func checkWinners(host, file, printCmd string, vars []Var, opts []option) error {
	var problems []string
	seen := 0
	for _, v := range vars {
		if accumulating(v.Name) {
			if hasOption(opts, v.Name, v.Value) {
				seen++
			} else {
				problems = append(problems, fmt.Sprintf("%s = %s is missing", v.Name, v.Value))
			}
			continue
		}
		w, ok := winner(opts, v.Name)
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is missing", v.Name))
			continue
		}
		want, got := optionValue(v.Value, v.Bare), optionValue(w.value, w.bare)
		if normValue(want) == normValue(got) {
			seen++
			continue
		}
		problems = append(problems, fmt.Sprintf("%s = %s wins over orch's %s (an option file read after %s sets it)", v.Name, got, want, file))
	}
	if len(problems) == 0 {
		return nil
	}
	if seen == 0 && len(vars) > 0 {
		return fmt.Errorf("%s: %s is not read by the server: none of its settings appear in `%s`; set mysql.config_dir to a directory the server's option files include", host, file, printCmd)
	}
	return fmt.Errorf("%s: the server would not use orch's settings: %s; check with `%s`", host, strings.Join(problems, "; "), printCmd)
}
