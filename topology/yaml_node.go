package topology

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/orch-bench/orch/orchestrator/suggest"
)

// Generic yaml.Node helpers: positions, kinds, mappings and typed scalars.
// Every error names the dotted path of the key it is about.

func (d *yamlDecoder) pos(n *yaml.Node) Pos {
	return Pos{File: d.file, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (d *yamlDecoder) errAt(n *yaml.Node, format string, args ...any) error {
	return newError(d.pos(n), fmt.Sprintf(format, args...))
}

// deref follows aliases to the anchored node. yaml.v3 rejects undefined and
// self-containing anchors, so the chain is short; the bound is belt and braces.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names a node's kind for "expected X; found Y" messages. Scalars
// are quoted only when echo is set: a value in the wrong place may be a
// secret (an ips.txt read as YAML is one big string holding a password).
func describe(n *yaml.Node, echo bool) string {
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		var kind string
		switch n.ShortTag() {
		case "!!null":
			return "no value"
		case "!!str":
			kind = "a string"
		case "!!int":
			kind = "an integer"
		case "!!float":
			kind = "a number"
		case "!!bool":
			kind = "a boolean"
		default:
			kind = "a " + n.ShortTag() + " value"
		}
		switch {
		case echo && n.ShortTag() == "!!str":
			return fmt.Sprintf("%s %q", kind, clip(n.Value))
		case echo:
			return kind + " " + clip(n.Value)
		}
		return kind
	}
	return "an unsupported YAML node"
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// mapping walks the key/value pairs of a mapping in document order,
// rejecting unknown, duplicate and merge keys. A null value (a section
// whose keys are all commented out) is an empty mapping.
func (d *yamlDecoder) mapping(n *yaml.Node, path string, keys []string, fn func(key string, k, v *yaml.Node) error) error {
	n = deref(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, "%s: expected a mapping; found %s", path, describe(n, false))
	}
	// Every key is checked, a bad one does not hide the next: the file's
	// problems are reported together.
	var errs []error
	seen := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), n.Content[i+1]
		var err error
		switch prev, dup := seen[k.Value]; {
		case k.Kind != yaml.ScalarNode:
			err = d.errAt(k, "%s: keys must be plain names; found %s", orTop(path), describe(k, false))
		case k.ShortTag() == "!!merge":
			err = d.errAt(k, "%s: merge keys (<<) are not supported; use defaults", orTop(path))
		case !slices.Contains(keys, k.Value):
			err = d.errAt(k, "%sunknown key %q%s (valid keys: %s)", prefix(path), clip(k.Value),
				suggest.DidYouMean(suggest.Closest(k.Value, keys)), strings.Join(keys, ", "))
		case dup:
			err = d.errAt(k, "%s: duplicate key (first at line %d)", join(path, k.Value), prev.Line)
		default:
			seen[k.Value] = k
			err = fn(k.Value, k, v)
		}
		errs = append(errs, err)
	}
	return joinErrors(errs...)
}

