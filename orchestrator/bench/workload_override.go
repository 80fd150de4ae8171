package bench

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// overrideAliases are the command-line spellings of option keys; '-' and
// '_' are interchangeable everywhere.
var overrideAliases = map[string]string{
	"time":            "time_s",
	"report_interval": "report_interval_s",
	"load_type":       "auto_generate_sql_load_type",
	"write_number":    "auto_generate_sql_write_number",
	"queries":         "number_of_queries",
}

// overrideFields are the top-level keys an override may set besides the
// options (where the program is, on a given host).
var overrideFields = []string{"binary", "workdir", "database"}

// Override applies command-line style settings, e.g. {"threads": "4",
// "time": "10", "table-size": "1000"} to shorten a run in a lab. Keys are
// option keys (threads, time_s, tables, table_size, events, concurrency,
// iterations, engine, ...; '-' for '_', time and report_interval without
// the _s) or binary, workdir, database. Values are written as in the YAML
// file ("4,8" for a concurrency list). An option that does not apply to
// the workload's tool is an error, so a typo never silently does nothing.
// The workload is unchanged when an error is returned.
func (w *Workload) Override(set map[string]string) error {
	c := *w
	c.pos = maps.Clone(w.pos)
	for _, raw := range slices.Sorted(maps.Keys(set)) {
		key := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(raw)), "-", "_")
		if a, ok := overrideAliases[key]; ok {
			key = a
		}
		path, err := c.overrideOne(key, set[raw])
		if err != nil {
			return fmt.Errorf("workload %s: override %s=%s: %w", w.Name, raw, clip(set[raw]), err)
		}
		delete(c.pos, path) // errors about it must not point into the file
	}
	if err := c.validate(); err != nil {
		return fmt.Errorf("workload %s: after overrides: %w", w.Name, err)
	}
	*w = c
	return nil
}

// overrideOne sets one key and returns its dotted path.
func (w *Workload) overrideOne(key, val string) (string, error) {
	target, path := reflect.ValueOf(&w.Options).Elem(), "options."+key
	if slices.Contains(overrideFields, key) {
		target, path = reflect.ValueOf(w).Elem(), key
	}
	idx := fieldIndex(target.Type(), key)
	if idx < 0 {
		return "", fmt.Errorf("unknown setting %q (for tool %s: %s; and %s)", key, w.Tool,
			strings.Join(optionKeys(w.Tool), ", "), strings.Join(overrideFields, ", "))
	}
	f := target.Field(idx)
	if f.Kind() == reflect.String {
		// Taken verbatim: YAML would read "!x" or "a: b" as syntax.
		f.SetString(val)
		return path, nil
	}
	var doc yaml.Node
	err := yaml.Unmarshal([]byte(val), &doc)
	if err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.ScalarNode {
		return "", fmt.Errorf("expected %s", expectation(f.Type()))
	}
	v := reflect.New(f.Type())
	if err := doc.Content[0].Decode(v.Interface()); err != nil || !intTagged(doc.Content[0], f.Type()) {
		return "", fmt.Errorf("expected %s", expectation(f.Type()))
	}
	f.Set(v.Elem())
	return path, nil
}
