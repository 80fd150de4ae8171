package bench

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseDBInsertFiles(t *testing.T) {
	type batch [6]string // serial s/rate, random s/rate, cumulative s/rate
	tests := []struct {
		file                  string
		batchSize, insertions int64
		shutdown, total, rate string
		batches               []batch
	}{
		{"db-insert-run.txt", 1048576, 4194304, "3.877215", "33.881605", "123792", []batch{
			{"2.811002", "373025", "11.402113", "91963", "14.213115", "147551"},
			{"3.240871", "323547", "12.550404", "83548", "30.004390", "139787"}}},
		// The real program's output (PerconaFT f85cba7e8, 2 iterations): numbered
		// batch lines; the fractal-tree build also prints its checkpoint period.
		{"db-insert-tokudb-real.txt", 1048576, 4194304, "0.958814", "9.653902", "434467", []batch{
			{"0.478091", "2193256", "3.524070", "297547", "4.002217", "523998"},
			{"0.438177", "2393042", "4.254575", "246458", "8.695045", "482379"}}},
		{"db-insert-bdb-real.txt", 1048576, 4194304, "0.308241", "5.220525", "803426", []batch{
			{"0.388130", "2701610", "1.527284", "686563", "1.915450", "1094861"},
			{"0.353729", "2964348", "2.643022", "396734", "4.912255", "853845"}}},
		{"handmade-db-insert-norandom-transactions.txt", 1048576, 2097152, "0.877215", "6.929088", "302660", []batch{
			{"2.811002", "373025", "", "", "2.811002", "373025"},
			{"3.240871", "323547", "", "", "6.051873", "346528"}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := ParseDBInsert(tt.file, bytes.NewReader(readFile(t, "testdata/"+tt.file)))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Complete || r.Tool != ToolDBInsert || r.BatchSize != tt.batchSize || r.Insertions != tt.insertions ||
				r.ShutdownS.String() != tt.shutdown || r.TotalS.String() != tt.total || r.Rate.String() != tt.rate {
				t.Errorf("got %+v", r)
			}
			if len(r.Batches) != len(tt.batches) {
				t.Fatalf("%d batches, want %d", len(r.Batches), len(tt.batches))
			}
			for i, b := range r.Batches {
				if b.Iteration != int64(i) {
					t.Errorf("batch %d has iteration %d", i, b.Iteration)
				}
				got := batch{b.SerialS.String(), b.SerialRate.String(), b.RandomS.String(), b.RandomRate.String(),
					b.CumulativeS.String(), b.CumulativeRate.String()}
				if got != tt.batches[i] {
					t.Errorf("batch %d = %v, want %v", i, got, tt.batches[i])
				}
			}
		})
	}
}

func TestParseDBInsertCheckpointPeriod(t *testing.T) {
	// Only the fractal-tree build prints "set checkpoint_period 60".
	for file, want := range map[string]string{"db-insert-tokudb-real.txt": "60", "db-insert-bdb-real.txt": "<nil>"} {
		r, err := ParseDBInsert(file, bytes.NewReader(readFile(t, "testdata/"+file)))
		if err != nil {
			t.Fatal(err)
		}
		got := "<nil>"
		if r.CheckpointPeriodS != nil {
			got = fmt.Sprint(*r.CheckpointPeriodS)
		}
		if got != want {
			t.Errorf("%s: checkpoint period %s, want %s", file, got, want)
		}
	}
}

// orch's lines after the program: the shell's times ("1m5.029000s") and
// du -sB1 of the database directory.
func TestParseDBInsertOrchLines(t *testing.T) {
	in := string(readFile(t, "testdata/db-insert-bdb-real.txt")) +
		"orch: db-insert cpu user, sys 1m5.029000s 0m0.500000s\norch: bytes on disk of bench.bdb 180355072\n"
	r, err := ParseDBInsert("x.txt", strings.NewReader(in))
	if err != nil || r.CPUUserS == nil || *r.CPUUserS != 65.029 || *r.CPUSysS != 0.5 || r.DBDir != "bench.bdb" || *r.DBBytes != 180355072 {
		t.Errorf("%v %+v", err, r)
	}
}

func TestParseDBInsertVariants(t *testing.T) {
	// --norandom and --noserial together leave only the cumulative part;
	// some builds capitalise the header.
	in := "insertions of 10 per batch\ncumulative  0.000100s   100000/s\nShutdown  0.000010s\n" +
		"Total time  0.000110s for 0 insertions =        0/s\n"
	r, err := ParseDBInsert("x.txt", strings.NewReader(in))
	if err != nil || len(r.Batches) != 1 || r.Batches[0].SerialS.IsSet() || r.Batches[0].CumulativeRate.String() != "100000" {
		t.Errorf("cumulative-only batch: %v %+v", err, r)
	}
	r, err = ParseDBInsert("x.txt", strings.NewReader("Serial and random insertions of 7 per batch\n"+
		"serial  1.000000s        7/s    random  1.000000s        7/s    cumulative  2.000000s        7/s\n"+
		"Shutdown  0.100000s\nTotal time  2.100000s for 14 insertions =        7/s\n"))
	if err != nil || r.BatchSize != 7 || r.Batches[0].RandomRate.String() != "7" {
		t.Errorf("capitalised header: %v %+v", err, r)
	}
}

