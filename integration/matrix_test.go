package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type matrixState struct {
	Engines []string `json:"engines"`
	Until   struct {
		Judged int `json:"rounds_judged"`
	} `json:"until"`
	NoEffect map[string]string `json:"no_effect"`
	Cells    []struct {
		ID, Label, Engine, State, Dir string
		Rep                           int
		Started, Ended                time.Time
	} `json:"cells"`
}

func loadMatrix(t *testing.T, dir string) matrixState {
	t.Helper()
	var m matrixState
	if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "matrix.json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

var shortMatrix = []string{"--workload", "pure-random-writes", "--tables", "2", "--threads", "4", "--time", "5", "--table-size", "10000", "--warmup", "1"}

// TestMatrixResume: innodb,rocksdb x sync_binlog=0,1 x 2 repetitions is 8
// interleaved cells; orch killed mid-matrix leaves a matrix that --resume
// finishes, running only the cells that had not finished; the report files
// agree with the cells' results.
func TestMatrixResume(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	runs := t.TempDir()
	args := append([]string{"matrix", "-i", l.inventory, "--engines=innodb,rocksdb", "--knobs=sync_binlog=0,1", "--repeat", "2", "--runs", runs}, shortMatrix...)

	cmd := exec.CommandContext(context.Background(), l.bin, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill orch (no chance to clean up) once two cells are done.
	deadline := time.Now().Add(4 * time.Minute)
	var dir string
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		if dir == "" {
			dir, _ = filepath.EvalSymlinks(filepath.Join(runs, "latest"))
			continue
		}
		if strings.Count(out.String(), "matrix: cell ") >= 5 { // 2 done + the 3rd started
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	t.Logf("killed matrix:\n%s", out.String())
	if dir == "" {
		t.Fatal("the matrix made no directory")
	}
	before := loadMatrix(t, dir)
	if len(before.Cells) != 8 {
		t.Fatalf("%d cells, want 8", len(before.Cells))
	}
	// Interleaved: every configuration once before any repeats.
	for i, c := range before.Cells {
		if want := 1 + i/4; c.Rep != want {
			t.Errorf("cell %d (%s) is repetition %d, want %d: repetitions are not interleaved", i, c.ID, c.Rep, want)
		}
	}
	okBefore := map[string]time.Time{}
	for _, c := range before.Cells {
		if c.State == "ok" {
			okBefore[c.ID] = c.Ended
		}
	}
	if len(okBefore) < 1 || len(okBefore) == 8 {
		t.Fatalf("%d cells ok after the kill; the test wants a partial matrix", len(okBefore))
	}

	r := l.mustOK(t, "matrix", "-i", l.inventory, "--resume", "--runs", runs)
	after := loadMatrix(t, dir)
	for _, c := range after.Cells {
		if c.State != "ok" {
			t.Errorf("cell %s is %s after resume", c.ID, c.State)
		}
		if end, was := okBefore[c.ID]; was && !c.Ended.Equal(end) {
			t.Errorf("cell %s was already ok but ran again", c.ID)
		}
	}
	if !strings.Contains(r.stdout, "8 ok, 0 failed") {
		t.Errorf("resume summary:\n%s", r.stdout)
	}
	for _, f := range []string{"report.md", "report.html", "results.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("matrix lacks %s", f)
		}
	}
	// The CSV has one row per cell, with each cell's tps from its results.
	csv := string(mustRead(t, filepath.Join(dir, "results.csv")))
	for _, c := range after.Cells {
		res := readJSON(t, filepath.Join(dir, c.Dir, "results.json"))
		tps := res["benchmark"].(map[string]any)["tps"]
		b, _ := json.Marshal(tps)
		if !strings.Contains(csv, c.ID) || !strings.Contains(csv, string(b)) {
			t.Errorf("results.csv lacks cell %s with tps %s", c.ID, b)
		}
	}
}

// TestMatrixRefusesAnotherFlavoursKnob: binlog_order_commits, the seed's
// second question, is MySQL's: on the MariaDB lab a matrix over it is
// refused in one line before any host, saying where it can be asked, and
// leaves no run directory (its cells would have measured noise only).
func TestMatrixRefusesAnotherFlavoursKnob(t *testing.T) {
	l := needLab(t)
	runs := t.TempDir()
	r := l.orch(t, append([]string{"matrix", "-i", l.inventory, "--engines=innodb", "--knobs=binlog_order_commits", "--runs", runs}, shortMatrix...)...)
	if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
		!strings.Contains(r.stderr, "binlog_order_commits: no such variable on MariaDB") || !strings.Contains(r.stderr, "orch lab up --flavor mysql") {
		t.Errorf("exit %d, want 2 and one line naming why and the MySQL lab:\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(runs); len(entries) != 0 {
		t.Errorf("a refused matrix left %d entries in its runs folder", len(entries))
	}
}
