package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the goldens from the parsers' output. The goldens are
// serialisation snapshots only (the JSON shape: key names and order, null
// against 0, Number's verbatim digits, the error's one line), which may be
// regenerated; the figures themselves are held by inputFacts
// (parse_facts_table_test.go), typed from each input's text, which
// -update does not touch.
var update = flag.Bool("update", false, "rewrite testdata/golden (JSON serialisation snapshots only; the parsed figures are held by inputFacts, typed from the inputs' text)")

// inputs lists the parser inputs in testdata (samples, captures, hand-made).
func inputs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test inputs in testdata: %v", err)
	}
	return files
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// toJSON renders a result the way golden files hold it.
func toJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	return append(b, '\n')
}

// TestGolden parses every input with ParseAuto and compares the JSON result
// and the error text with testdata/golden: a snapshot of the serialisation,
// which -update rewrites. It cannot tell a right figure from a wrong one
// (the parser wrote it); TestParsedFiguresMatchTheText does.
func TestGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range inputs(t) {
		name := filepath.Base(path)
		jsonFile := filepath.Join("testdata", "golden", strings.TrimSuffix(name, ".txt")+".json")
		errFile := strings.TrimSuffix(jsonFile, ".json") + ".err"
		seen[filepath.Base(jsonFile)], seen[filepath.Base(errFile)] = true, true
		t.Run(name, func(t *testing.T) {
			res, err := ParseAuto(name, bytes.NewReader(readFile(t, path)))
			var gotErr []byte
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.File != name || !errors.Is(err, ErrIncomplete) {
					t.Fatalf("golden inputs may only fail as incomplete *ParseError for %s, got %T %v", name, err, err)
				}
				gotErr = []byte(err.Error() + "\n")
			}
			gotJSON := toJSON(t, res)
			if *update {
				writeGolden(t, jsonFile, gotJSON)
				writeGolden(t, errFile, gotErr)
				return
			}
			compareGolden(t, jsonFile, gotJSON)
			compareGolden(t, errFile, gotErr)
		})
	}
	golden, _ := filepath.Glob("testdata/golden/*")
	for _, g := range golden {
		if !seen[filepath.Base(g)] {
			t.Errorf("stale golden file %s has no input", g)
		}
	}
}

// writeGolden writes want, or removes the file when want is nil.
func writeGolden(t *testing.T, path string, want []byte) {
	t.Helper()
	if want == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	want, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if got != nil {
			t.Fatalf("%s missing; output:\n%s(run with -update)", path, got)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// TestGoldenRoundTrip checks that results read back from their JSON (as a
// later `orch` command will read saved results) marshal to the same bytes:
// Number keeps every printed digit, Latency its percentile key.
func TestGoldenRoundTrip(t *testing.T) {
	for _, path := range inputs(t) {
		res, _ := ParseAuto(path, bytes.NewReader(readFile(t, path)))
		if res == nil {
			continue
		}
		want := toJSON(t, res)
		var back Result
		switch res.(type) {
		case *Sysbench:
			back = &Sysbench{}
		case Mysqlslap:
			back = &Mysqlslap{}
		case *DBInsert:
			back = &DBInsert{}
		}
		if err := json.Unmarshal(want, back); err != nil {
			t.Fatalf("%s: unmarshal: %v", path, err)
		}
		if got := toJSON(t, back); !bytes.Equal(got, want) {
			t.Errorf("%s: JSON round trip changed the result\ngot:\n%s\nwant:\n%s", path, got, want)
		}
	}
}
