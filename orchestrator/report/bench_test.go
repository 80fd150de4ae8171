package report

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/report/analyse"
	"github.com/orch-bench/orch/orchestrator/report/load"
	"github.com/orch-bench/orch/orchestrator/report/render"
)

func readBench(t *testing.T, path string) *load.Bench {
	t.Helper()
	runs, err := load.ReadParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return runs[0].Bench
}

func TestSysbenchWriteOnlyIsWritesPerSecond(t *testing.T) {
	run, err := load.ReadRunDir("testdata/runs/20261129T221023Z-pure-random-writes-innodb")
	if err != nil {
		t.Fatal(err)
	}
	b := run.Bench
	if got := load.ChooseMetric([]*load.Run{run}); got != load.MetricWrites {
		t.Fatalf("metric = %q, want writes/s for oltp_insert", got)
	}
	// oltp_insert: every query is a write, so the printed qps is writes/s.
	if got := b.Final(load.MetricWrites); got != 3196.03 {
		t.Errorf("final writes/s = %v, want the printed 3196.03", got)
	}
	if b.Pctl != 95 || b.LatAvg != 2.49 || b.LatPct != 5.37 || b.LatMax != 78.24 || b.Errors != 0 {
		t.Errorf("latency/errors = p%d %v/%v/%v errors %v, want p95 2.49/5.37/78.24 errors 0", b.Pctl, b.LatAvg, b.LatPct, b.LatMax, b.Errors)
	}
	// Intervals t=1..9; a 5 s warm-up leaves t=6..9.
	v, how := b.Steady(load.MetricWrites, after(5))
	want := (3618.74 + 3171.39 + 2891.12 + 2989.85) / 4
	if how != "intervals" || math.Abs(v-want) > 1e-9 {
		t.Errorf("steady(5 s) = %v (%s), want %v from intervals", v, how, want)
	}
	// The lab run lasted 10 s: a 10 s warm-up leaves no interval, so the
	// final figure stands in.
	if v, how := b.Steady(load.MetricWrites, after(10)); how != "final" || v != 3196.03 {
		t.Errorf("steady(10 s) = %v (%s), want the final 3196.03", v, how)
	}
}

func TestLegacySysbenchHasNoTransactions(t *testing.T) {
	b := readBench(t, "testdata/parse/legacy-0.5.json")
	if b.Has(load.MetricTPS) {
		t.Error("sysbench 0.5 insert printed 0 transactions, yet tps is offered as a metric")
	}
	if got := b.Final(load.MetricWrites); got != 7676.49 {
		t.Errorf("final writes/s = %v, want the read/write requests rate 7676.49", got)
	}
	s := b.Series(load.MetricWrites)
	if len(s) == 0 || s[0] != (load.Point{T: 1, V: 8112.35}) {
		t.Errorf("first interval = %v, want {1 8112.35}", s)
	}
	// Legacy interval lines have no qps: queries/s is reads+writes.
	if q := b.Series(load.MetricQueries); len(q) == 0 || q[0].V != 8112.35 {
		t.Errorf("first queries/s interval = %v, want reads+writes 8112.35", q)
	}
}

func TestMysqlslapRate(t *testing.T) {
	b := readBench(t, "testdata/parse/mysqlslap.json")
	// 50 clients x 400 queries each in 4.890 s on average.
	if got, want := b.Final(load.MetricQueries), 50*400/4.890; math.Abs(got-want) > 1e-9 {
		t.Errorf("queries/s = %v, want %v", got, want)
	}
	if !math.IsNaN(b.LatAvg) {
		t.Errorf("mysqlslap latency = %v: it reports run times, not latency", b.LatAvg)
	}
}

func TestDBInsertBatches(t *testing.T) {
	b := readBench(t, "testdata/parse/db-insert.json")
	if got := b.Final(load.MetricRows); got != 123792 {
		t.Errorf("rows/s = %v, want 123792", got)
	}
	s := b.Series(load.MetricRows)
	// First batch: 2 x 1048576 rows in 2.811002 + 11.402113 s.
	want := 2 * 1048576 / (2.811002 + 11.402113)
	if len(s) != 2 || s[0].T != 14.213115 || math.Abs(s[0].V-want) > 1e-6 {
		t.Errorf("batches = %v, want 2 points, the first {14.213115 %v}", s, want)
	}
}

func TestIncompleteSysbenchHasNoFinalFigure(t *testing.T) {
	run, err := load.ReadRunDir("testdata/runs/20261129T220957Z-pure-random-writes-innodb")
	if err != nil {
		t.Fatal(err)
	}
	if run.State != "failed" || run.Bench == nil || run.Bench.Complete {
		t.Fatalf("state %q, bench %+v: want a failed run with an incomplete result", run.State, run.Bench)
	}
	if !math.IsNaN(run.Bench.Final(load.MetricWrites)) {
		t.Errorf("final = %v for output without a final report", run.Bench.Final(load.MetricWrites))
	}
	if run.Usable() {
		t.Error("a failed run would enter the statistics")
	}
}

