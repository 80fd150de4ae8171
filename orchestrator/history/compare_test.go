package history

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/changepoint"
)

// campaign is a matrix of innodb and rocksdb, 4 runs each, at the given
// levels, on the given server version.
func campaign(name, version string, innodb, rocksdb float64) []Entry {
	var out []Entry
	wobble := []float64{0.99, 1.01, 1.0, 1.005}
	for i, w := range wobble {
		for _, c := range []struct {
			engine string
			level  float64
		}{{"innodb", innodb}, {"rocksdb", rocksdb}} {
			out = append(out, Entry{Key: name + c.engine + string(rune('a'+i)), Campaign: name, Value: c.level * w, State: "ok",
				Identity: Identity{Workload: "pure-random-writes", Metric: "writes/s", Engine: c.engine, Version: version}})
		}
	}
	return out
}

func TestCompareCampaigns(t *testing.T) {
	a := campaign("A", "MariaDB 10.11.19", 1000, 500)
	b := campaign("B", "MariaDB 10.11.19", 900, 500)
	cmp := Compare(a, b, nil)
	if err := cmp.Err(); err != nil || len(cmp.Tables) != 1 || len(cmp.Tables[0].Rows) != 2 || len(cmp.Refused) != 0 {
		t.Fatalf("comparison %+v, %v", cmp, err)
	}
	inno := cmp.Tables[0].Rows[0].Status
	if inno.Outcome != "different" || inno.Ratio < 0.89 || inno.Ratio > 0.91 || inno.Interval.Low > 0.9 || inno.Interval.High < 0.9 {
		t.Errorf("innodb B/A: %+v, want different, 0.9 inside its interval", inno)
	}
	// Holm: the more significant comparison is judged at alpha/2.
	if inno.Decision.Alpha != 0.025 {
		t.Errorf("innodb's Holm level %v, want 0.025 (first of two)", inno.Decision.Alpha)
	}
	var out bytes.Buffer
	cmp.Write(&out)
	for _, want := range []string{"B/A [Fieller CI]", "innodb", "0.900 [", "different", "no significant difference"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestCompareRefusesAcrossVersions(t *testing.T) {
	a := campaign("A", "MariaDB 10.11.19", 1000, 500)
	b := campaign("B", "MySQL 9.7.4", 900, 500)
	cmp := Compare(a, b, nil)
	err := cmp.Err()
	if !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "pure-random-writes innodb: not compared: different series, version: MariaDB 10.11.19 -> MySQL 9.7.4 (--ignore version compares them anyway)") {
		t.Fatalf("across versions: %v", err)
	}
	if cmp := Compare(a, b, []string{"version"}); cmp.Err() != nil || len(cmp.Tables[0].Rows) != 2 {
		t.Errorf("--ignore version: %+v", cmp)
	}
}

func TestWriteHTML(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "m5", "cells", "01-innodb-r1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m5", "report.html"), []byte("<p>report</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	es := knobHistory()
	for i := range es {
		es[i].Dir = filepath.Join(dir, es[i].Campaign, "cells", "01-innodb-r1")
	}
	path := filepath.Join(dir, "history.html")
	if err := WriteHTML(path, Build(es, []string{"knobs"}, changepoint.Options{}), []string{"knobs"}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	page := string(b)
	for _, want := range []string{"<svg", `href="m5/report.html"`, "stroke-dasharray", "knobs: (none) -&gt; innodb_flush_log_at_trx_commit=2", "Merged across knobs", "<td>m7</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
