package bench

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// figure is one number of a golden result and the key that holds it, as
// the golden's text spells it.
type figure struct{ key, text string }

func figures(v any, key string, out *[]figure) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			figures(e, k, out)
		}
	case []any:
		for _, e := range x {
			figures(e, key, out)
		}
	case json.Number:
		*out = append(*out, figure{key, x.String()})
	}
}

// printed reports whether text stands in the tool's output as a number of
// its own (not inside a longer one).
func printed(out, text string) bool {
	return regexp.MustCompile(`(^|[^0-9.])` + regexp.QuoteMeta(text) + `($|[^0-9])`).MatchString(out)
}

// The goldens were written by the parsers (-update); this holds them to
// something the parsers did not write: every figure of a golden result is
// printed in its input, digit for digit. The only figures that are not
// are 0 (a count or rank the output does not state: a run without its
// final report, percentile 0) and sysbench 0.4/0.5's "total time taken by
// event execution", which the tool prints in seconds and the result holds
// in milliseconds (latency_ms.sum): it must be the printed seconds x 1000.
func TestGoldenFiguresComeFromTheInput(t *testing.T) {
	for _, path := range inputs(t) {
		name := filepath.Base(path)
		golden := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".txt")+".json")
		dec := json.NewDecoder(bytes.NewReader(readFile(t, golden)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", golden, err)
		}
		var fs []figure
		figures(v, "", &fs)
		if len(fs) == 0 {
			continue
		}
		in := string(readFile(t, path))
		legacy := strings.Contains(in, "total time taken by event execution")
		for _, f := range fs {
			switch {
			case printed(in, f.text), f.text == "0":
			case f.key == "iteration" && dbInsertBatch(in, f.text):
				// The seed's db-insert text numbers no batch: the
				// iteration is the batch line's place.
			case f.key == "sum" && legacy:
				ms, _ := strconv.ParseFloat(f.text, 64)
				s := strconv.FormatFloat(ms/1000, 'f', -1, 64)
				if !printed(in, s) && !printed(in, s+"s") {
					t.Errorf("%s: latency_ms.sum %s is not the printed total time %s s x 1000", name, f.text, s)
				}
			default:
				t.Errorf("%s: %s %s is in the golden but not printed in the input", name, f.key, f.text)
			}
		}
	}
}

// dbInsertBatch reports whether db-insert output has a batch line at
// 0-based place n: its "serial" lines, numbered or not.
func dbInsertBatch(out, n string) bool {
	i, err := strconv.Atoi(n)
	return err == nil && i < len(regexp.MustCompile(`(?m)^\s*(\d+\s+)?serial\s`).FindAllString(out, -1))
}