func TestDecodeBenchRejectsForeignJSON(t *testing.T) {
	for _, doc := range []string{`{"tps": 3}`, `{"tool": "hammerdb"}`, `[{"avg_s": "x"}]`} {
		if _, err := load.DecodeBench([]byte(doc), ""); err == nil {
			t.Errorf("%s: decoded without error", doc)
		}
	}
	// results.json names the tool beside the benchmark: enough for a
	// benchmark object without its own "tool".
	if b, err := load.DecodeBench([]byte(`{"complete": true, "tps": 5, "qps": 5, "transactions": 50, "writes": 50}`), "sysbench"); err != nil || b.Final(load.MetricWrites) != 5 {
		t.Errorf("benchmark without tool, results.json tool sysbench: %v, %v", b, err)
	}
	dir := t.TempDir()
	p := dir + "/two.json"
	a, _ := os.ReadFile("testdata/parse/legacy-0.5.json")
	b, _ := os.ReadFile("testdata/parse/mysqlslap.json")
	if err := os.WriteFile(p, append(a, b...), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := load.ReadParseFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// `orch parse a.log b.log > two.json` holds two documents.
	if len(runs) != 2 || runs[0].ID != "two" || runs[1].ID != "two#2" || runs[1].Tool != "mysqlslap" {
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.ID+"/"+r.Tool)
		}
		t.Errorf("runs = %s, want two/sysbench and two#2/mysqlslap", strings.Join(ids, ", "))
	}
}

func TestRawMariadbSlapLogs(t *testing.T) {
	// Two raw mariadb-slap logs, given to the report as they are: the
	// metric is the tool's own (seconds to run all queries, lower is
	// better) and the verdict says whose time was longer: 9.340 / 4.890 =
	// 1.91x.
	rep := build(t, analyse.Options{}, "testdata/logs/slap-innodb.txt", "testdata/logs/slap-rocksdb.txt")
	tb := rep.Tables[0]
	if tb.Metric != load.MetricSeconds || !tb.LowerIsBetter || tb.Baseline.Label != "slap-innodb" {
		t.Fatalf("table metric %q lower-is-better %v baseline %s", tb.Metric, tb.LowerIsBetter, tb.Baseline.Label)
	}
	want := "slap-rocksdb: took 1.91x slap-innodb's time (n/a (one run)); caveat: n=1, too few runs to judge the noise"
	if got := tb.Group("slap-rocksdb").Verdict; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	var md strings.Builder
	if err := render.WriteMarkdown(rep, &md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "Warm-up") {
		t.Error("report on logs without intervals speaks of a warm-up")
	}
}

// after is a window from fromS to the end of the run.
func after(fromS float64) load.Window { return load.Window{FromS: fromS, ToS: math.Inf(1)} }

// A merged result of two load boxes whose last slot only one client
// reported for (the other's last interval line raced the end of --time):
// that slot's sum is half the load, and the steady rate leaves it out
// instead of averaging it in. The lab's run: slots 3,714, 3,605 and a last
// 1,848 (one client) gave 3,056 tps beside the master's 3,695 commits/s.
func TestMergedSlotsOfSomeClientsAreLeftOut(t *testing.T) {
	doc := `{"tool": "sysbench", "version": "1.0.20", "complete": true, "threads": 4, "duration_s": 4.03, "transactions": 13872, "tps": 3446.39,
		"queries": 13872, "qps": 3446.39, "writes": 0, "interval_s": 1, "clients": [{"name": "loadbox"}, {"name": "loadbox2"}],
		"intervals": [{"t": 1, "tps": 2665, "qps": 2665, "clients": 2, "complete": true}, {"t": 2, "tps": 3714, "qps": 3714, "clients": 2, "complete": true},
		{"t": 3, "tps": 3605, "qps": 3605, "clients": 2, "complete": true}, {"t": 4, "tps": 1848, "qps": 1848, "clients": 1, "complete": false}]}`
	b, err := load.DecodeBench([]byte(doc), "")
	if err != nil {
		t.Fatal(err)
	}
	w := load.Window{FromS: 1, ToS: 4}
	if v, how := b.Steady(load.MetricTPS, w); how != "intervals" || math.Abs(v-(3714+3605)/2.0) > 1e-9 {
		t.Errorf("steady %v (%s), want the mean of the complete slots 2 and 3", v, how)
	}
	if s := b.Rates[load.MetricTPS].Series; len(s) != 3 || s[len(s)-1].T != 3 {
		t.Errorf("series %v, want it to end with the last complete slot", s)
	}
	// A client's own output has no such field: every interval counts.
	one := `{"tool": "sysbench", "version": "1.0.20", "complete": true, "duration_s": 2, "transactions": 200, "tps": 100,
		"intervals": [{"t": 1, "tps": 100}, {"t": 2, "tps": 100}]}`
	if b, err := load.DecodeBench([]byte(one), ""); err != nil || len(b.Rates[load.MetricTPS].Series) != 2 {
		t.Errorf("a single client's intervals: %v, %v", b, err)
	}
}
