package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The facts of every parser input are held here, not by the goldens that
// -update writes from the parsers' own output: inputFacts (typed from each
// file's text) and the naive readers below (a few regexps over the tool's
// repeated lines, written for this test and sharing nothing with the
// parsers). TestParsedFiguresMatchTheText compares every figure of every
// parsed result with them, so a parser that is wrong fails here whatever
// its golden says.

// facts is what a person reads off one input file.
type facts struct {
	// kv holds "key value" pairs: the result's JSON key (a dotted path,
	// "#" for a list's length) and the value as the text prints it.
	kv string
	// blocks: mysqlslap's Benchmark blocks in order, each "engine avg min
	// max clients queries-per-client" ("-" for a block without engine).
	blocks []string
	// rusage: mysqlslap's --debug-info figures "user sys maxrss voluntary
	// involuntary", printed once and held by every block.
	rusage string
	// batches: db-insert's batch lines in order, each "serial_s serial_rate
	// random_s random_rate cumulative_s cumulative_rate" ("-" where the
	// line has no such half).
	batches []string
	// err: what the error must say besides the file name (nil: no error).
	err []string
}

// expand turns facts into the flat key -> printed text map results are
// compared with.
func (f facts) expand(t *testing.T) map[string]string {
	t.Helper()
	want := map[string]string{}
	put := func(prefix string, keys []string, values string) {
		v := strings.Fields(values)
		if len(v) != len(keys) {
			t.Fatalf("facts %q: %d values for %d keys %v", values, len(v), len(keys), keys)
		}
		for i, k := range keys {
			if v[i] != "-" {
				want[prefix+k] = v[i]
			}
		}
	}
	kv := strings.Fields(f.kv)
	if len(kv)%2 != 0 {
		t.Fatalf("facts %q: odd number of fields", f.kv)
	}
	for i := 0; i < len(kv); i += 2 {
		want[kv[i]] = kv[i+1]
	}
	if f.blocks != nil {
		want["#"] = strconv.Itoa(len(f.blocks))
	}
	for i, b := range f.blocks {
		p := strconv.Itoa(i) + "."
		want[p+"tool"] = "mysqlslap"
		put(p, []string{"engine", "avg_s", "min_s", "max_s", "clients", "queries_per_client"}, b)
		if f.rusage != "" {
			put(p+"rusage.", []string{"user_s", "sys_s", "max_rss_kb", "voluntary_cs", "involuntary_cs"}, f.rusage)
		}
	}
	if f.batches != nil {
		want["batches#"] = strconv.Itoa(len(f.batches))
	}
	for i, b := range f.batches {
		p := "batches." + strconv.Itoa(i) + "."
		want[p+"iteration"] = strconv.Itoa(i)
		put(p, []string{"serial_s", "serial_rate", "random_s", "random_rate", "cumulative_s", "cumulative_rate"}, b)
	}
	return want
}

// Naive readers of sysbench's repeated lines: one regexp per printed
// layout, keys named after the result's JSON.
var (
	naiveIntervals = []struct {
		re   *regexp.Regexp
		keys []string
	}{
		// 1.x: "[ 1s ] thds: 2 tps: 483.87 qps: 9718.32 (r/w/o: a/b/c) lat (ms,95%): 5.88 err/s: 1.00 reconn/s: 0.00"
		// (sysbench.report_default prints "err/s" without its colon).
		{regexp.MustCompile(`^\[ (\d+)s \] thds: (\d+) tps: (\S+) qps: (\S+) \(r/w/o: (\S+)/(\S+)/(\S+)\) lat \(ms,\d+%\): (\S+) err/s:? (\S+) reconn/s: (\S+)$`),
			[]string{"t", "threads", "tps", "qps", "reads", "writes", "others", "lat_ms", "errors", "reconnects"}},
		// 0.5: "[   1s] threads: 64, tps: 0.00, reads: 0.00, writes: 8112.35, response time: 14.02ms (95%), errors: 0.00, reconnects:  0.00"
		{regexp.MustCompile(`^\[ *(\d+)s\] threads: (\d+), tps: (\S+), reads: (\S+), writes: (\S+), response time: (\S+)ms \(\d+%\), errors: (\S+), reconnects: +(\S+)$`),
			[]string{"t", "threads", "tps", "reads", "writes", "lat_ms", "errors", "reconnects"}},
		// 0.4: "[   1s] threads: 8, tps: 412.95, reads/s: 5781.26, writes/s: 2064.74 response time: 31.36ms (95%)"
		{regexp.MustCompile(`^\[ *(\d+)s\] threads: (\d+), tps: (\S+), reads/s: (\S+), writes/s: (\S+) response time: (\S+)ms \(\d+%\)$`),
			[]string{"t", "threads", "tps", "reads", "writes", "lat_ms"}},
	}
	// "       1.392 |*                                        1"
	naiveHistogramRow = regexp.MustCompile(`^ +(\d+\.\d+) \|\** +(\d+)$`)
)

