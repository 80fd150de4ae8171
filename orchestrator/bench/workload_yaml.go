package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/orch-bench/orch/topology"
)

// The workload file is decoded field by field from the yaml.Node tree (the
// struct's yaml tags say which keys exist) instead of with yaml.v3's
// KnownFields: that way every error, an unknown or duplicate key as much as
// a value of the wrong type, carries FILE:LINE:COL like the inventory's.

// ParseWorkload decodes and validates a workload file's contents. source
// names the file in errors and gives the default name (its base name
// without .yaml). Errors are *topology.Error values: "FILE:LINE:COL: msg".
func ParseWorkload(source string, data []byte) (*Workload, error) {
	root, err := workloadDocument(source, data)
	if err != nil {
		return nil, err
	}
	w := &Workload{Source: source, pos: map[string]topology.Pos{}}
	d := &wlDecoder{file: source, pos: w.pos}
	if root.Kind != yaml.MappingNode {
		return nil, d.errAt(root, "expected a mapping with keys %s; found %s",
			strings.Join(structKeys(reflect.TypeFor[Workload]()), ", "), describeNode(root))
	}
	if err := d.decodeStruct(root, "", reflect.ValueOf(w).Elem()); err != nil {
		return nil, err
	}
	if w.Name == "" {
		w.Name = defaultName(source)
	}
	w.applyDefaults()
	if err := w.validate(); err != nil {
		return nil, err
	}
	return w, nil
}

// yamlErrRE splits yaml.v3's syntax errors: "yaml: [line N: ]problem".
var yamlErrRE = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

func workloadDocument(file string, data []byte) (*yaml.Node, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &topology.Error{Pos: topology.Pos{File: file, Line: 1, Col: 1}, Msg: "workload is empty: expected a mapping with tool and options"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		return nil, syntaxErr(file, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, &topology.Error{Pos: topology.Pos{File: file, Line: max(extra.Line, 1), Col: max(extra.Column, 1)},
			Msg: "a second YAML document; a workload is a single document"}
	case !errors.Is(err, io.EOF):
		return nil, syntaxErr(file, data, err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, &topology.Error{Pos: topology.Pos{File: file, Line: 1, Col: 1}, Msg: "expected one YAML document"}
	}
	return doc.Content[0], nil
}

// syntaxErr positions a yaml.v3 syntax error. yaml.v3 gives the 1-based
// line for scanner problems but the 0-based one for parser problems ("did
// not find expected ..."), and no line at all when that number is 0.
func syntaxErr(file string, data []byte, err error) error {
	pos := topology.Pos{File: file, Line: 1}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if m := yamlErrRE.FindStringSubmatch(msg); m != nil {
		msg = m[2]
		if m[1] != "" {
			pos.Line, _ = strconv.Atoi(m[1])
			if strings.HasPrefix(msg, "did not find expected") {
				pos.Line++
			}
		}
	}
	pos.Line = min(max(pos.Line, 1), bytes.Count(data, []byte("\n"))+1)
	return &topology.Error{Pos: pos, Msg: "YAML syntax error: " + msg}
}

type wlDecoder struct {
	file string
	pos  map[string]topology.Pos
}

func (d *wlDecoder) at(n *yaml.Node) topology.Pos {
	return topology.Pos{File: d.file, Line: max(n.Line, 1), Col: max(n.Column, 1)}
}

func (d *wlDecoder) errAt(n *yaml.Node, format string, args ...any) error {
	return &topology.Error{Pos: d.at(n), Msg: strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")}
}

// decodeStruct fills the struct v from the mapping n: every key must be one
// of the struct's yaml tags, once. It records where each value is.
func (d *wlDecoder) decodeStruct(n *yaml.Node, path string, v reflect.Value) error {
	n = derefNode(n)
	if isNullNode(n) {
		return nil // a section with every key commented out
	}
	t := v.Type()
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, "%s: expected a mapping; found %s", path, describeNode(n))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := derefNode(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			return d.errAt(k, "%skeys must be plain names; found %s", prefixed(path), describeNode(k))
		}
		idx := fieldIndex(t, k.Value)
		if idx < 0 {
			return d.errAt(k, "%sunknown key %q (valid keys: %s)", prefixed(path), clip(k.Value), strings.Join(structKeys(t), ", "))
		}
		key := joinKey(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			return d.errAt(k, "%s: duplicate key (first at line %d)", key, line)
		}
		seen[k.Value] = k.Line
		d.pos[key] = d.at(derefNode(val))
		f := v.Field(idx)
		if f.Kind() == reflect.Struct {
			if err := d.decodeStruct(val, key, f); err != nil {
				return err
			}
			continue
		}
		if isNullNode(derefNode(val)) {
			return d.errAt(k, "%s: no value; expected %s", key, expectation(f.Type()))
		}
		if err := d.decodeValue(val, key, f); err != nil {
			return err
		}
		d.recordItems(derefNode(val), key)
	}
	return nil
}

// recordItems records where the entries of a list ("extra_args[1]") or a
// mapping ("env.NAME") are, so validation can point at one entry.
func (d *wlDecoder) recordItems(n *yaml.Node, key string) {
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			d.pos[fmt.Sprintf("%s[%d]", key, i)] = d.at(derefNode(c))
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			d.pos[key+"."+n.Content[i].Value] = d.at(n.Content[i])
		}
	}
}

