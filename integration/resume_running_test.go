package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sysbenchWatch counts, about five times a second on the load box, the
// sysbench processes loading the lab's master, over one SSH session (orch
// exec streams each line), for as long as the test runs.
type sysbenchWatch struct {
	mu      sync.Mutex
	samples int
	max     int
	last    time.Time // when a sysbench was last seen
	cancel  context.CancelFunc
	done    chan struct{}
}

func (l *lab) watchSysbench(t *testing.T) *sysbenchWatch {
	t.Helper()
	master := hostAddress(t, l.inventoryDoc(t, filepath.Base(l.inventory)), "master")
	// ^sysbench: the watching shell's own command line never matches.
	loop := fmt.Sprintf(`i=0; while [ $i -lt 3000 ]; do echo "sysbench $(pgrep -c -f '^sysbench .*--mysql-host=%s( |$)')"; sleep 0.2; i=$((i+1)); done`, master)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, l.bin, "exec", "-i", l.inventory, "--role", "loadbox", "--", loop)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &sysbenchWatch{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text()) // "loadbox | sysbench N"
			if len(f) != 4 || f[2] != "sysbench" {
				continue
			}
			n, err := strconv.Atoi(f[3])
			if err != nil {
				continue
			}
			w.mu.Lock()
			w.samples++
			w.max = max(w.max, n)
			if n > 0 {
				w.last = time.Now()
			}
			w.mu.Unlock()
		}
		cmd.Wait()
	}()
	t.Cleanup(w.stop)
	return w
}

// stop ends the watch; its figures are final after it.
func (w *sysbenchWatch) stop() {
	w.cancel()
	<-w.done
}

func (w *sysbenchWatch) figures() (samples, max int, last time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.samples, w.max, w.last
}

