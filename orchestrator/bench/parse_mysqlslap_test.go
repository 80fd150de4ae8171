package bench

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type slapWant struct {
	engine             string
	avg, min, max      string
	clients, perClient int64
}

func checkBlocks(t *testing.T, got Mysqlslap, want []slapWant) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d blocks, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		b := got[i]
		g := slapWant{b.Engine, b.AvgS.String(), b.MinS.String(), b.MaxS.String(), b.Clients, b.QueriesPerClient}
		if g != w || b.Tool != ToolMysqlslap {
			t.Errorf("block %d = %+v (tool %q), want %+v", i, g, b.Tool, w)
		}
	}
}

func TestParseMysqlslapFiles(t *testing.T) {
	rusage := &Rusage{UserS: mustNumber(t, "0.01"), SysS: mustNumber(t, "0.02"), MaxRSSKB: 6532, VoluntaryCS: 1269, InvoluntaryCS: 65}
	engines := []slapWant{
		{"innodb", "0.058", "0.058", "0.058", 2, 100}, {"innodb", "0.041", "0.041", "0.041", 4, 50},
		{"rocksdb", "0.108", "0.108", "0.108", 2, 100}, {"rocksdb", "0.042", "0.042", "0.042", 4, 50},
	}
	tests := []struct {
		file   string
		want   []slapWant
		rusage *Rusage
	}{
		{"mariadb-slap-write-innodb.txt", []slapWant{{"innodb", "4.890", "4.176", "5.290", 50, 400}}, nil},
		{"captured-mariadb-slap-10.11-engines-concurrency.txt", engines, nil},
		{"captured-mariadb-slap-10.11-debug-info-after.txt", engines, rusage},
		{"captured-mariadb-slap-10.11-iterations.txt", []slapWant{
			{"", "1.440", "0.237", "2.123", 1, 60}, {"", "0.155", "0.031", "0.232", 3, 20}}, nil},
		{"captured-mariadb-slap-10.11-debug-info-before.txt", []slapWant{{"", "0.010", "0.010", "0.010", 2, 25}},
			&Rusage{UserS: mustNumber(t, "0.00"), SysS: mustNumber(t, "0.00"), MaxRSSKB: 6472, VoluntaryCS: 166, InvoluntaryCS: 8}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseMysqlslap(tt.file, bytes.NewReader(readFile(t, "testdata/"+tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			checkBlocks(t, got, tt.want)
			for i, b := range got {
				if (b.Rusage == nil) != (tt.rusage == nil) || (b.Rusage != nil && *b.Rusage != *tt.rusage) {
					t.Errorf("block %d rusage %+v, want %+v", i, b.Rusage, tt.rusage)
				}
			}
			if len(got) > 1 && got[0].Rusage != nil && got[0].Rusage == got[1].Rusage {
				t.Error("blocks share one *Rusage; each must own its copy")
			}
		})
	}
}

func mustNumber(t *testing.T, s string) Number {
	t.Helper()
	n, err := ParseNumber(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestParseMysqlslapVariants(t *testing.T) {
	block := "Benchmark\n\tAverage number of seconds to run all queries: 0.063 seconds\n" +
		"\tMinimum number of seconds to run all queries: 0.061 seconds\n" +
		"\tMaximum number of seconds to run all queries: 0.065 seconds\n" +
		"\tNumber of clients running queries: 2\n\tAverage number of queries per client: 100\n\n"
	// MySQL 8's my_end indents the second line of the rusage report.
	mysql8Rusage := "\nUser time 0.03, System time 0.04\n                              Maximum resident set size 9000, Integral resident set size 0\n" +
		"Non-physical pagefaults 1, Physical pagefaults 0, Swaps 0\nBlocks in 0 out 0, Messages in 0 out 0, Signals 0\n" +
		"Voluntary context switches 7, Involuntary context switches 1\n"
	res, err := ParseMysqlslap("m8.txt", strings.NewReader(
		"mysqlslap: [Warning] Using a password on the command line interface can be insecure.\n"+block+mysql8Rusage))
	if err != nil || len(res) != 1 || res[0].Rusage == nil || res[0].Rusage.MaxRSSKB != 9000 || res[0].Rusage.UserS.String() != "0.03" {
		t.Errorf("MySQL 8 debug-info: %v %+v", err, res)
	}
	// Extra lines other forks print inside a block are skipped; a block
	// ended by EOF without its blank line is complete.
	extra := strings.Replace(block, "\tNumber of clients", "\tStandard Deviation: 0.001\n\tNumber of clients", 1)
	if res, err := ParseMysqlslap("x.txt", strings.NewReader(strings.TrimSuffix(extra, "\n"))); err != nil || len(res) != 1 {
		t.Errorf("block with an extra line: %v %+v", err, res)
	}
}

func TestParseMysqlslapErrors(t *testing.T) {
	block := string(readFile(t, "testdata/mariadb-slap-write-innodb.txt"))
	lines := strings.SplitAfter(block, "\n")
	tests := []struct {
		name, input, want string
		incomplete        bool
		blocks            int
	}{
		{"empty", "", "slap.txt: mysqlslap: no mysqlslap output found", false, 0},
		{"garbage", "hello\n\tworld\n", "slap.txt: mysqlslap: no mysqlslap output found", false, 0},
		{"bad seconds", strings.Replace(block, "4.890 seconds", "4,890 seconds", 1),
			`slap.txt:3: mysqlslap: malformed Benchmark line: "Average number of seconds to run all queries: 4,890 seconds"`, false, 0},
		{"bad clients", strings.Replace(block, "queries: 50", "queries: 50/50", 1),
			`slap.txt:6: mysqlslap: malformed Benchmark line: "Number of clients running queries: 50/50"`, false, 0},
		{"block missing a line", strings.Join(lines[:5], "") + "\n" + block,
			`slap.txt:1: mysqlslap: Benchmark block has no "Number of clients running queries" line`, false, 0},
		{"two debug-info blocks", string(readFile(t, "testdata/captured-mariadb-slap-10.11-debug-info-before.txt")) +
			"User time 0.00, System time 0.00\n", "slap.txt:14: mysqlslap: second --debug-info block: one mysqlslap run per file", false, 0},
		{"bad rusage", "User time 0.0x, System time 0.00\n", `slap.txt:1: mysqlslap: malformed --debug-info line: "User time 0.0x, System time 0.00"`, false, 0},
		{"truncated block", block + strings.Join(lines[:4], ""),
			`slap.txt: mysqlslap: last Benchmark block has no "Maximum number of seconds to run all queries" line (truncated output?)`, true, 1},
		{"cut mid-line", strings.Join(lines[:6], "") + "\tAverage number of queries per client: 4",
			`slap.txt: mysqlslap: last Benchmark block has no "Average number of queries per client" line (truncated output?); the last line has no newline and was ignored`, true, 0},
		{"truncated debug-info", "\nUser time 0.01, System time 0.02\nMaximum resident set size 6532, Integral resident set size 0\n" + block,
			"slap.txt: mysqlslap: --debug-info block is incomplete (truncated output?)", true, 1},
		{"client error", string(readFile(t, "testdata/captured-mariadb-slap-10.11-connect-error.txt")),
			"slap.txt: mysqlslap: no Benchmark block found; mysqlslap said: mariadb-slap: Error when connecting to server", true, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseMysqlslap("slap.txt", strings.NewReader(tt.input))
			var pe *ParseError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &pe) || pe.File != "slap.txt" {
				t.Fatalf("error %v\nwant prefix %s", err, tt.want)
			}
			if errors.Is(err, ErrIncomplete) != tt.incomplete || (res == nil) == tt.incomplete || len(res) != tt.blocks {
				t.Errorf("incomplete %v, %d blocks (nil %v); want incomplete %v with %d blocks",
					errors.Is(err, ErrIncomplete), len(res), res == nil, tt.incomplete, tt.blocks)
			}
		})
	}
}
