package integration

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loadboxesSubnet is this test's own lab: neither the shared lab's nor any
// other test's.
const loadboxesSubnet = "10.95.0.0/24"

// loadBoxesLab builds a one-cluster lab with two load boxes of this test's
// own (`orch lab up --loadboxes 2`: loadbox at .14, loadbox2 at .15) and
// removes it when the test ends, even on failure.
func loadBoxesLab(t *testing.T) (l *lab, dir, inv string) {
	t.Helper()
	l = needLab(t)
	if os.Geteuid() != 0 {
		t.Fatal("this test builds its own lab: run it as root (make test does)")
	}
	dir = t.TempDir()
	state, inv := filepath.Join(dir, "state"), filepath.Join(dir, "inv", "lab.yaml")
	t.Cleanup(func() {
		r := l.run(t, context.Background(), "lab", "down", "--state-dir", state, "-i", inv)
		for _, p := range []string{state, inv} {
			if _, err := os.Stat(p); err == nil || r.code != 0 {
				t.Errorf("lab down (exit %d) left %s: %s", r.code, p, lastLines(r.stderr, 8))
			}
		}
	})
	l.mustOK(t, "lab", "up", "--loadboxes", "2", "--subnet", loadboxesSubnet, "--state-dir", state, "-i", inv)
	return l, dir, inv
}

// clientOutput is what this test reads from one load box's raw sysbench
// output, by hand (sysbench's own format), not through orch's parser.
type clientOutput struct {
	threads   int
	intervals map[int64]float64 // [ Ts ] -> tps
	histogram map[string]int64  // printed bucket value -> count
	p95       float64           // the client's own "95th percentile:"
}

var (
	intervalLine  = regexp.MustCompile(`^\[ (\d+)s \] thds: \d+ tps: ([0-9.]+) `)
	histogramLine = regexp.MustCompile(`^\s+([0-9.]+) \|\**\s+(\d+)$`)
	threadsLine   = regexp.MustCompile(`^Number of threads: (\d+)$`)
	p95Line       = regexp.MustCompile(`^\s+95th percentile:\s+([0-9.]+)$`)
)

func readClientOutput(t *testing.T, path string) clientOutput {
	t.Helper()
	out := clientOutput{intervals: map[int64]float64{}, histogram: map[string]int64{}}
	for _, line := range strings.Split(string(mustRead(t, path)), "\n") {
		if g := intervalLine.FindStringSubmatch(line); g != nil {
			sec, _ := strconv.ParseInt(g[1], 10, 64)
			out.intervals[sec], _ = strconv.ParseFloat(g[2], 64)
		} else if g := histogramLine.FindStringSubmatch(line); g != nil {
			n, _ := strconv.ParseInt(g[2], 10, 64)
			out.histogram[g[1]] += n
		} else if g := threadsLine.FindStringSubmatch(line); g != nil {
			out.threads, _ = strconv.Atoi(g[1])
		} else if g := p95Line.FindStringSubmatch(line); g != nil {
			out.p95, _ = strconv.ParseFloat(g[1], 64)
		}
	}
	if len(out.intervals) < 3 || len(out.histogram) == 0 || out.p95 == 0 {
		t.Fatalf("%s: %d interval lines, %d histogram rows, p95 %v: not a complete sysbench run with --histogram",
			path, len(out.intervals), len(out.histogram), out.p95)
	}
	return out
}

