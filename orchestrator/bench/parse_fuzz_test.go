package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The seed corpus is every committed input in testdata (samples, captures,
// hand-made variants) plus a few edge cases; inputs the fuzzer finds failing
// are kept in testdata/fuzz/<FuzzName>/ as regression cases.
func addSeeds(f *testing.F) {
	for _, path := range inputs(f) {
		f.Add(readFile(f, path))
	}
	for _, s := range []string{
		"", "\n", "\r\n", "[", "[ 1s ] thds:", "[   1s] threads:", "Benchmark\n\t", "User time ",
		"SQL statistics:\n    transactions: 1 (1.00 per sec.)\n",
		"Latency histogram (values are in milliseconds)\n 1 |\n",
		"serial 1s 1/s cumulative",
		"General statistics:\n    response time:\n         approx. 0 percentile: 1.00ms\n",
	} {
		f.Add([]byte(s))
	}
}

const fuzzName = "fuzz.txt"

// checkParsed asserts the properties every parser keeps on any input: errors
// are one-line *ParseErrors naming the file; a result comes back exactly
// when parsing succeeded or the output is merely incomplete; results marshal
// to JSON that reads back unchanged.
func checkParsed(t *testing.T, res Result, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != fuzzName || !strings.HasPrefix(err.Error(), fuzzName+":") ||
			strings.Contains(err.Error(), "\n") {
			t.Fatalf("error %q (%T) does not name the file on one line", err, err)
		}
		if errors.Is(err, ErrIncomplete) != (res != nil) {
			t.Fatalf("result %v with error %v: want a result exactly for incomplete output", res, err)
		}
	} else if res == nil {
		t.Fatal("nil result without error")
	}
	if res == nil {
		return
	}
	b, merr := json.Marshal(res)
	if merr != nil {
		t.Fatalf("marshal %T: %v", res, merr)
	}
	typ := reflect.TypeOf(res)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	back := reflect.New(typ).Interface()
	if uerr := json.Unmarshal(b, back); uerr != nil {
		t.Fatalf("unmarshal own JSON %s: %v", b, uerr)
	}
	if b2, _ := json.Marshal(back); !bytes.Equal(b, b2) {
		t.Fatalf("JSON round trip changed\n%s\n%s", b, b2)
	}
	if s, ok := res.(*Sysbench); ok && (s.Percentile != s.LatencyMS.Percentile || s.Complete != (err == nil)) {
		t.Fatalf("inconsistent sysbench result: %+v, err %v", s, err)
	}
}

func FuzzParseSysbench(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseSysbench(fuzzName, bytes.NewReader(data))
		if res == nil {
			checkParsed(t, nil, err)
		} else {
			checkParsed(t, res, err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if iv, ok := ParseSysbenchInterval(line); ok {
				if _, err := json.Marshal(iv); err != nil {
					t.Fatalf("interval from %q does not marshal: %v", line, err)
				}
			}
		}
	})
}

func FuzzParseMysqlslap(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseMysqlslap(fuzzName, bytes.NewReader(data))
		if res == nil {
			checkParsed(t, nil, err)
			return
		}
		checkParsed(t, res, err)
		for _, b := range res {
			if b.Tool != ToolMysqlslap || !b.AvgS.IsSet() || !b.MinS.IsSet() || !b.MaxS.IsSet() {
				t.Fatalf("block without its figures: %+v", b)
			}
		}
	})
}

func FuzzParseDBInsert(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseDBInsert(fuzzName, bytes.NewReader(data))
		if res == nil {
			checkParsed(t, nil, err)
			return
		}
		checkParsed(t, res, err)
		for _, b := range res.Batches {
			if !b.CumulativeS.IsSet() {
				t.Fatalf("batch without its cumulative part: %+v", b)
			}
		}
	})
}

func FuzzParseAuto(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ParseAuto(fuzzName, bytes.NewReader(data))
		checkParsed(t, res, err)
		head := data[:min(len(data), sniffLen)]
		tool := Detect(head)
		if tool == "" {
			if res != nil || err == nil {
				t.Fatalf("undetected input parsed: %v %v", res, err)
			}
			return
		}
		want, wantErr := Parse(tool, fuzzName, bytes.NewReader(data))
		if !reflect.DeepEqual(res, want) || !reflect.DeepEqual(err, wantErr) {
			t.Fatalf("ParseAuto differs from Parse(%q): %v %v vs %v %v", tool, res, err, want, wantErr)
		}
	})
}