func TestParseDBInsertErrors(t *testing.T) {
	sample := string(readFile(t, "testdata/db-insert-run.txt"))
	lines := strings.SplitAfter(sample, "\n")
	real := strings.SplitAfter(string(readFile(t, "testdata/db-insert-tokudb-real.txt")), "\n")
	// What a failed assert leaves when stdout and stderr share a file: the
	// half-printed batch, then the message on the same line.
	crash := real[0] + real[1] + real[2] + "1 serial  0.438177s  2393042/s    " +
		"db-insert: db-insert.c:260: benchmark_setup: Assertion `r == 0' failed.\n"
	tests := []struct {
		name, input, want string
		incomplete        bool
		batches           int
	}{
		{"empty", "", "ins.txt: db-insert: no db-insert output found", false, 0},
		{"garbage", "\x00\x01\nhello world\n", "ins.txt: db-insert: no db-insert output found", false, 0},
		{"parts out of order", lines[0] + "random  1.0s 1/s    serial  1.0s 1/s    cumulative 2.0s 1/s\n",
			`ins.txt:2: db-insert: malformed batch line: "random  1.0s 1/s    serial  1.0s 1/s    cumulative 2.0s 1/s"`, false, 0},
		{"no cumulative part", lines[0] + "serial  2.811002s   373025/s\n", `ins.txt:2: db-insert: malformed batch line`, false, 0},
		{"bad rate", strings.Replace(sample, "373025/s", "373025", 1), `ins.txt:2: db-insert: malformed batch line`, false, 0},
		{"bad total", strings.Replace(sample, "for 4194304 insertions", "for many insertions", 1),
			`ins.txt:5: db-insert: malformed Total line: "Total time 33.881605s for many insertions =   123792/s"`, false, 0},
		{"total without shutdown", lines[0] + lines[1] + lines[4], "ins.txt:3: db-insert: Total line without a Shutdown line before it", false, 0},
		{"two runs", sample + sample, "ins.txt:6: db-insert: second db-insert header: one run per file", false, 0},
		{"crashed mid-batch", crash, `ins.txt: db-insert: no Total line: batch 1 cut short by other output: "1 serial`, true, 1},
		{"output after a cut batch", crash + real[4], "ins.txt:4: db-insert: batch 1 cut short", false, 0},
		{"batch out of sequence", real[0] + real[1] + real[3], `ins.txt:3: db-insert: batch 1 where batch 0 was expected`, false, 0},
		{"negative batch number", real[0] + "-1 serial  0.478091s  2193256/s    cumulative  4.002217s   523998/s\n",
			`ins.txt:2: db-insert: batch -1 where batch 0 was expected`, false, 0},
		{"bad checkpoint period", real[0] + "set checkpoint_period sixty\n", `ins.txt:2: db-insert: malformed checkpoint_period line`, false, 0},
		{"bad size line", real[0] + "orch: bytes on disk of bench.tokudb many\n", `ins.txt:2: db-insert: malformed bytes-on-disk line`, false, 0},
		{"bad cpu line", real[0] + "orch: db-insert cpu user, sys 5.0s 0m1.0s\n", `ins.txt:2: db-insert: malformed cpu line`, false, 0},
		{"interrupted real", strings.Join(real[:4], ""), "ins.txt: db-insert: no Total line (interrupted or truncated output?)", true, 2},
		{"interrupted", strings.Join(lines[:3], ""), "ins.txt: db-insert: no Total line (interrupted or truncated output?)", true, 2},
		{"cut mid-line", strings.Join(lines[:4], "") + "Total time 33.881605s for 4194304 insertions =   12",
			"ins.txt: db-insert: no Total line (interrupted or truncated output?); the last line has no newline and was ignored", true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ParseDBInsert("ins.txt", strings.NewReader(tt.input))
			var pe *ParseError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &pe) || pe.File != "ins.txt" {
				t.Fatalf("error %v\nwant prefix %s", err, tt.want)
			}
			if errors.Is(err, ErrIncomplete) != tt.incomplete || (res != nil) != tt.incomplete {
				t.Fatalf("incomplete %v, result %+v; want incomplete %v", errors.Is(err, ErrIncomplete), res, tt.incomplete)
			}
			if res != nil && (res.Complete || len(res.Batches) != tt.batches) {
				t.Errorf("partial result %+v, want %d batches", res, tt.batches)
			}
		})
	}
}
