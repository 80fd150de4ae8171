package matrix

import (
	"strings"
	"testing"
	"time"
)

func TestBuild(t *testing.T) {
	m, err := Build(Spec{Engines: "innodb,rocksdb", Knobs: []string{"sync_binlog=0,1"}, Workload: "pure-random-writes",
		Repeat: 2, WarmupS: intp(7), Baseline: "rocksdb sync_binlog=1", Overrides: map[string]string{"threads": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 8 || *m.WarmupS != 7 || m.Overrides["threads"] != "4" || m.Baseline != "rocksdb sync_binlog=1" {
		t.Errorf("Build: %d cells, warmup %v, overrides %v, baseline %q", len(m.Cells), *m.WarmupS, m.Overrides, m.Baseline)
	}
	if m.Design != nil {
		t.Error("a one-cluster matrix has a design")
	}
	// The analysis is recorded before any run: the design's (blocked by
	// round) unless --analysis said otherwise.
	if m.Analysis != "blocked" {
		t.Errorf("analysis %q, want blocked recorded", m.Analysis)
	}
	if u, err := Build(Spec{Engines: "innodb,rocksdb", Workload: "pure-random-writes", Repeat: 2, Analysis: "unpaired"}); err != nil || u.Analysis != "unpaired" {
		t.Errorf("--analysis unpaired: %v, recorded %q", err, u.Analysis)
	}
}

func TestBuildRejects(t *testing.T) {
	ok := Spec{Engines: "innodb", Workload: "pure-random-writes", Repeat: 1}
	for _, tc := range []struct {
		edit func(*Spec)
		want string
	}{
		{func(s *Spec) { s.Engines = "" }, "--engines is required"},
		{func(s *Spec) { s.Engines = "innodb,innodb" }, "innodb"},
		{func(s *Spec) { s.Knobs = []string{"=1"} }, ""},
		{func(s *Spec) { s.Workload = "no-such-workload" }, "no-such-workload"},
		{func(s *Spec) { s.Repeat = 0 }, "repeat"},
		{func(s *Spec) { s.Baseline = "tokudb" }, "tokudb"},
		{func(s *Spec) { s.Analysis = "paired" }, "--analysis paired: want blocked or unpaired"},
	} {
		s := ok
		tc.edit(&s)
		_, err := Build(s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%+v) = %v, want an error naming %q", s, err, tc.want)
		}
	}
}

func TestBuildBlocked(t *testing.T) {
	s := Spec{Engines: "innodb,rocksdb", Workload: "pure-random-writes", Repeat: 2, WarmupS: intp(3),
		Baseline: "rocksdb", Overrides: map[string]string{"time": "5"}}
	a, err := BuildBlocked(s, []string{"east", "west"}, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildBlocked(s, []string{"east", "west"}, 42)
	if err != nil {
		t.Fatal(err)
	}
	if a.Design == nil || a.Design.Seed != 42 || len(a.Cells) != 8 || a.Baseline != "rocksdb" || *a.WarmupS != 3 || a.Overrides["time"] != "5" {
		t.Fatalf("BuildBlocked: design %v, %d cells, baseline %q, warmup %v, overrides %v", a.Design, len(a.Cells), a.Baseline, *a.WarmupS, a.Overrides)
	}
	for i := range a.Cells {
		if a.Cells[i].ID != b.Cells[i].ID {
			t.Fatalf("the same seed drew another order: %s vs %s", a.Cells[i].ID, b.Cells[i].ID)
		}
	}
	if _, err := BuildBlocked(s, []string{"east", "east"}, 1); err == nil {
		t.Error("a cluster listed twice was accepted")
	}
	if _, err := BuildBlocked(Spec{Workload: "pure-random-writes", Repeat: 1}, []string{"east"}, 1); err == nil {
		t.Error("a design without engines was accepted")
	}
	if s1, err := NewSeed(); err != nil || s1 < 0 {
		t.Errorf("NewSeed = %d, %v", s1, err)
	}
}

func TestLoadResume(t *testing.T) {
	one := newMatrix(t)
	root, dir := create(t, one)
	if m, err := LoadResume(root, "", nil); err != nil || m.Dir() != dir {
		t.Fatalf("latest: %v, %v", m, err)
	}
	if _, err := LoadResume(root, dir, []string{"east", "west"}); err == nil || !strings.Contains(err.Error(), "ran on one cluster") {
		t.Errorf("a one-cluster matrix resumed over two: %v", err)
	}
	blocked, err := BuildBlocked(Spec{Engines: "innodb", Workload: "pure-random-writes", Repeat: 1}, []string{"east", "west"}, 7)
	if err != nil {
		t.Fatal(err)
	}
	broot, bdir := create(t, blocked)
	if _, err := LoadResume(broot, bdir, nil); err == nil || !strings.Contains(err.Error(), "ran over clusters [east west]") {
		t.Errorf("a block design resumed on one cluster: %v", err)
	}
	if _, err := LoadResume(broot, bdir, []string{"east", "north"}); err == nil {
		t.Error("a block design resumed over other clusters")
	}
	if m, err := LoadResume(broot, "", []string{"east", "west"}); err != nil || m.Design == nil {
		t.Errorf("block design resume: %v", err)
	}
	if _, err := LoadResume(t.TempDir(), "", nil); err == nil {
		t.Error("resume with no matrix under the runs directory succeeded")
	}
}

func TestCellWorkload(t *testing.T) {
	m, err := Build(Spec{Engines: "innodb,rocksdb", Workload: "pure-random-writes", Repeat: 1, Overrides: map[string]string{"threads": "4"}})
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.CellWorkload("rocksdb")
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.CellWorkload("innodb")
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a.Options.Engine != "rocksdb" || b.Options.Engine != "innodb" {
		t.Errorf("cell workloads: shared %v, engines %q %q", a == b, a.Options.Engine, b.Options.Engine)
	}
	if a.Options.Threads == nil || *a.Options.Threads != 4 {
		t.Errorf("threads override not applied: %v", a.Options.Threads)
	}
	if _, set := m.Overrides["engine"]; set {
		t.Error("CellWorkload changed the matrix's overrides")
	}
	// An engine override is the user's choice: every cell keeps it.
	m.Overrides["engine"] = "innodb"
	if w, err := m.CellWorkload("rocksdb"); err != nil || w.Options.Engine != "innodb" {
		t.Errorf("engine override: %v, %v", w.Options.Engine, err)
	}
	m.Overrides["threads"] = "many"
	if _, err := m.CellWorkload("innodb"); err == nil {
		t.Error("a bad override was applied")
	}
}

func TestCostsOf(t *testing.T) {
	m, err := Build(Spec{Engines: "innodb", Workload: "pure-random-writes", Repeat: 1, Overrides: map[string]string{"time": "20"}})
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.CellWorkload("innodb")
	if err != nil {
		t.Fatal(err)
	}
	if c := CostsOf(w); c.PerCell != 20*time.Second+CellOverhead || c.Switch != SwitchCost {
		t.Errorf("CostsOf = %+v", c)
	}
	w.Options.TimeS = nil
	if c := CostsOf(w); c != (Costs{}) {
		t.Errorf("a workload without a time limit has an estimate: %+v", c)
	}
}

func TestConfigurations(t *testing.T) {
	m := newMatrix(t) // innodb, rocksdb x sync_binlog 0,1 x 2 repetitions
	got := m.Configurations()
	if len(got) != 4 {
		t.Fatalf("%d configurations, want 4: %v", len(got), got)
	}
	seen := map[string]bool{}
	for i, d := range got {
		if len(d.Knobs) != 1 || d.Knobs[0].Name != "sync_binlog" {
			t.Errorf("configuration %d: knobs %v", i, d.Knobs)
		}
		key := d.Engine + " " + d.Knobs[0].Value
		if seen[key] {
			t.Errorf("configuration %s twice", key)
		}
		seen[key] = true
		if c := m.Cells[i]; c.Engine != d.Engine {
			t.Errorf("configuration %d is %s, the plan's cell %d is %s: not in plan order", i, d.Engine, i, c.Engine)
		}
	}
}

func intp(v int) *int { return &v }