func prefix(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

func orTop(path string) string {
	if path == "" {
		return "top level"
	}
	return path
}

// scalar returns a leaf value, rejecting nulls and collections.
func (d *yamlDecoder) scalar(n *yaml.Node, path, want string) (*yaml.Node, error) {
	n = deref(n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return nil, d.errAt(n, "%s: expected %s; found %s", path, want, describe(n, false))
	}
	return n, nil
}

// str accepts strings and, since YAML would read `user: 1000` as an
// integer, numbers written as plain scalars; not booleans. Control
// characters (only possible through quoted escapes) are rejected.
func (d *yamlDecoder) str(n *yaml.Node, path string) (string, error) {
	return d.text(n, path, false)
}

// command is str for shell commands, which may span lines (`start: |`).
func (d *yamlDecoder) command(n *yaml.Node, path string) (string, error) {
	return d.text(n, path, true)
}

func (d *yamlDecoder) text(n *yaml.Node, path string, multiline bool) (string, error) {
	n, err := d.scalar(n, path, "a string")
	if err != nil {
		return "", err
	}
	switch n.ShortTag() {
	case "!!str", "!!int", "!!float":
	default:
		return "", d.errAt(n, "%s: expected a string; found %s", path, describe(n, true))
	}
	if strings.ContainsFunc(n.Value, func(r rune) bool { return isControl(r) && !(multiline && r == '\n') }) {
		return "", d.errAt(n, "%s: control characters are not allowed", path)
	}
	return n.Value, nil
}

// port accepts a decimal integer 1..65535 (not YAML's octal 017 or 0x16).
func (d *yamlDecoder) port(n *yaml.Node, path string) (int, error) {
	n, err := d.scalar(n, path, "a port number")
	if err != nil {
		return 0, err
	}
	if n.ShortTag() != "!!int" || strings.Trim(n.Value, "0123456789") != "" {
		return 0, d.errAt(n, "%s: expected a port number 1..65535; found %s", path, describe(n, true))
	}
	p, problem := parsePort(n.Value)
	if problem != "" {
		return 0, d.errAt(n, "%s: %s", path, problem)
	}
	return p, nil
}

// positive reads a decimal integer 1..2^64-1. The text is checked rather
// than the tag: yaml.v3 tags an integer too large for int64 as a float.
// Quoted numbers are strings and refused, as for ports.
func (d *yamlDecoder) positive(n *yaml.Node, path, want string) (uint64, error) {
	n, err := d.scalar(n, path, want)
	if err != nil {
		return 0, err
	}
	tag := n.ShortTag()
	if tag != "!!int" && tag != "!!float" || n.Value == "" || strings.Trim(n.Value, "0123456789") != "" {
		return 0, d.errAt(n, "%s: expected %s; found %s", path, want, describe(n, true))
	}
	v, perr := strconv.ParseUint(n.Value, 10, 64)
	switch {
	case perr != nil:
		return 0, d.errAt(n, "%s: %s is too large (at most %d)", path, clip(n.Value), uint64(math.MaxUint64))
	case v == 0:
		return 0, d.errAt(n, "%s: must be at least 1; found 0", path)
	}
	return v, nil
}

func (d *yamlDecoder) boolean(n *yaml.Node, path string) (bool, error) {
	n, err := d.scalar(n, path, "true or false")
	if err != nil {
		return false, err
	}
	if n.ShortTag() != "!!bool" {
		return false, d.errAt(n, "%s: expected true or false; found %s", path, describe(n, true))
	}
	b, _ := strconv.ParseBool(strings.ToLower(n.Value))
	return b, nil
}

func (d *yamlDecoder) duration(n *yaml.Node, path string) (time.Duration, error) {
	n, err := d.scalar(n, path, "a duration such as 10s")
	if err != nil {
		return 0, err
	}
	if n.ShortTag() != "!!str" {
		return 0, d.errAt(n, "%s: expected a duration with a unit such as 10s; found %s", path, describe(n, true))
	}
	v, perr := time.ParseDuration(n.Value)
	switch {
	case perr != nil:
		return 0, d.errAt(n, "%s: invalid duration %q (write e.g. 10s, 1m30s)", path, clip(n.Value))
	case v <= 0:
		return 0, d.errAt(n, "%s: duration must be positive; found %s", path, n.Value)
	}
	return v, nil
}

// localPath reads a path on the control machine: "~/" is expanded and a
// relative path is taken relative to the inventory's directory.
func (d *yamlDecoder) localPath(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path)
	if err != nil {
		return "", err
	}
	p, perr := d.paths.resolve(s)
	if perr != nil {
		return "", d.errAt(n, "%s: %v", path, perr)
	}
	return p, nil
}

// remotePath reads an absolute path on a cluster host (never expanded here:
// "~" on the host is not "~" on the control machine).
func (d *yamlDecoder) remotePath(n *yaml.Node, path string) (string, error) {
	s, err := d.str(n, path)
	if err == nil && s != "" && !strings.HasPrefix(s, "/") {
		err = d.errAt(n, "%s: %q must be an absolute path on the host", path, clip(s))
	}
	return s, err
}
