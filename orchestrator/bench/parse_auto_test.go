package bench

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		head string
		want Tool
	}{
		{"sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n", ToolSysbench},
		{"sysbench 0.5:  multi-threaded system evaluation benchmark\n", ToolSysbench},
		{"WARNING: --num-threads is deprecated\n[ 1s ] thds: 4 tps: 1.00 qps: ...\n", ToolSysbench},
		{"[   1s] threads: 8, tps: 1.00, reads/s: 1.00\n", ToolSysbench},
		{"FATAL: Cannot find benchmark 'oltp_x': no such built-in test, file or module\n", ToolSysbench},
		{"\r\nOLTP test statistics:\r\n", ToolSysbench},
		{"mariadb-slap: Deprecated program name.\n", ToolMysqlslap},
		{"\nUser time 0.01, System time 0.02\nMaximum resident set size 6532, Integral resident set size 0\n", ToolMysqlslap},
		{"Benchmark\n\tRunning for engine innodb\n", ToolMysqlslap},
		{"serial and random insertions of 1048576 per batch\n", ToolDBInsert},
		{"serial  2.811002s   373025/s    cumulative  2.811002s   373025/s\n", ToolDBInsert},
		{"Total time 33.881605s for 4194304 insertions =   123792/s\n", ToolDBInsert},
		{"", ""},
		{"hello\nworld\n", ""},
		{"[ 1s ] something else\n", ""},
	}
	for _, tt := range tests {
		if got := Detect([]byte(tt.head)); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
	// Every input detects as the tool its name says.
	for _, path := range inputs(t) {
		want := ToolSysbench
		switch {
		case strings.Contains(path, "slap"):
			want = ToolMysqlslap
		case strings.Contains(path, "db-insert"):
			want = ToolDBInsert
		}
		if got := Detect(readFile(t, path)); got != want {
			t.Errorf("Detect(%s) = %q, want %q", path, got, want)
		}
	}
}

// TestParseAutoMatchesToolParsers: ParseAuto is detection plus the tool's
// own parser, with the same result and error.
func TestParseAutoMatchesToolParsers(t *testing.T) {
	for _, path := range inputs(t) {
		data := readFile(t, path)
		got, gotErr := ParseAuto("in.txt", bytes.NewReader(data))
		want, wantErr := Parse(Detect(data), "in.txt", bytes.NewReader(data))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotErr, wantErr) {
			t.Errorf("%s: ParseAuto = %v, %v; Parse = %v, %v", path, got, gotErr, want, wantErr)
		}
		if got != nil && got.Kind() != Detect(data) {
			t.Errorf("%s: Kind() = %q", path, got.Kind())
		}
	}
}

func TestParseAutoErrors(t *testing.T) {
	tests := []struct{ name, input, want string }{
		{"empty", "", "x.txt: empty input"},
		{"garbage", "hello\nworld\n", "x.txt: unrecognised output: no sysbench, mysqlslap or db-insert lines in the first 64 KiB"},
		// A marker beyond the sniffed head is not looked for.
		{"late marker", strings.Repeat("noise\n", 20000) + "Benchmark\n",
			"x.txt: unrecognised output: no sysbench, mysqlslap or db-insert lines in the first 64 KiB"},
	}
	for _, tt := range tests {
		res, err := ParseAuto("x.txt", strings.NewReader(tt.input))
		var pe *ParseError
		if res != nil || err == nil || err.Error() != tt.want || !errors.As(err, &pe) {
			t.Errorf("%s: %v, %v; want %q", tt.name, res, err, tt.want)
		}
	}
	// Output larger than the sniffed head is parsed whole.
	run := readFile(t, "testdata/"+innodbRun)
	at := bytes.Index(run, []byte("SQL statistics:"))
	big := append(append(append([]byte{}, run[:at]...), bytes.Repeat([]byte("WARNING: noise\n"), 10000)...), run[at:]...)
	res, err := ParseAuto("big.txt", bytes.NewReader(big))
	if err != nil || len(res.(*Sysbench).Intervals) != 30 {
		t.Errorf("large input: %v", err)
	}
	// Incomplete output keeps its partial result through the interface.
	res, err = ParseAuto("int.txt", bytes.NewReader(readFile(t, "testdata/captured-sysbench-1.0.20-interrupted.txt")))
	if !errors.Is(err, ErrIncomplete) || res == nil || len(res.(*Sysbench).Intervals) != 2 {
		t.Errorf("interrupted: %v %v", res, err)
	}
}

func TestParseTool(t *testing.T) {
	data := readFile(t, "testdata/mariadb-slap-write-innodb.txt")
	for _, tool := range []Tool{ToolMysqlslap, "mariadb-slap"} {
		if res, err := Parse(tool, "s.txt", bytes.NewReader(data)); err != nil || len(res.(Mysqlslap)) != 1 {
			t.Errorf("Parse(%q): %v %v", tool, res, err)
		}
	}
	if res, err := Parse("pgbench", "s.txt", bytes.NewReader(data)); res != nil || err == nil ||
		err.Error() != `bench: unknown tool "pgbench" (want sysbench, mysqlslap or db-insert)` {
		t.Errorf("unknown tool: %v %v", res, err)
	}
	// A hard error yields a nil interface, not a typed nil.
	for _, tool := range []Tool{ToolSysbench, ToolMysqlslap, ToolDBInsert} {
		if res, err := Parse(tool, "g.txt", strings.NewReader("garbage\n")); res != nil || err == nil {
			t.Errorf("Parse(%q, garbage) = %#v, %v; want nil, error", tool, res, err)
		}
	}
}