// readRepeatedLines adds to want what the naive readers find in text: every
// interval line and histogram row. It returns how many of each it found. A
// value the table also types (the first and last interval's tps) must agree:
// that checks the readers.
func readRepeatedLines(t *testing.T, text string, want map[string]string) (intervals, rows int) {
	t.Helper()
	add := func(key, v string) {
		if typed, ok := want[key]; ok && typed != v {
			t.Errorf("the naive reader read %s = %q, the table says %q", key, v, typed)
		}
		want[key] = v
	}
	for _, line := range strings.Split(text, "\n") {
		if m := naiveHistogramRow.FindStringSubmatch(line); m != nil {
			p := "histogram." + strconv.Itoa(rows) + "."
			add(p+"value_ms", m[1])
			add(p+"count", m[2])
			rows++
			continue
		}
		for _, l := range naiveIntervals {
			if m := l.re.FindStringSubmatch(line); m != nil {
				for i, k := range l.keys {
					add("intervals."+strconv.Itoa(intervals)+"."+k, m[i+1])
				}
				intervals++
				break
			}
		}
	}
	return intervals, rows
}

// flatten lists every value of a result's JSON by dotted path; a list also
// gives its length under path+"#". null (not printed) gives nothing.
func flatten(path string, v any, out map[string]string) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(join(k), e, out)
		}
	case []any:
		out[path+"#"] = strconv.Itoa(len(x))
		for i, e := range x {
			flatten(join(strconv.Itoa(i)), e, out)
		}
	case json.Number:
		out[path] = x.String()
	case string:
		out[path] = x
	case bool:
		out[path] = strconv.FormatBool(x)
	}
}

// TestParsedFiguresMatchTheText parses every input and compares every
// figure of the result with the facts read off its text: each fact must be
// in the result as printed, and each figure of the result must be a fact,
// except the zero values the result's JSON conventions give what the text
// does not print (0, false, empty).
func TestParsedFiguresMatchTheText(t *testing.T) {
	seen := map[string]bool{}
	for _, path := range inputs(t) {
		name := filepath.Base(path)
		seen[name] = true
		f, ok := inputFacts[name]
		if !ok {
			t.Errorf("%s has no entry in inputFacts: type what its text shows", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			text := string(readFile(t, path))
			want := f.expand(t)
			intervals, rows := readRepeatedLines(t, text, want)
			// The typed counts check the naive readers themselves.
			for key, n := range map[string]int{"intervals#": intervals, "histogram#": rows} {
				if typed, _ := strconv.Atoi(want[key]); typed != n {
					t.Errorf("the naive reader found %d lines for %s, the table says %d", n, key, typed)
				}
			}
			res, err := ParseAuto(name, strings.NewReader(text))
			checkFactsError(t, name, err, f.err)
			got := map[string]string{}
			if res != nil {
				dec := json.NewDecoder(bytes.NewReader(toJSON(t, res)))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
				flatten("", v, got)
			}
			for _, k := range slices.Sorted(maps.Keys(want)) {
				if got[k] != want[k] {
					t.Errorf("%s = %q, the text says %q", k, got[k], want[k])
				}
			}
			for _, k := range slices.Sorted(maps.Keys(got)) {
				if _, ok := want[k]; !ok && got[k] != "0" && got[k] != "false" && got[k] != "" {
					t.Errorf("%s = %q is in the result but not among the facts read off the text", k, got[k])
				}
			}
		})
	}
	for name := range inputFacts {
		if !seen[name] {
			t.Errorf("inputFacts has %s, which is not an input in testdata", name)
		}
	}
}

// checkFactsError: an input whose text lacks what the parser needs fails as
// an incomplete *ParseError whose one line names the file and says what is
// missing; any other input parses without error.
func checkFactsError(t *testing.T, name string, err error, want []string) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var pe *ParseError
	if err == nil || !errors.As(err, &pe) || !errors.Is(err, ErrIncomplete) {
		t.Fatalf("error %v (%T), want an incomplete *ParseError", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name+": ") || strings.Contains(msg, "\n") {
		t.Errorf("error %q does not start with the file name %s on one line", msg, name)
	}
	for _, w := range want {
		if !strings.Contains(strings.TrimPrefix(msg, name+": "), w) {
			t.Errorf("error %q does not say %q", msg, w)
		}
	}
}
