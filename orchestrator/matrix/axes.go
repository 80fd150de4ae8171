package matrix

import (
	"errors"
	"fmt"
	"github.com/orch-bench/orch/orchestrator/schema"
	"strings"

	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// Separators of the --knobs syntax (see the package doc).
const (
	knobSep  = ";"
	valueSep = ","
)

// Values a bare knob name sweeps, in this order: the first is the baseline,
// and ON is the server default of the booleans one usually sweeps.
var boolValues = []string{"ON", "OFF"}

// Axis is one knob of the matrix and the values it takes, in the order
// given; KV one knob setting of a cell. Both are matrix.json's own types
// (orchestrator/schema).
type (
	Axis = schema.Axis
	KV   = schema.KV
)

// ParseKnobAxes reads the --knobs flag values (the flag may be repeated):
// knobs joined by ';', each NAME (ON and OFF) or NAME=V1,V2,... Axes come in
// the order given. Errors are one line quoting the offending text.
func ParseKnobAxes(flags []string) ([]Axis, error) {
	var axes []Axis
	seen := map[string]bool{}
	for _, flag := range flags {
		if strings.TrimSpace(flag) == "" {
			return nil, errors.New(`--knobs "": empty; want NAME, NAME=V1,V2,... or several joined by ';'`)
		}
		for _, seg := range strings.Split(flag, knobSep) {
			seg = strings.TrimSpace(seg)
			if seg == "" {
				return nil, fmt.Errorf("--knobs %q: empty knob (';' at an end or twice in a row)", flag)
			}
			ax, err := parseAxis(seg)
			if err != nil {
				return nil, fmt.Errorf("--knobs %q: %w", seg, err)
			}
			if seen[ax.Name] {
				return nil, fmt.Errorf("--knobs %q: %s is given twice", seg, ax.Name)
			}
			seen[ax.Name] = true
			axes = append(axes, ax)
		}
	}
	return axes, nil
}

// parseAxis reads one knob: NAME or NAME=V1,V2,...
func parseAxis(seg string) (Axis, error) {
	rawName, list, hasValues := strings.Cut(seg, "=")
	rawName = strings.TrimSpace(rawName)
	if rawName == "" {
		return Axis{}, errors.New("missing the knob name before '='")
	}
	name := normName(rawName)
	if !validName(name) {
		return Axis{}, fmt.Errorf("%q is not a server variable name", rawName)
	}
	ax := Axis{Name: name}
	if !hasValues {
		ax.Values = append([]string(nil), boolValues...)
		return ax, nil
	}
	for _, v := range strings.Split(list, valueSep) {
		v = strings.TrimSpace(v)
		if v == "" {
			return Axis{}, fmt.Errorf("%s has an empty value", name)
		}
		for _, prev := range ax.Values {
			// Server values are case-insensitive keywords or numbers: on
			// and ON are the same cell.
			if strings.EqualFold(prev, v) {
				return Axis{}, fmt.Errorf("%s value %s is given twice", name, v)
			}
		}
		// The server package owns what a knob value may hold (it ends up in
		// an option file and in SET GLOBAL); checking here fails the whole
		// matrix up front instead of at the first cell that uses it.
		if _, err := server.ParseKnobs([]string{name + "=" + v}); err != nil {
			return Axis{}, errors.New(strings.TrimPrefix(err.Error(), "--knob "))
		}
		ax.Values = append(ax.Values, v)
	}
	return ax, nil
}

// ParseEngines reads --engines: profile names separated by ',', lower-cased,
// each once. Whether a server has an engine is for the caller's validation.
func ParseEngines(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, errors.New(`--engines "": empty; want profiles such as innodb,rocksdb`)
	}
	var out []string
	for _, part := range strings.Split(s, valueSep) {
		e := strings.ToLower(strings.TrimSpace(part))
		switch {
		case e == "":
			return nil, fmt.Errorf("--engines %q: empty engine name", s)
		case !validName(e):
			return nil, fmt.Errorf("--engines %q: %q is not an engine name", s, strings.TrimSpace(part))
		}
		for _, prev := range out {
			if prev == e {
				return nil, fmt.Errorf("--engines %q: %s is given twice", s, e)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// normName spells a variable name as SHOW VARIABLES does. loose- is an
// option-file prefix; the matrix names variables, so it goes.
func normName(s string) string { return flavor.VariableName(s) }

// validName reports whether n can be a variable or engine name. It ends up
// in cell ids (paths) and SQL, so nothing but [a-z0-9_] is allowed.
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
