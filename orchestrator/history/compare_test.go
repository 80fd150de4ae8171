package history

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	// With --ignore knobs, runs of other knobs are the same configuration:
	// the refusal names the version, not "only in A".
	for i := range b {
		b[i].Identity.Knobs = "sync_binlog=0"
	}
	err = Compare(a, b, []string{"knobs"}).Err()
	if err == nil || !strings.Contains(err.Error(), "pure-random-writes innodb: not compared: different series, version: MariaDB 10.11.19 -> MySQL 9.7.4 (--ignore version compares them anyway)") {
		t.Errorf("across versions, knobs ignored: %v", err)
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

// orch compare's store selections choose the runs they say: three
// campaigns two days apart (the third on MySQL), 4 runs each, in a store.
func TestCompareStoreSelections(t *testing.T) {
	store := filepath.Join(t.TempDir(), DefaultFile)
	s := openTemp(t, store)
	t0 := time.Date(2026, 12, 1, 2, 0, 0, 0, time.UTC)
	var es []Entry
	for c, cp := range []struct {
		version string
		level   float64
	}{{"MariaDB 10.11.19", 1000}, {"MariaDB 10.11.19", 900}, {"MySQL 9.7.4", 800}} {
		for i, w := range []float64{0.99, 1.01, 1.0, 1.005} {
			es = append(es, Entry{Key: fmt.Sprintf("c%d-%d", c+1, i), Campaign: fmt.Sprintf("c%d", c+1), Start: t0.Add(time.Duration(48*c)*time.Hour + time.Duration(i)*time.Minute),
				Value: cp.level * w, State: "ok", Identity: Identity{Workload: "pure-random-writes", Metric: "writes/s", Engine: "innodb", Version: cp.version}})
		}
	}
	if _, err := s.Record(context.Background(), es); err != nil {
		t.Fatal(err)
	}
	s.Close()
	compare := func(a, b string) (string, error) {
		var out bytes.Buffer
		err := CompareCampaigns(context.Background(), CompareOptions{Where: Where{File: store}, A: a, B: b, Out: &out})
		return out.String(), err
	}
	// A campaign against the runs since a date on one version: c2 alone.
	out, err := compare("campaign=c1", "since=2026-12-02,version=10.11")
	if err != nil || !strings.Contains(out, "A: campaign=c1 (4 runs)\nB: since=2026-12-02,version=10.11 (4 runs)\n") || !strings.Contains(out, "0.900 [") {
		t.Errorf("c1 against c2: %v\n%s", err, out)
	}
	// Before and since a date: c1, and c2 with c3; c3's MySQL runs are
	// another series, named, not pooled with c2's.
	out, err = compare("until=2026-12-02", "since=2026-12-02")
	if err != nil || !strings.Contains(out, "A: until=2026-12-02 (4 runs)\nB: since=2026-12-02 (8 runs)\n") || !strings.Contains(out, "0.900 [") ||
		!strings.Contains(out, "pure-random-writes innodb: B's runs of another series not compared: different series, version: MariaDB 10.11.19 -> MySQL 9.7.4 (--ignore version compares them anyway)") {
		t.Errorf("c1 against c2 and c3: %v\n%s", err, out)
	}
	// Across versions alone: refused, the field named.
	if _, err = compare("campaign=c1", "version=MySQL"); !orchestrator.IsBadInput(err) ||
		!strings.Contains(err.Error(), "pure-random-writes innodb: not compared: different series, version: MariaDB 10.11.19 -> MySQL 9.7.4") {
		t.Errorf("c1 against MySQL: %v", err)
	}
	// --ignore version pools c2 and c3 against c1: 8 runs at 0.85.
	var buf bytes.Buffer
	err = CompareCampaigns(context.Background(), CompareOptions{Where: Where{File: store}, A: "campaign=c1", B: "since=2026-12-02", Ignore: []string{"version"}, Out: &buf})
	if err != nil || !strings.Contains(buf.String(), "0.850 [") || !strings.Contains(buf.String(), "(n=8)") {
		t.Errorf("--ignore version: %v\n%s", err, buf.String())
	}
	// A selection that matches nothing, and one that is not one.
	for _, sel := range []string{"since=2026-12-06", "engine=rocksdb", "colour=blue"} {
		if _, err := compare("campaign=c1", sel); !orchestrator.IsBadInput(err) {
			t.Errorf("B %s: %v, want bad input", sel, err)
		}
	}
}
