package load

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// driverSamples are real outputs of each format the driver table names
// (bench's testdata): a new format without one fails here.
var driverSamples = map[bench.Tool]string{
	bench.ToolSysbench:  "sysbench-1.0-oltp_insert-innodb-run.txt",
	bench.ToolMysqlslap: "mariadb-slap-write-innodb.txt",
	bench.ToolDBInsert:  "db-insert-tokudb-real.txt",
}

// TestBenchReadersCoverDrivers: every driver's runs have figures in a
// report. A format of the driver table the report cannot read would be
// "unknown tool" with no figures; here it fails, naming the driver. The
// metric the report compares a real run by is one the driver's entry
// lists, with the entry's direction, and has a figure.
func TestBenchReadersCoverDrivers(t *testing.T) {
	for _, d := range bench.Drivers {
		if d.Tool == "" {
			continue // custom: its workload names another driver's format
		}
		if _, ok := benchReaders[d.Tool]; !ok {
			t.Errorf("driver %s: the report has no reader of %s results (benchReaders)", d.Kind, d.Tool)
			continue
		}
		sample, ok := driverSamples[d.Tool]
		if !ok {
			t.Errorf("driver %s: no real %s output in driverSamples", d.Kind, d.Tool)
			continue
		}
		f, err := os.Open(filepath.Join("..", "..", "bench", "testdata", sample))
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Parse(sample, f)
		f.Close()
		if err != nil {
			t.Fatalf("driver %s: %v", d.Kind, err)
		}
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		b, err := DecodeBench(raw, "")
		if err != nil || b == nil {
			t.Errorf("driver %s: report reads %s: %v", d.Kind, sample, err)
			continue
		}
		metric := ChooseMetric([]*Run{{Bench: b}})
		i := slices.IndexFunc(d.Metrics, func(m bench.Metric) bool { return m.Name == metric })
		if i < 0 {
			t.Errorf("driver %s: the report compares by %q, not one of its metrics %v", d.Kind, metric, d.Metrics)
			continue
		}
		if bench.LowerIsBetter(metric) != d.Metrics[i].LowerIsBetter {
			t.Errorf("driver %s: %q's direction differs from its entry", d.Kind, metric)
		}
		if r := b.Rates[metric]; math.IsNaN(r.Final) || r.Final <= 0 {
			t.Errorf("driver %s: %s of a complete real run is %v", d.Kind, metric, r.Final)
		}
	}
}