// decodeValue decodes one value into f, replacing yaml.v3's messages with
// one that names the key and what was expected.
func (d *wlDecoder) decodeValue(n *yaml.Node, key string, f reflect.Value) error {
	tmp := reflect.New(f.Type())
	if err := n.Decode(tmp.Interface()); err != nil || !intTagged(n, f.Type()) {
		return d.errAt(derefNode(n), "%s: expected %s; found %s", key, expectation(f.Type()), describeNode(n))
	}
	f.Set(tmp.Elem())
	return nil
}

// intTagged rejects what yaml.v3 would otherwise truncate into an integer
// field: 1.5 must not become 1.
func intTagged(n *yaml.Node, t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() != reflect.Int || derefNode(n).ShortTag() == "!!int"
}

// UnmarshalYAML accepts 4, [4, 8] and "4,8".
func (l *IntList) UnmarshalYAML(n *yaml.Node) error {
	n = derefNode(n)
	var items []string
	switch n.Kind {
	case yaml.ScalarNode:
		items = strings.Split(n.Value, ",")
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c = derefNode(c); c.Kind != yaml.ScalarNode {
				return errors.New("not an integer")
			}
			items = append(items, c.Value)
		}
	default:
		return errors.New("not an integer list")
	}
	out := make(IntList, 0, len(items))
	for _, s := range items {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return errors.New("empty list")
	}
	*l = out
	return nil
}

// fieldIndex finds the field tagged key, or -1.
func fieldIndex(t reflect.Type, key string) int {
	for i := range t.NumField() {
		if yamlKey(t.Field(i)) == key {
			return i
		}
	}
	return -1
}

// structKeys lists the yaml keys of t, in declaration order.
func structKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if k := yamlKey(t.Field(i)); k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// yamlKey is a field's yaml key, "" for fields not in the file.
func yamlKey(sf reflect.StructField) string {
	k, _, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
	if k == "-" || !sf.IsExported() {
		return ""
	}
	return k
}

func expectation(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[IntList]():
		return "an integer or a list of integers"
	case reflect.TypeFor[[]string]():
		return "a list of strings"
	case reflect.TypeFor[map[string]string]():
		return "a mapping of names to strings"
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return "a string"
}

// describeNode names a node's kind for "expected X; found Y" messages.
func describeNode(n *yaml.Node) string {
	n = derefNode(n)
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if isNullNode(n) {
			return "no value"
		}
		return fmt.Sprintf("%q", clip(n.Value))
	}
	return "an unsupported YAML node"
}

func derefNode(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}

func isNullNode(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func joinKey(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func prefixed(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}

// defaultName is a file's base name without its YAML extension.
func defaultName(source string) string {
	base := source[strings.LastIndexAny(source, `/\`)+1:]
	for _, ext := range []string{".yaml", ".yml"} {
		if b, ok := strings.CutSuffix(base, ext); ok {
			return b
		}
	}
	return base
}
