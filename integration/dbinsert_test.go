package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The PerconaFT source archive the lab builds from, and its checksum file.
const (
	perconaFTArchive = "../../shared/prebuilt/perconaft-f85cba7e8-src.tar.zst"
	prebuiltSums     = "../../shared/prebuilt/SHA256SUMS"
)

// dbInsertSize keeps the lab's matrix cheap: 3 batches of 65,536 serial and
// 65,536 random insertions, under a 64 MB cache.
var dbInsertSize = []string{"--iterations", "3", "--set", "batch_size=65536", "--set", "cache_size=67108864"}

// TestDBInsertMatrix: orch dbinsert builds PerconaFT's db-insert and
// db-insert-bdb on the master from the source archive (a second call is a
// cache hit), then a fractal tree vs Berkeley DB matrix of 2 repetitions
// runs them, each cell complete with 3 batches, the database's bytes on
// disk, the master's per-second OS series, and its working directory
// removed. A program killed mid-run (SIGABRT, as a failed assert) is a
// failed run whose output is kept.
func TestDBInsertMatrix(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	sum := archiveSum(t)

	r := buildDBInsert(t, l)
	if r.code != 0 || !strings.Contains(r.stdout, "/.orch/dbinsert/"+sum+"/bin/db-insert-bdb") {
		t.Fatalf("dbinsert: exit %d", r.code)
	}
	if !strings.Contains(r.stderr, "already built") && (!strings.Contains(r.stderr, "db-insert build: cmake") ||
		!strings.Contains(r.stderr, "built both programs")) {
		t.Errorf("no progress lines from the build")
	}
	r = l.orch(t, "dbinsert", "-i", l.inventory, "--source", perconaFTArchive)
	if r.code != 0 || !strings.Contains(r.stdout, "already built") || r.elapsed > 30*time.Second {
		t.Errorf("second dbinsert of the same source: exit %d in %s, want a cache hit", r.code, r.elapsed)
	}

	runs := t.TempDir()
	args := append([]string{"matrix", "-i", l.inventory, "--workload", "db-insert", "--engines=tokudb,bdb", "--repeat", "2", "--runs", runs}, dbInsertSize...)
	if r := l.orch(t, args...); r.code != 0 {
		t.Fatalf("matrix: exit %d", r.code)
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	m := loadMatrix(t, dir)
	if len(m.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(m.Cells))
	}
	for _, c := range m.Cells {
		if c.State != "ok" {
			t.Errorf("cell %s: %s", c.ID, c.State)
			continue
		}
		cell := filepath.Join(dir, "cells", c.ID)
		checkDBInsertCell(t, cell, c.Engine)
	}
	for _, f := range []string{"report.md", "report.html", "dbinsert.md", "plots/dbinsert-random.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("matrix report: %v", err)
		}
	}
	md := string(mustRead(t, filepath.Join(dir, "dbinsert.md")))
	for _, want := range []string{"| batch | data inserted | tokudb serial | tokudb random | bdb serial | bdb random |", "| 2 | 6.0 MiB |", "as fast as the"} {
		if !strings.Contains(md, want) {
			t.Errorf("dbinsert.md lacks %q", want)
		}
	}
	crashMidRun(t, l)
}

// crashMidRun aborts db-insert (SIGABRT, what a failed assert raises) in
// the middle of a long run: the run is failed, its output kept and read as
// incomplete.
func crashMidRun(t *testing.T, l *lab) {
	runs := t.TempDir()
	cmd := exec.Command(l.bin, "run", "-i", l.inventory, "--workload", "db-insert", "--iterations", "500", "--set", "batch_size=65536", "--runs", runs, "--stacks=off")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid, remote := 0, ""
	for deadline := time.Now().Add(2 * time.Minute); pid == 0 && time.Now().Before(deadline) && len(done) == 0; time.Sleep(time.Second) {
		var man struct {
			Remote struct {
				PID int
				Dir string
			} `json:"remote"`
		}
		raw, err := os.ReadFile(filepath.Join(runs, "latest", "manifest.json"))
		if err == nil && json.Unmarshal(raw, &man) == nil {
			pid, remote = man.Remote.PID, man.Remote.Dir
		}
	}
	if pid == 0 || remote == "" {
		t.Fatalf("no benchmark pid or directory in the run's manifest:\n%s", out.String())
	}
	// A batch or two in: the program's own lines in its output on the
	// host (a fixed sleep aborted it before its first batch on a fast
	// machine, and the run then had nothing to keep).
	out2 := ""
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline) && len(done) == 0; time.Sleep(500 * time.Millisecond) {
		r := l.run(t, context.Background(), "exec", "-i", l.inventory, "--role", "master", "--", "grep -c ' serial ' "+shellQuote(remote+"/run.out")+" || true")
		out2 = r.stdout
		if n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(out2), "master |"))); err == nil && n >= 2 {
			break
		}
	}
	// The program itself (the pid is its launcher shell's, whose child is
	// a shell running run.sh): the only db-insert in the master's PID
	// namespace.
	if r := l.orch(t, "exec", "-i", l.inventory, "--role", "master", "--", "pkill -ABRT -x db-insert"); r.code != 0 {
		t.Fatalf("abort db-insert: exit %d", r.code)
	}
	err := <-done
	t.Logf("orch run:\n%s", out.String())
	if err == nil {
		t.Fatal("orch run of a crashed db-insert exited 0")
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	var man struct {
		Status string `json:"status"`
	}
	json.Unmarshal(mustRead(t, filepath.Join(dir, "manifest.json")), &man)
	raw := string(mustRead(t, filepath.Join(dir, "benchmark", "run.txt")))
	var res struct {
		Benchmark struct {
			Complete bool              `json:"complete"`
			Batches  []json.RawMessage `json:"batches"`
		} `json:"benchmark"`
	}
	json.Unmarshal(mustRead(t, filepath.Join(dir, "results.json")), &res)
	if man.Status != "failed" || !strings.Contains(raw, "0 serial") || res.Benchmark.Complete || len(res.Benchmark.Batches) == 0 {
		t.Errorf("crashed run: status %q, complete %v, %d batches, output:\n%s", man.Status, res.Benchmark.Complete, len(res.Benchmark.Batches), raw)
	}
}