// killDuringRun starts orch (matrix or run, --runs last) and SIGKILLs it
// (not the benchmark) a few seconds into its first benchmark run. It
// returns the latest directory under --runs and when orch died.
func (l *lab) killDuringRun(t *testing.T, args ...string) (string, time.Time) {
	t.Helper()
	runs := args[len(args)-1]
	cmd := exec.Command(l.bin, args...)
	var out syncBuilder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.After(3 * time.Minute)
	for !strings.Contains(out.String(), "sysbench oltp_insert run (") {
		select {
		case <-exited:
			t.Fatalf("orch ended before its first benchmark ran:\n%s", out.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the first benchmark never started:\n%s", out.String())
		case <-time.After(200 * time.Millisecond):
		}
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	killed := time.Now()
	t.Logf("killed orch:\n%s", out.String())
	dir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatalf("the matrix made no directory: %v", err)
	}
	return dir, killed
}

// syncBuilder is a strings.Builder two writers (stdout, stderr) share.
type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// assertMatrixComplete checks every cell ended ok with a complete run
// directory, and that the killed attempt of the first cell was kept,
// collected and finished (never left "running").
func assertMatrixComplete(t *testing.T, dir string, cells int) (attempt string) {
	t.Helper()
	m := loadMatrix(t, dir)
	if len(m.Cells) != cells {
		t.Fatalf("%d cells, want %d", len(m.Cells), cells)
	}
	for _, c := range m.Cells {
		if c.State != "ok" {
			t.Errorf("cell %s is %s", c.ID, c.State)
			continue
		}
		cd := filepath.Join(dir, c.Dir)
		man := readJSON(t, filepath.Join(cd, "manifest.json"))
		if man["status"] != "ok" {
			t.Errorf("cell %s: manifest status %v", c.ID, man["status"])
		}
		b, _ := readJSON(t, filepath.Join(cd, "results.json"))["benchmark"].(map[string]any)
		if b == nil || b["complete"] != true {
			t.Errorf("cell %s: results.json has no complete benchmark: %v", c.ID, b)
		}
		for _, f := range []string{"benchmark/run.txt", "benchmark/prepare.txt"} {
			if _, err := os.Stat(filepath.Join(cd, f)); err != nil {
				t.Errorf("cell %s lacks %s", c.ID, f)
			}
		}
		if _, err := os.Stat(filepath.Join(cd, "benchmark/run.txt.part")); err == nil {
			t.Errorf("cell %s: run.txt.part left", c.ID)
		}
	}
	attempt = filepath.Join(dir, m.Cells[0].Dir+".attempt-1")
	man := readJSON(t, filepath.Join(attempt, "manifest.json"))
	if man["status"] != "interrupted" {
		t.Errorf("the killed attempt's manifest: status %v, want interrupted", man["status"])
	}
	if rem, _ := man["remote"].(map[string]any); rem == nil || rem["removed"] != true || rem["marker"] == nil {
		t.Errorf("the killed attempt's remote directory: %v, want its marker, removed", man["remote"])
	}
	return attempt
}

// TestFaultResumeStopsRunningBenchmark (fault 5): orch is killed while a
// cell's benchmark runs detached on the load box; `matrix --resume` at once
// finds that benchmark by its run's marker, says it stops it, and redoes
// the cell: at no sample did two sysbench processes load the master, and
// the matrix ends complete, the killed attempt collected beside the cell.
func TestFaultResumeStopsRunningBenchmark(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	runs := t.TempDir()
	w := l.watchSysbench(t)
	dir, killed := l.killDuringRun(t, "matrix", "-i", l.inventory, "--engines=innodb", "--repeat", "2", "--workload", "pure-random-writes",
		"--tables", "2", "--threads", "4", "--time", "20", "--table-size", "10000", "--warmup", "1", "--runs", runs)
	r := l.mustOK(t, "matrix", "-i", l.inventory, "--resume", "--runs", runs)
	w.stop()
	samples, most, last := w.figures()
	t.Logf("load box: %d samples, at most %d sysbench at once", samples, most)
	if !strings.Contains(r.stderr, "the interrupted run's benchmark still runs (pid ") || !strings.Contains(r.stderr, "stopping it") {
		t.Errorf("the resume did not say it found the running benchmark and stopped it:\n%s", r.stderr)
	}
	if most > 1 {
		t.Errorf("%d sysbench processes loaded the master at once", most)
	}
	if samples < 20 || !last.After(killed) {
		t.Errorf("the watch saw %d samples, a sysbench last at %v (orch killed at %v): it did not watch the orphan", samples, last, killed)
	}
	if !strings.Contains(r.stdout, "2 ok, 0 failed") {
		t.Errorf("resume summary:\n%s", r.stdout)
	}
	assertMatrixComplete(t, dir, 2)
}

// TestFaultResumeWaitsForRunningBenchmark: with --wait-running the resume
// lets the orphaned benchmark finish, collects its whole output into the
// killed attempt, then redoes the cell; never two at once.
func TestFaultResumeWaitsForRunningBenchmark(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	runs := t.TempDir()
	w := l.watchSysbench(t)
	dir, _ := l.killDuringRun(t, "matrix", "-i", l.inventory, "--engines=innodb", "--workload", "pure-random-writes",
		"--tables", "2", "--threads", "4", "--time", "15", "--table-size", "10000", "--warmup", "1", "--runs", runs)
	r := l.mustOK(t, "matrix", "-i", l.inventory, "--resume", "--wait-running", "--runs", runs)
	w.stop()
	samples, most, _ := w.figures()
	t.Logf("load box: %d samples, at most %d sysbench at once", samples, most)
	if !strings.Contains(r.stderr, "still runs (pid ") || !strings.Contains(r.stderr, "waiting for it to end") {
		t.Errorf("the resume did not say it waits for the running benchmark:\n%s", r.stderr)
	}
	if most > 1 || samples < 20 {
		t.Errorf("%d samples, at most %d sysbench at once; want many, never 2", samples, most)
	}
	attempt := assertMatrixComplete(t, dir, 1)
	// The orphan ran to its end: its final report was collected.
	if run := string(mustRead(t, filepath.Join(attempt, "benchmark", "run.txt"))); !strings.Contains(run, "General statistics") {
		t.Errorf("the waited-for attempt's output is not complete:\n%s", run)
	}
}

// TestFaultRunRefusesWhileBenchmarkRuns: after orch run is killed while its
// benchmark runs detached, a new orch run against the same cluster refuses
// to start a second benchmark (naming the one that runs) before it touches
// the tables, and orch collect, going by the first run's marker, waits for
// that benchmark and then completes its run directory.
func TestFaultRunRefusesWhileBenchmarkRuns(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	runs := t.TempDir()
	w := l.watchSysbench(t)
	first, _ := l.killDuringRun(t, "run", "-i", l.inventory, "--workload", "pure-random-writes",
		"--tables", "2", "--threads", "4", "--time", "20", "--table-size", "10000", "--runs", runs)
	r := l.orch(t, "run", "-i", l.inventory, "--workload", "pure-random-writes",
		"--tables", "2", "--threads", "4", "--time", "5", "--table-size", "10000", "--runs", t.TempDir())
	master := hostAddress(t, l.inventoryDoc(t, filepath.Base(l.inventory)), "master")
	if r.code == 0 || !strings.Contains(r.stderr, "another benchmark runs against "+master+":3306 (pid ") {
		t.Errorf("a second run started beside the running benchmark (exit %d):\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "oltp_insert cleanup (") {
		t.Errorf("the refused run dropped the tables the running benchmark writes:\n%s", r.stderr)
	}
	c := l.mustOK(t, "collect", "-i", l.inventory, first)
	if !strings.Contains(c.stdout, "the benchmark is still running") {
		t.Errorf("collect did not see the running benchmark:\n%s", c.stdout)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for strings.Contains(c.stdout, "still running") && time.Now().Before(deadline) {
		time.Sleep(3 * time.Second)
		c = l.mustOK(t, "collect", "-i", l.inventory, first)
	}
	w.stop()
	samples, most, _ := w.figures()
	t.Logf("load box: %d samples, at most %d sysbench at once", samples, most)
	if most > 1 || samples < 20 {
		t.Errorf("%d samples, at most %d sysbench at once; want many, never 2", samples, most)
	}
	if !strings.Contains(c.stdout, "removed the benchmark's working directory") {
		t.Errorf("the last collect did not complete the run:\n%s", c.stdout)
	}
	man := readJSON(t, filepath.Join(first, "manifest.json"))
	if man["status"] != "interrupted" || !strings.Contains(fmt.Sprint(man["error"]), "ended on its own") {
		t.Errorf("the killed run's manifest: status %v, error %v", man["status"], man["error"])
	}
	if run := string(mustRead(t, filepath.Join(first, "benchmark", "run.txt"))); !strings.Contains(run, "General statistics") {
		t.Errorf("the killed run's output is not complete:\n%s", run)
	}
}
