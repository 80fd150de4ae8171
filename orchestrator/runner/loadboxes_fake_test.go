package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// TestRunFromTwoLoadBoxes: with two load boxes (both this machine), a
// sysbench run splits its threads between them, each client with its own
// seed, launched together behind one barrier; each output is followed
// into its own file and the merged result counts both clients' work. (The
// lab proves the same against real servers: TestStoppingRuleTwoLoadBoxes.)
func TestRunFromTwoLoadBoxes(t *testing.T) {
	const sample = "testdata/captured-sysbench-1.0.20-oltp_read_write-histogram-p99.txt"
	f := fakeLabOf(t, "testdata/fakelab2.yaml", "sysbench", sample)
	for _, h := range f.Lab.Hosts { // the dataset, as an earlier prepare left it
		h.Server().AddTable("sbtest", "sbtest1")
	}
	w, err := bench.ParseWorkload("two.yaml", []byte("name: two\ntool: sysbench\ntest: oltp_read_write\nprepare: false\noptions: {threads: 4, time_s: 1, tables: 1, table_size: 10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, fmt.Sprintf(format, args...))
	}
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "test", Logf: logf})
	if err != nil || out.Status != rundir.StatusOK {
		t.Fatalf("run: %v, %+v\n%s", err, out, strings.Join(logs, "\n"))
	}
	dir := out.Dir.Path()
	launch := regexp.MustCompile(`run: 2 load boxes start together at ([0-9:.]+): lb1 2 threads \(clock [-+][0-9.]+ ms\), lb2 2 threads`).FindStringSubmatch(strings.Join(logs, "\n"))
	if launch == nil {
		t.Errorf("the launch line is missing:\n%s", strings.Join(logs, "\n"))
	}
	// The measured load starts when the clients are released, not when
	// they were launched seconds before: marked at the launch, the
	// window opened on seconds without a commit (a 6 s run's master rate
	// read as a quarter of the clients', and a stall event).
	events, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var starts []string
	for _, line := range strings.Split(string(events), "\n") {
		var e struct {
			T    time.Time `json:"t"`
			Kind string    `json:"kind"`
		}
		if json.Unmarshal([]byte(line), &e) == nil && e.Kind == "load_start" {
			starts = append(starts, e.T.UTC().Format("15:04:05.000"))
		}
	}
	if launch != nil && (len(starts) != 1 || starts[0] != launch[1]) {
		t.Errorf("load_start %q, want one at the release instant %s", starts, launch[1])
	}
	cmds, err := os.ReadFile(filepath.Join(dir, "benchmark", "commands.txt"))
	if err != nil {
		t.Fatal(err)
	}
	seeds := regexp.MustCompile(`--threads=2 .*--rand-seed=(\d+) run`).FindAllStringSubmatch(string(cmds), -1)
	if !strings.Contains(string(cmds), "# run on lb1") || !strings.Contains(string(cmds), "# run on lb2") || len(seeds) != 2 || seeds[0][1] == seeds[1][1] {
		t.Errorf("each box runs 2 of the 4 threads with a seed of its own:\n%s", cmds)
	}
	want, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	for _, box := range []string{"lb1", "lb2"} {
		got, err := os.ReadFile(filepath.Join(dir, "benchmark", "run."+box+".txt"))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s's output: %v (%d bytes, the client printed %d)", box, err, len(got), len(want))
		}
		if _, err := os.Stat(filepath.Join(out.Dir.HostDir(box), rundir.HostCommands)); err != nil {
			t.Errorf("%s has no command log: %v", box, err)
		}
	}
	one, err := bench.ParseSysbench(sample, strings.NewReader(string(want)))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := out.Results.Benchmark.Result.(*bench.Merged)
	if !ok || r.Transactions != 2*one.Transactions || r.Queries != 2*one.Queries || len(r.Clients) != 2 || r.PercentileFrom != "merged histogram" {
		t.Fatalf("merged result %T, want both clients' %d transactions and %d queries", out.Results.Benchmark.Result, 2*one.Transactions, 2*one.Queries)
	}
	if _, err := os.Stat(filepath.Join(dir, "benchmark", "run.merged.json")); err != nil {
		t.Errorf("no merged result: %v", err)
	}
}
