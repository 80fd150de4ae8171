package matrix

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestWritePlan(t *testing.T) {
	m, err := New("pure-random-writes", []string{"innodb", "rocksdb"},
		[]Axis{{Name: "binlog_order_commits", Values: []string{"ON", "OFF"}}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	m.Overrides = map[string]string{"time": "60", "threads": "16"}
	var b strings.Builder
	if err := WritePlan(&b, m, Costs{PerCell: 5 * time.Minute, Switch: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	want := `Matrix pure-random-writes: engines innodb,rocksdb; binlog_order_commits=ON,OFF, 4 configuration(s) x 2 repetition(s); baseline: innodb binlog_order_commits=ON
Workload overrides: threads=16 time=60

#  ID                                      ENGINE   KNOBS                     REP
1  01-innodb-binlog_order_commits=ON-r1    innodb   binlog_order_commits=ON   1
2  02-innodb-binlog_order_commits=OFF-r1   innodb   binlog_order_commits=OFF  1
3  03-rocksdb-binlog_order_commits=ON-r1   rocksdb  binlog_order_commits=ON   1
4  04-rocksdb-binlog_order_commits=OFF-r1  rocksdb  binlog_order_commits=OFF  1
5  05-rocksdb-binlog_order_commits=ON-r2   rocksdb  binlog_order_commits=ON   2
6  06-rocksdb-binlog_order_commits=OFF-r2  rocksdb  binlog_order_commits=OFF  2
7  07-innodb-binlog_order_commits=ON-r2    innodb   binlog_order_commits=ON   2
8  08-innodb-binlog_order_commits=OFF-r2   innodb   binlog_order_commits=OFF  2

Total: 8 cells, 2 engine switch(es)
Estimated duration: 44m (8 cell(s) x 5m + 2 switch(es) x 2m)
`
	got := b.String()
	if got != want {
		t.Errorf("plan\n got:\n%s\nwant:\n%s", got, want)
	}
	if strings.Contains(got, "STATE") {
		t.Errorf("a fresh plan shows states:\n%s", got)
	}
	// A recorded analysis is stated, with where a precision rule may stop.
	m.Analysis, m.Until = "blocked", &Until{Precision: 0.1, MinRounds: 3, MaxRounds: 6}
	b.Reset()
	if err := WritePlan(&b, m, Costs{PerCell: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if want := "Analysis: blocked by round (recorded): each round's ratio, Student's t across rounds; the rule stops on precision from round 5\n"; !strings.Contains(b.String(), want) {
		t.Errorf("plan lacks %q:\n%s", want, b.String())
	}
}

func TestWritePlanResumed(t *testing.T) {
	m := newMatrix(t)
	for i, st := range []State{OK, Failed, OK} {
		id := m.Cells[i].ID
		if err := m.Start(id, t0); err != nil {
			t.Fatal(err)
		}
		var err error
		if st == Failed {
			err = errors.New("boom")
		}
		if err := m.Finish(id, st, err, t0); err != nil {
			t.Fatal(err)
		}
	}
	var b strings.Builder
	if err := WritePlan(&b, m, Costs{}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, s := range []string{
		"REP  STATE\n",
		"  1    ok\n", "  1    failed\n", "  2    pending\n",
		"Total: 8 cells (2 ok, 1 failed, 5 to run), 2 engine switch(es)\n",
		"Estimated duration: unknown",
	} {
		if !strings.Contains(got, s) {
			t.Errorf("resumed plan lacks %q:\n%s", s, got)
		}
	}
	if strings.Contains(got, "no effect") {
		t.Errorf("no knob without effect, yet:\n%s", got)
	}
	// Only what is left counts towards the estimate: 5 cells, 1 switch.
	b.Reset()
	if err := WritePlan(&b, m, Costs{PerCell: time.Minute, Switch: time.Minute}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Estimated duration: 6m (5 cell(s) x 1m + 1 switch(es) x 1m)") {
		t.Errorf("resumed estimate:\n%s", b.String())
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.n--; w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestWritePlanReportsWriteErrors(t *testing.T) {
	for n := range 4 {
		if err := WritePlan(&failingWriter{n: n}, newMatrix(t), Costs{}); err == nil || err.Error() != "disk full" {
			t.Errorf("failing after %d writes: %v", n, err)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                       "0s",
		-time.Second:                            "0s",
		45 * time.Second:                        "45s",
		1400 * time.Millisecond:                 "1s",
		4*time.Minute + 30*time.Second:          "4m30s",
		7 * time.Minute:                         "7m",
		59*time.Minute + 59600*time.Millisecond: "1h",
		72 * time.Minute:                        "1h12m",
		26*time.Hour + 5*time.Minute:            "26h05m",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
