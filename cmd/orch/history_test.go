package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/history"
)

// The history commands' exit statuses: 0 for a clean import (twice), 2 for
// bad input, 1 when --check finds a regression.
func TestHistoryExitStatuses(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "h.sqlite")
	fixtures, _ := filepath.Abs("../../orchestrator/report/testdata")
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"history", "import", "--store", store, filepath.Join(fixtures, "matrix")}, 0},
		{[]string{"history", "import", "--store", store, filepath.Join(fixtures, "matrix")}, 0},
		{[]string{"history", "--store", store}, 0},
		{[]string{"history", "--store", store, "--ignore", "colour"}, 2},
		{[]string{"history", "--store", store, "--since", "last tuesday"}, 2},
		{[]string{"history", "--store", store, "nosuchseries"}, 2},
		{[]string{"history", "--store", store, "--check"}, 0},
		{[]string{"history", "import", "--store", store, filepath.Join(dir, "missing")}, 2},
		{[]string{"compare", "--store", store, filepath.Join(fixtures, "matrix"), "colour=blue"}, 2},
	} {
		if got := run(context.Background(), tc.args); got != tc.want {
			t.Errorf("orch %v: exit %d, want %d", tc.args, got, tc.want)
		}
	}
	// A series whose newest campaigns fell by 20%.
	s, err := history.Open(context.Background(), history.Config{Path: store})
	if err != nil {
		t.Fatal(err)
	}
	var es []history.Entry
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 24; i++ {
		v := 1000.0 + float64(i%3)
		if i >= 18 {
			v *= 0.8
		}
		es = append(es, history.Entry{Key: fmt.Sprint("k", i), Start: t0.Add(time.Duration(i) * time.Hour), Campaign: fmt.Sprint("c", i/3), Value: v, State: "ok",
			Identity: history.Identity{Workload: "w", Metric: "tps", Engine: "innodb"}})
	}
	if _, err := s.Record(context.Background(), es); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The threshold as its help and README write it (10%), or bare.
	for _, th := range []string{"10%", "10"} {
		if got := run(context.Background(), []string{"history", "--store", store, "--check", "--threshold", th}); got != 1 {
			t.Errorf("--check --threshold %s on a 20%% drop: exit %d, want 1", th, got)
		}
	}
	if got := run(context.Background(), []string{"history", "--store", store, "--check", "--threshold", "ten"}); got != 2 {
		t.Errorf("--threshold ten: exit %d, want 2", got)
	}
	if got := run(context.Background(), []string{"history", "--store", store, "--check", "--threshold", "25"}); got != 0 {
		t.Errorf("--check --threshold 25 on a 20%% drop: exit %d, want 0", got)
	}
}