// TestRunFromTwoLoadBoxes runs the benchmark from both load boxes of its
// own lab at once and checks, from the run directory's files, that both
// clients ran their share and that the merged result is their sum by time
// and the percentile of their summed histograms.
func TestRunFromTwoLoadBoxes(t *testing.T) {
	l, dir, inv := loadBoxesLab(t)
	l.mustOK(t, "up", "-i", inv, "--engine", "innodb")
	// check proves the benchmark login to the master from each load box.
	chk := l.mustOK(t, "check", "-i", inv)
	for _, h := range []string{"loadbox", "loadbox2"} {
		if !regexp.MustCompile(`(?m)^\s*` + h + ` -> \S+ \(benchmark login as [^)]+\): ok: logged in$`).MatchString(chk.stdout) {
			t.Errorf("check does not prove the benchmark login from %s:\n%s", h, chk.stdout)
		}
	}
	// auto_inc on: the server picks the ids, so the two clients can never
	// insert the same random id (with client-side random ids they could,
	// rarely: see bench.ClientWorkloads). Three threads: 2 + 1.
	runArgs := []string{"--workload", "pure-random-writes", "--time", "6", "--tables", "2", "--table-size", "100", "--threads", "3", "--set", "auto_inc=true"}
	r := l.mustOK(t, append([]string{"run", "-i", inv, "--no-up", "--runs", filepath.Join(dir, "runs")}, runArgs...)...)
	rd := runDir(t, r)

	// Both clients ran, each with its own command line and raw output; the
	// dataset was prepared once, from the first load box.
	cmds := string(mustRead(t, filepath.Join(rd, "benchmark", "commands.txt")))
	for _, want := range []string{"# run on loadbox\n", "# run on loadbox2\n"} {
		if strings.Count(cmds, want) != 1 {
			t.Errorf("commands.txt has %d %q lines, want 1:\n%s", strings.Count(cmds, want), want, cmds)
		}
	}
	if strings.Contains(cmds, "# prepare on loadbox2") {
		t.Errorf("the second load box prepared too:\n%s", cmds)
	}
	if _, err := os.Stat(filepath.Join(rd, "benchmark", "run.txt")); err == nil {
		t.Error("benchmark/run.txt written: no single client's output is the run's")
	}
	a := readClientOutput(t, filepath.Join(rd, "benchmark", "run.loadbox.txt"))
	b := readClientOutput(t, filepath.Join(rd, "benchmark", "run.loadbox2.txt"))
	if a.threads != 2 || b.threads != 1 {
		t.Errorf("threads %d + %d, want 3 split 2 + 1", a.threads, b.threads)
	}
	// Each load box was watched like the single one is.
	for _, h := range []string{"loadbox", "loadbox2"} {
		if _, err := os.Stat(filepath.Join(rd, "timeseries", h+"-os.csv")); err != nil {
			t.Errorf("load box %s not monitored: %v", h, err)
		}
	}

	var res struct {
		Benchmark struct {
			TPS       float64            `json:"tps"`
			Threads   int                `json:"threads"`
			LatencyMS map[string]float64 `json:"latency_ms"`
			From      string             `json:"percentile_from"`
			IntervalS int64              `json:"interval_s"`
			Intervals []struct {
				T        int64   `json:"t"`
				TPS      float64 `json:"tps"`
				Clients  int     `json:"clients"`
				Complete bool    `json:"complete"`
			} `json:"intervals"`
			Clients []struct {
				Name     string  `json:"name"`
				OffsetMS float64 `json:"offset_ms"`
				Result   struct {
					TPS float64 `json:"tps"`
				} `json:"result"`
			} `json:"clients"`
		} `json:"benchmark"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(rd, "results.json")), &res); err != nil {
		t.Fatal(err)
	}
	m := res.Benchmark
	if len(m.Clients) != 2 || m.Clients[0].Name != "loadbox" || m.Clients[1].Name != "loadbox2" || m.Threads != 3 {
		t.Fatalf("results.json: clients %+v, threads %d", m.Clients, m.Threads)
	}
	if d := m.TPS - (m.Clients[0].Result.TPS + m.Clients[1].Result.TPS); math.Abs(d) > 0.01 {
		t.Errorf("merged tps %.2f, clients %.2f + %.2f", m.TPS, m.Clients[0].Result.TPS, m.Clients[1].Result.TPS)
	}

	// Throughput per interval: each client's line for T seconds ended at
	// its start + T; put it in the slot of the nearest multiple of the
	// interval from the earliest start, and add up. Alignment by time, not
	// by line number: a client that started later lands in later slots.
	if m.IntervalS != 1 {
		t.Fatalf("interval %d s, want the workload's 1 s", m.IntervalS)
	}
	want := map[int64]float64{}
	for i, c := range []clientOutput{a, b} {
		for sec, tps := range c.intervals {
			slot := int64(math.Round(m.Clients[i].OffsetMS/1000 + float64(sec)))
			want[slot] += tps
		}
	}
	if len(m.Intervals) != len(want) {
		t.Errorf("%d merged intervals, %d slots from the clients' lines", len(m.Intervals), len(want))
	}
	complete := 0
	for _, iv := range m.Intervals {
		if math.Abs(iv.TPS-want[iv.T]) > 0.001 {
			t.Errorf("merged tps at %ds %.2f, clients' sum %.2f", iv.T, iv.TPS, want[iv.T])
		}
		if iv.Complete {
			complete++
		}
	}
	if complete < 4 {
		t.Errorf("only %d of %d slots had both clients: they did not run together", complete, len(m.Intervals))
	}

	// The merged p95, recomputed here from the two histograms: add the
	// counts bucket by bucket, then take the first bucket at which the
	// cumulative count reaches floor(total*0.95 + 0.5), sysbench's rule.
	// It is a percentile of all the run's events, which is NOT the mean of
	// the clients' p95 (that is a percentile of nothing).
	counts := map[string]int64{}
	var total int64
	for _, c := range []clientOutput{a, b} {
		for v, n := range c.histogram {
			counts[v] += n
			total += n
		}
	}
	values := make([]string, 0, len(counts))
	for v := range counts {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool {
		x, _ := strconv.ParseFloat(values[i], 64)
		y, _ := strconv.ParseFloat(values[j], 64)
		return x < y
	})
	rank, cum, p95 := int64(math.Floor(float64(total)*0.95+0.5)), int64(0), 0.0
	for _, v := range values {
		if cum += counts[v]; cum >= rank {
			p95, _ = strconv.ParseFloat(v, 64)
			break
		}
	}
	if got := m.LatencyMS["p95"]; got != p95 || m.From != "merged histogram" {
		t.Errorf("merged p95 %v (%s), recomputed from the merged histogram %v", got, m.From, p95)
	}
	mean := (a.p95 + b.p95) / 2
	if a.p95 != b.p95 && p95 != mean && m.LatencyMS["p95"] == mean {
		t.Errorf("merged p95 %v is the mean of the clients' %v and %v", m.LatencyMS["p95"], a.p95, b.p95)
	}
	t.Logf("clients %d+%d threads, %.2f + %.2f tps, p95 %.2f and %.2f ms (mean %.3f); merged %.2f tps, p95 %.3f ms from %d buckets (%d events); %d slots, %d complete",
		a.threads, b.threads, m.Clients[0].Result.TPS, m.Clients[1].Result.TPS, a.p95, b.p95, mean, m.TPS, m.LatencyMS["p95"], len(counts), total, len(m.Intervals), complete)

	// Every load box's private working directory is gone after the run.
	var man struct {
		Remote        struct{ Removed bool }   `json:"remote"`
		ClientRemotes []struct{ Removed bool } `json:"client_remotes"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(rd, "manifest.json")), &man); err != nil {
		t.Fatal(err)
	}
	if !man.Remote.Removed || len(man.ClientRemotes) != 1 || !man.ClientRemotes[0].Removed {
		t.Errorf("working directories not removed: %+v", man)
	}
	// The report reads the merged result, and "Where the time went" keeps
	// a row (and a client-bound flag) per load box.
	rep := l.mustOK(t, "report", rd, "--warmup", "1")
	// One load, counted twice: the clients' transactions and the
	// master's commits over the same window agree. The window once
	// opened at the clients' launch, seconds before their release, and
	// read the master at a quarter of the clients' rate (267% apart); a
	// flag of a few percent is the lab's timing, logged.
	for _, m := range regexp.MustCompile(` tx/s in the window \(([0-9.]+)% apart`).FindAllStringSubmatch(rep.stdout, -1) {
		if gap, _ := strconv.ParseFloat(m[1], 64); gap > 10 {
			t.Errorf("the clients' rate and the master's commits are %s%% apart over the window:\n%s", m[1], rep.stdout)
		} else {
			t.Logf("flagged: %s%% apart", m[1])
		}
	}
	for _, ev := range strings.Split(string(mustRead(t, filepath.Join(rd, "events.jsonl"))), "\n") {
		if strings.Contains(ev, `"kind":"stall"`) {
			t.Errorf("a stall in a run that had none: %s", ev)
		}
	}
	why := whySection(t, string(mustRead(t, filepath.Join(rd, "report.md"))))
	boxes := map[string]bool{}
	for _, row := range mdTableAfter(t, why, "#### Utilisation and saturation (USE)") {
		if row[2] == "loadbox" {
			boxes[row[1]] = true
		}
	}
	if !boxes["loadbox"] || !boxes["loadbox2"] {
		t.Errorf("USE table load box rows %v, want loadbox and loadbox2:\n%s", boxes, why)
	}

	own := &lab{inventory: inv, bin: l.bin} // this lab's passwords, not the shared lab's
	own.assertNoPasswords(t, rd)

	crashThenCollect(t, l, dir, inv, runArgs)
}

