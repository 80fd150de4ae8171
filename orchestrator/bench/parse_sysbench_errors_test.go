package bench

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const innodbRun = "sysbench-1.0-oltp_insert-innodb-run.txt"

// firstLines returns the first n lines of a testdata file, newline-terminated.
func firstLines(t *testing.T, file string, n int) string {
	t.Helper()
	lines := strings.SplitAfter(string(readFile(t, "testdata/"+file)), "\n")
	return strings.Join(lines[:n], "")
}

func TestParseSysbenchMalformed(t *testing.T) {
	head := firstLines(t, innodbRun, 12) // banner .. "Threads started!" and a blank line
	tests := []struct{ name, input, want string }{
		{"bad interval value", head + "[ 1s ] thds: 32 tps: 24x8.43 qps: 2498.43 (r/w/o: 0.00/2498.43/0.00) lat (ms,95%): 24.38 err/s: 0.00 reconn/s: 0.00\n",
			`run.txt:13: sysbench: malformed interval line: "[ 1s ] thds: 32 tps: 24x8.43`},
		{"interval missing fields", head + "[ 1s ] thds: 32 tps: 2498.43 qps: 2498.43\n",
			`run.txt:13: sysbench: malformed interval line: "[ 1s ] thds: 32 tps: 2498.43 qps: 2498.43"`},
		{"legacy body with 1.x timestamp", head + "[ 1s ] threads: 8, tps: 1.00, reads/s: 1.00, writes/s: 1.00 response time: 1.00ms (95%)\n",
			`run.txt:13: sysbench: malformed interval line`},
		{"nan rate", legacy05Report[:strings.Index(legacy05Report, "    transactions")] + "    transactions: 0 (-nan per sec.)\n",
			`run.txt:7: sysbench: malformed statistics line: "transactions: 0 (-nan per sec.)"`},
		{"bad total time", "General statistics:\n    total time:   2.0s0s\n",
			`run.txt:2: sysbench: malformed general statistics line: "total time:   2.0s0s"`},
		{"latency without unit in legacy", "General statistics:\n    response time:\n         min:   1.00\n",
			`run.txt:3: sysbench: malformed latency line: "min:   1.00"`},
		{"bad histogram row", "Latency histogram (values are in milliseconds)\n       1.392 |*** x12\n",
			`run.txt:2: sysbench: malformed histogram row`},
		{"mixed formats", head + "[   1s] threads: 8, tps: 1.00, reads/s: 1.00, writes/s: 1.00 response time: 1.00ms (95%)\n",
			`run.txt:13: sysbench: sysbench 1.x and legacy (0.4/0.5) output mixed in one file`},
		{"two runs", string(readFile(t, "testdata/"+innodbRun)) + string(readFile(t, "testdata/"+innodbRun)),
			`run.txt:111: sysbench: second final report: one sysbench run per file`},
		{"empty", "", `run.txt: sysbench: no sysbench output found`},
		{"garbage", "hello\nworld: 12\n\x00\xff\n", `run.txt: sysbench: no sysbench output found`},
		{"mysqlslap output", string(readFile(t, "testdata/mariadb-slap-write-innodb.txt")), `run.txt: sysbench: no sysbench output found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseSysbench("run.txt", strings.NewReader(tt.input))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want prefix %q", err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "run.txt" || errors.Is(err, ErrIncomplete) || res != nil {
				t.Errorf("want a non-incomplete *ParseError for run.txt and no result; got %#v, %v", err, res)
			}
		})
	}
}

func TestParseSysbenchTruncated(t *testing.T) {
	tests := []struct {
		name      string
		input     string
		intervals int
		want      string
	}{
		{"during intervals", firstLines(t, innodbRun, 20), 8,
			"run.txt: sysbench: no final report found (interrupted or truncated output?)"},
		{"inside the report", firstLines(t, innodbRun, 60), 30,
			"run.txt: sysbench: final report is incomplete: no max line (interrupted or truncated output?)"},
		{"mid-line", firstLines(t, innodbRun, 20) + "[ 9s ] thds: 32 tps: 2694.02 qps: 26", 8,
			"run.txt: sysbench: no final report found (interrupted or truncated output?); the last line has no newline and was ignored"},
		{"cut inside the last number", strings.TrimSuffix(firstLines(t, innodbRun, 63), "00\n"), 30,
			"run.txt: sysbench: final report is incomplete: no latency sum line (interrupted or truncated output?); the last line has no newline and was ignored"},
		{"after a checkpoint report", firstLines(t, "captured-sysbench-1.0.20-rate-checkpoint.txt", 40), 1,
			"run.txt: sysbench: output ends with a checkpoint report; the final report is missing (interrupted or truncated output?)"},
		{"prepare output", string(readFile(t, "testdata/sysbench-1.0-oltp_insert-innodb-prepare.txt")), 0,
			"run.txt: sysbench: no final report found: this is 'sysbench prepare' output"},
		{"cleanup output", "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n\nDropping table 'sbtest1'...\n", 0,
			"run.txt: sysbench: no final report found: this is 'sysbench cleanup' output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseSysbench("run.txt", strings.NewReader(tt.input))
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v\nwant  %s", err, tt.want)
			}
			if !errors.Is(err, ErrIncomplete) || res == nil || res.Complete {
				t.Fatalf("want a partial result and ErrIncomplete; got %v, %+v", err, res)
			}
			if len(res.Intervals) != tt.intervals {
				t.Errorf("%d intervals, want %d", len(res.Intervals), tt.intervals)
			}
		})
	}
}

// TestParseSysbenchEveryPrefix cuts every sysbench input at every byte: the
// parser must call a prefix incomplete (never malformed), and a prefix it
// calls complete must give exactly the full file's result.
func TestParseSysbenchEveryPrefix(t *testing.T) {
	for _, path := range inputs(t) {
		data := readFile(t, path)
		if Detect(data) != ToolSysbench {
			continue
		}
		full, fullErr := ParseSysbench("f", bytes.NewReader(data))
		for i := 0; i < len(data); i++ {
			res, err := ParseSysbench("f", bytes.NewReader(data[:i]))
			switch {
			case err == nil:
				if fullErr != nil || !reflect.DeepEqual(res, full) {
					t.Fatalf("%s cut at %d: complete result differs from the full file's", path, i)
				}
			case !errors.Is(err, ErrIncomplete) && !strings.Contains(err.Error(), "no sysbench output found"):
				t.Fatalf("%s cut at %d: %v", path, i, err)
			}
		}
	}
}

func TestParseSysbenchLineEndingsAndLongLines(t *testing.T) {
	data := readFile(t, "testdata/"+innodbRun)
	want, err := ParseSysbench("lf", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	if got, err := ParseSysbench("crlf", bytes.NewReader(crlf)); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("CRLF input: %v", err)
	}
	// A megabyte-long line (noise on stderr) before the report must not
	// stop the parse.
	long := append(bytes.Repeat([]byte("x"), 1<<20), '\n')
	at := bytes.Index(data, []byte("SQL statistics:"))
	noisy := append(append(append([]byte{}, data[:at]...), long...), data[at:]...)
	if got, err := ParseSysbench("long", bytes.NewReader(noisy)); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("input with a long line: %v", err)
	}
	// Lines longer than the read buffer but within the limit are whole.
	padded := bytes.Replace(data, []byte("reconn/s: 0.00\n"), []byte("reconn/s: 0.00"+strings.Repeat(" ", 9000)+"\n"), -1)
	if got, err := ParseSysbench("padded", bytes.NewReader(padded)); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("input with padded interval lines: %v", err)
	}
}

func TestParseErrorText(t *testing.T) {
	cause := errors.New("connection reset")
	tests := []struct {
		err  *ParseError
		want string
	}{
		{&ParseError{File: "run.txt", Line: 12, Tool: ToolSysbench, Msg: "malformed interval line: \"x\""},
			`run.txt:12: sysbench: malformed interval line: "x"`},
		{&ParseError{File: "run.txt", Tool: ToolSysbench, Msg: "no final report found"},
			"run.txt: sysbench: no final report found"},
		{&ParseError{File: "a.txt", Line: 3, Msg: "read", Err: cause}, "a.txt:3: read: connection reset"},
		{&ParseError{File: "a.txt", Msg: "two\nlines"}, "a.txt: two lines"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	if !errors.Is(tests[2].err, cause) || errors.Is(tests[0].err, ErrIncomplete) {
		t.Error("ParseError must unwrap its cause and match ErrIncomplete only when incomplete")
	}
	if !errors.Is(&ParseError{Incomplete: true}, ErrIncomplete) {
		t.Error("an incomplete ParseError must match ErrIncomplete")
	}
}

// errReader fails after its data, like a broken SSH stream.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestParseReadError(t *testing.T) {
	cause := errors.New("connection reset")
	input := firstLines(t, innodbRun, 20)
	for _, tool := range []Tool{ToolSysbench, ToolMysqlslap, ToolDBInsert} {
		_, err := Parse(tool, "remote.txt", &errReader{data: []byte(input), err: cause})
		want := "remote.txt:21: " + string(tool) + ": read: connection reset"
		if err == nil || err.Error() != want || !errors.Is(err, cause) {
			t.Errorf("%s: error %v, want %q wrapping the cause", tool, err, want)
		}
	}
}