// checkDBInsertCell reads one cell's run directory.
func checkDBInsertCell(t *testing.T, cell, engine string) {
	t.Helper()
	var res struct {
		Benchmark struct { // the parsed result itself

			Tool       string            `json:"tool"`
			Complete   bool              `json:"complete"`
			BatchSize  int64             `json:"batch_size"`
			Checkpoint *int64            `json:"checkpoint_period_s"`
			Batches    []json.RawMessage `json:"batches"`
			DBDir      string            `json:"db_dir"`
			DBBytes    *int64            `json:"db_bytes"`
			Insertions int64             `json:"insertions"`
		} `json:"benchmark"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(cell, "results.json")), &res); err != nil {
		t.Fatal(err)
	}
	b := res.Benchmark
	wantDir := map[string]string{"tokudb": "bench.tokudb", "bdb": "bench.bdb"}[engine]
	if !b.Complete || b.Tool != "db-insert" || b.BatchSize != 65536 || len(b.Batches) != 3 || b.Insertions != 6*65536 {
		t.Errorf("%s: result %+v", cell, b)
	}
	// Only the fractal-tree build prints its checkpoint period.
	if (b.Checkpoint != nil) != (engine == "tokudb") {
		t.Errorf("%s: checkpoint period %v for %s", cell, b.Checkpoint, engine)
	}
	// 393,216 pairs of 8-byte keys and values: more than 6 MB of data.
	if b.DBDir != wantDir || b.DBBytes == nil || *b.DBBytes < 1<<20 {
		t.Errorf("%s: database %q %v bytes", cell, b.DBDir, b.DBBytes)
	}
	raw := string(mustRead(t, filepath.Join(cell, "benchmark", "run.txt")))
	if !strings.Contains(raw, "insertions of 65536 per batch") {
		t.Errorf("%s: raw output %q", cell, raw)
	}
	var man struct {
		Remote struct {
			Host, Dir string
			Removed   bool
		} `json:"remote"`
	}
	json.Unmarshal(mustRead(t, filepath.Join(cell, "manifest.json")), &man)
	if man.Remote.Host == "" || !man.Remote.Removed {
		t.Errorf("%s: working directory %+v, want removed", cell, man.Remote)
	}
	// The host it ran on, monitored every second.
	series := string(mustRead(t, filepath.Join(cell, "timeseries", man.Remote.Host+"-os.csv")))
	if n := strings.Count(series, "\n"); n < 3 {
		t.Errorf("%s: %d lines of %s-os.csv", cell, n, man.Remote.Host)
	}
}

func archiveSum(t *testing.T) string {
	t.Helper()
	for _, line := range strings.Split(string(mustRead(t, prebuiltSums)), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == filepath.Base(perconaFTArchive) {
			return f[0]
		}
	}
	t.Fatalf("%s lists no %s", prebuiltSums, filepath.Base(perconaFTArchive))
	return ""
}

// buildDBInsert runs the first orch dbinsert with more time than l.orch's
// 5 minutes: the build took 3 min 49 s on the lab beside other work.
func buildDBInsert(t *testing.T, l *lab) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, l.bin, "dbinsert", "-i", l.inventory, "--source", perconaFTArchive)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("orch dbinsert: %v", err)
	}
	t.Logf("orch dbinsert -> exit %d in %s\nstdout:\n%s\nstderr:\n%s", r.code, r.elapsed.Round(time.Millisecond), r.stdout, r.stderr)
	return r
}