// crashThenCollect kills orch (SIGKILL) once both clients are launched:
// they run on, detached, and `orch collect` waits for both, then merges
// their outputs and removes both working directories.
func crashThenCollect(t *testing.T, l *lab, dir, inv string, runArgs []string) {
	runs := filepath.Join(dir, "crash")
	cmd := exec.Command(l.bin, append([]string{"run", "-i", inv, "--no-up", "--runs", runs}, runArgs...)...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	type remote struct {
		PID     int  `json:"pid"`
		Removed bool `json:"removed"`
	}
	var man struct {
		Status        string   `json:"status"`
		Remote        remote   `json:"remote"`
		ClientRemotes []remote `json:"client_remotes"`
	}
	readMan := func(rd string) {
		man.ClientRemotes = nil
		if b, err := os.ReadFile(filepath.Join(rd, "manifest.json")); err == nil {
			json.Unmarshal(b, &man)
		}
	}
	var rd string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		rd, _ = filepath.EvalSymlinks(filepath.Join(runs, "latest"))
		if rd != "" {
			if readMan(rd); man.Remote.PID > 0 && len(man.ClientRemotes) == 1 && man.ClientRemotes[0].PID > 0 {
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the clients were never launched:\n%s", out.String())
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	t.Logf("orch killed once both clients ran:\n%s", out.String())
	for i := 0; ; i++ {
		r := l.mustOK(t, "collect", "-i", inv, rd)
		if !strings.Contains(r.stdout, "still running") {
			break
		}
		if i == 60 {
			t.Fatalf("the benchmark still runs after 2 minutes:\n%s", r.stdout)
		}
		time.Sleep(2 * time.Second)
	}
	readMan(rd)
	var res struct {
		Benchmark struct {
			Complete  bool   `json:"complete"`
			From      string `json:"percentile_from"`
			Intervals []struct {
				Complete bool `json:"complete"`
			} `json:"intervals"`
			Clients []struct{ Name string } `json:"clients"`
		} `json:"benchmark"`
	}
	if err := json.Unmarshal(mustRead(t, filepath.Join(rd, "results.json")), &res); err != nil {
		t.Fatal(err)
	}
	both := 0
	for _, iv := range res.Benchmark.Intervals {
		if iv.Complete {
			both++
		}
	}
	if b := res.Benchmark; !b.Complete || len(b.Clients) != 2 || b.From != "merged histogram" || both < 4 {
		t.Errorf("collected result: complete %v, %d clients, percentile from %q, %d slots with both", b.Complete, len(b.Clients), b.From, both)
	}
	if man.Status != "interrupted" || !man.Remote.Removed || len(man.ClientRemotes) != 1 || !man.ClientRemotes[0].Removed {
		t.Errorf("after collect: %+v", man)
	}
}

// TestStoppingRuleTwoLoadBoxes: the stopping rule (issue 20) when every
// cell's client runs on two load boxes at once: each round is judged on
// the merged rates, exactly 3 rounds here, and every cell's benchmark
// came from both load boxes.
func TestStoppingRuleTwoLoadBoxes(t *testing.T) {
	l, dir, inv := loadBoxesLab(t)
	runs := filepath.Join(dir, "matrix")
	r := l.mustOK(t, "matrix", "-i", inv, "--engines=innodb", "--knobs=sync_binlog=0,1",
		"--precision", "25%", "--min-repeat", "3", "--max-repeat", "3", "--runs", runs,
		"--workload", "pure-random-writes", "--time", "4", "--tables", "2", "--table-size", "100", "--threads", "4", "--warmup", "1", "--set", "auto_inc=true")
	mdir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	checkRuleEnds(t, mdir, r, 3, "25%", "innodb sync_binlog=1/innodb sync_binlog=0")
	cells, err := filepath.Glob(filepath.Join(mdir, "cells", "*", "benchmark", "commands.txt"))
	if err != nil || len(cells) != 6 {
		t.Fatalf("%d cells with a benchmark (%v), want 6", len(cells), err)
	}
	for _, c := range cells {
		cmds := string(mustRead(t, c))
		if !strings.Contains(cmds, "# run on loadbox\n") || !strings.Contains(cmds, "# run on loadbox2\n") {
			t.Errorf("%s: not run from both load boxes:\n%s", c, cmds)
		}
	}
}
