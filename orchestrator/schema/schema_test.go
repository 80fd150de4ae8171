package schema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/internal/imports"
)

// seeds are the JSON a type that decodes itself is filled from: its
// fields are not the keys it writes.
var seeds = map[reflect.Type]string{
	reflect.TypeFor[Benchmark]():       `{"tool":"sysbench","tps":3.5}`,
	reflect.TypeFor[Inventory]():       `{"name":"east","hosts":[{"name":"master","role":"master"}]}`,
	reflect.TypeFor[json.RawMessage](): `{"k":1}`,
}

// fill sets every exported field of v, recursively, to a value that is
// not its zero: a pointer to a filled value, one filled element, one key.
// n makes the values of one call distinct from another's.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	if seed, ok := seeds[v.Type()]; ok {
		if err := json.Unmarshal([]byte(seed), v.Addr().Interface()); err != nil {
			t.Fatalf("seed %s: %v", v.Type(), err)
		}
		return
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 12, 1, 10, 0, *n, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + strconv.Itoa(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(t, v.Index(0), n)
	case reflect.Interface:
		v.Set(reflect.ValueOf(float64(*n) + 0.25))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(t, k, n)
		fill(t, e, n)
		v.SetMapIndex(k, e)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), n)
			}
		}
	default:
		t.Fatalf("fill: %s (%s) has no filler", v.Type(), v.Kind())
	}
}

// Every file of a run directory, written with every field set, reads back
// through its type equal, with unknown keys refused: every key a writer
// writes is one the readers know, and none is lost on the way.
func TestEveryFileRoundTrips(t *testing.T) {
	for _, doc := range []any{&Manifest{}, &Results{}, &Matrix{}, &Event{}, &Why{}} {
		n := 0
		fill(t, reflect.ValueOf(doc).Elem(), &n)
		name := reflect.TypeOf(doc).Elem().Name()
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := reflect.New(reflect.TypeOf(doc).Elem()).Interface()
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(got); err != nil {
			t.Errorf("%s: written %s\nread back: %v", name, b, err)
			continue
		}
		if !reflect.DeepEqual(got, doc) {
			again, _ := json.Marshal(got)
			t.Errorf("%s read back differs:\n got %s\nwrote %s", name, again, b)
		}
	}
}

// A results.json's benchmark is the JSON its result marshals to, kept as
// written when read; a file without schema_version is version 0; a null
// benchmark is none; a missing file is no error.
func TestResultsBenchmarkAndVersion0(t *testing.T) {
	res := NewResults()
	res.Benchmark = Benchmark{Result: map[string]float64{"tps": 3}}
	path := filepath.Join(t.TempDir(), "results.json")
	b, _ := json.Marshal(res)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadResults(path)
	if err != nil || !ok {
		t.Fatalf("read: %v %v", ok, err)
	}
	if got.SchemaVersion != SchemaVersion || got.Benchmark.Result != nil || string(got.Benchmark.JSON()) != `{"tps":3}` {
		t.Fatalf("read back %+v, benchmark %s", got, got.Benchmark.JSON())
	}
	var r Results
	if err := json.Unmarshal([]byte(`{"workload":"w","tool":"sysbench","benchmark":null,"sizes":{"master":{"data_bytes":3}}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.SchemaVersion != 0 || r.Benchmark.JSON() != nil || r.Sizes["master"].DataBytes != 3 {
		t.Fatalf("%+v", r)
	}
	b, _ = json.Marshal(r)
	if strings.Contains(string(b), "schema_version") || !strings.Contains(string(b), `"benchmark":null`) {
		t.Fatalf("version 0 written back as %s", b)
	}
	if _, ok, err := ReadResults(filepath.Join(t.TempDir(), "results.json")); ok || err != nil {
		t.Fatalf("missing file: %v %v", ok, err)
	}
}

// schema is a leaf: a reader of a run directory takes nothing with it
// that reaches a host.
func TestSchemaImportsNoOrchPackage(t *testing.T) {
	files, err := imports.Of(".")
	if err != nil {
		t.Fatal(err)
	}
	for f, deps := range files {
		for _, p := range deps {
			t.Errorf("%s imports %s: schema is plain data and imports no orch package", f, p)
		}
	}
}

// TestOptionTextPlainNumbers: a workload option read back from a
// manifest's JSON prints as the workload file wrote it: table_size 1000000
// is "1000000" (fmt.Sprint of the float64 JSON decodes gives "1e+06"),
// 0.5 stays "0.5", lists join with commas.
func TestOptionTextPlainNumbers(t *testing.T) {
	var opts map[string]any
	if err := json.Unmarshal([]byte(`{"table_size": 1000000, "ratio": 0.5, "threads": [4, 8], "mode": "x"}`), &opts); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"table_size": "1000000", "ratio": "0.5", "threads": "4,8", "mode": "x"} {
		if got := OptionText(opts[k]); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
}
