package integration

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// tailRun is what TestStacksInTheTail reads of a run directory.
type tailRun struct {
	Benchmark struct {
		Intervals []struct {
			T   float64 `json:"t"`
			TPS float64 `json:"tps"`
		} `json:"intervals"`
	} `json:"benchmark"`
	Instruments *struct {
		Monitors bool   `json:"monitors"`
		Stacks   string `json:"stacks"`
		StacksIn string `json:"stacks_in"`
	} `json:"instruments"`
	Monitor struct {
		Stacks []struct {
			Host       string   `json:"host"`
			Mode       string   `json:"mode"`
			Samples    int      `json:"samples"`
			MaxPauseMs *float64 `json:"max_pause_ms"`
		} `json:"stacks"`
	} `json:"monitor"`
}

type tailEvent struct {
	T    time.Time `json:"t"`
	Host string    `json:"host"`
	Kind string    `json:"kind"`
}

// TestStacksInTheTail: the servers' stacks are taken after the measured
// load, in the profiling tail, whatever the sampler. With the default
// (perf, which works on the lab) and with --stacks=gdb, a 10 s run has:
// events in the order load_start < load_end < profile_start <
// stacks_start/stacks_end of the master and a slave < profile_end; no
// second of the measured load below 20% of the run's median rate (the
// gdb sampler used to stop the server there: 0 tps seconds); results.json
// saying what watched it; and, for gdb, the measured stop of the server.
func TestStacksInTheTail(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	for _, mode := range []string{"auto", "gdb"} {
		name := mode
		if mode == "auto" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			runs := t.TempDir()
			args := []string{"run", "-i", l.inventory, "--no-up", "--workload", "pure-random-writes", "--tables", "2", "--threads", "4",
				"--time", "10", "--table-size", "10000", "--runs", runs}
			args = append(args, "--stacks", mode)
			l.mustOK(t, args...)
			dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
			var res tailRun
			if err := json.Unmarshal(mustRead(t, filepath.Join(dir, "results.json")), &res); err != nil {
				t.Fatal(err)
			}
			want := mode
			if mode == "auto" {
				want = "perf" // perf works on the lab
			}
			if in := res.Instruments; in == nil || !in.Monitors || in.Stacks != want || in.StacksIn != "tail" {
				t.Errorf("instruments %+v, want monitors, %s stacks in the tail", in, want)
			}
			checkNoDip(t, res)
			checkTailOrder(t, dir)
			hosts := map[string]bool{}
			for _, p := range res.Monitor.Stacks {
				hosts[p.Host] = true
				if p.Mode != want || p.Samples == 0 {
					t.Errorf("%s: %d %s stacks, want %s ones", p.Host, p.Samples, p.Mode, want)
				}
				if stops := p.MaxPauseMs != nil; stops != (want == "gdb") {
					t.Errorf("%s: %s stacks with a server stop %v", p.Host, p.Mode, p.MaxPauseMs)
				} else if stops && *p.MaxPauseMs <= 0 {
					t.Errorf("%s: a gdb stop of %v ms", p.Host, *p.MaxPauseMs)
				}
			}
			if !hosts["master"] || len(hosts) != 2 {
				t.Errorf("stacks of %v, want the master and a slave", hosts)
			}
		})
	}
}

// checkNoDip fails when a second of the measured load ran below 20% of
// the run's median rate.
func checkNoDip(t *testing.T, res tailRun) {
	t.Helper()
	var tps []float64
	for _, iv := range res.Benchmark.Intervals {
		tps = append(tps, iv.TPS)
	}
	if len(tps) < 8 {
		t.Fatalf("%d one-second intervals in a 10 s run", len(tps))
	}
	sorted := slices.Clone(tps)
	slices.Sort(sorted)
	median := sorted[len(sorted)/2]
	for i, v := range tps {
		if v < 0.2*median {
			t.Errorf("second %d: %.0f tps, below 20%% of the median %.0f: something stopped the server inside the measured load", i+1, v, median)
		}
	}
}

// checkTailOrder reads events.jsonl: load_start < load_end < profile_start
// < every stacks_start/stacks_end < profile_end.
func checkTailOrder(t *testing.T, dir string) {
	t.Helper()
	at := map[string]time.Time{}
	var stacksAt []time.Time
	for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, filepath.Join(dir, "events.jsonl")))), "\n") {
		var e tailEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events.jsonl: %q: %v", line, err)
		}
		switch e.Kind {
		case "load_start", "load_end", "profile_start", "profile_end":
			if _, dup := at[e.Kind]; dup {
				t.Errorf("two %s events", e.Kind)
			}
			at[e.Kind] = e.T
		case "stacks_start", "stacks_end":
			stacksAt = append(stacksAt, e.T)
		case "stacks_error":
			t.Errorf("stacks_error on %s: %s", e.Host, line)
		}
	}
	order := []string{"load_start", "load_end", "profile_start"}
	for i, k := range order {
		if at[k].IsZero() {
			t.Fatalf("no %s event", k)
		}
		if i > 0 && !at[order[i-1]].Before(at[k]) {
			t.Errorf("%s at %s, not after %s at %s", k, at[k], order[i-1], at[order[i-1]])
		}
	}
	if len(stacksAt) != 4 {
		t.Errorf("%d stacks_start/stacks_end events, want one pair per host (master, slave)", len(stacksAt))
	}
	for _, s := range stacksAt {
		if !s.After(at["profile_start"]) || !s.Before(at["profile_end"]) {
			t.Errorf("stack sampling at %s, outside the profiling tail [%s, %s]", s, at["profile_start"], at["profile_end"])
		}
	}
}

// TestStacksTailInterrupted: a Ctrl-C in the profiling tail stops the
// tail's client and exits 130, but the run itself is complete: its
// status is ok, results.json has the whole benchmark and its catch-up, and
// no client is left running on the load box.
func TestStacksTailInterrupted(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	runs := t.TempDir()
	// 3 s after the tail starts: inside its sampling.
	code, out := l.interruptAt(t, func(line string) bool { return strings.Contains(line, ": profiling tail: ") }, 3*time.Second, 0,
		"run", "-i", l.inventory, "--no-up", "--workload", "pure-random-writes", "--tables", "2",
		"--threads", "4", "--time", "10", "--table-size", "10000", "--stacks", "gdb", "--runs", runs)
	if code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	if !strings.Contains(out, "interrupted in the profiling tail: the run itself is complete") {
		t.Errorf("orch did not say the run is complete")
	}
	dir, _ := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if st := readJSON(t, filepath.Join(dir, "manifest.json"))["status"]; st != "ok" {
		t.Errorf("manifest status %v, want ok", st)
	}
	res := readJSON(t, filepath.Join(dir, "results.json"))
	bench, _ := res["benchmark"].(map[string]any)
	if bench["complete"] != true || res["catch_up"] == nil {
		t.Errorf("results.json lost the run: complete %v, catch_up %v", bench["complete"], res["catch_up"])
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(dir, "events.jsonl"))), `"kind":"profile_end","detail":"`) {
		t.Errorf("no profile_end event")
	}
	r := l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "pgrep -a sysbench || true")
	if strings.Contains(r.stdout, "sysbench") {
		t.Errorf("a client still runs on the load box after the interrupted tail:\n%s", r.stdout)
	}
	// The gdb snapshot under way when orch was interrupted finishes on its
	// own (it attaches, prints every thread's stack and detaches): on a
	// busy machine that held a slave's server for over 15 s, and the next
	// test found it not answering. It must end, and the servers answer,
	// within a minute.
	deadline := time.Now().Add(time.Minute)
	for {
		r := l.orch(t, "exec", "-i", l.inventory, "--role", "db", "--", "pgrep -a -x gdb || echo answers=$(mariadb --connect-timeout=2 -N -e 'SELECT 1')")
		if r.code == 0 && !strings.Contains(r.stdout, "gdb") && strings.Count(r.stdout, "answers=1") == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the interrupted tail, gdb still runs or a server does not answer:\n%s%s", r.stdout, r.stderr)
		}
		time.Sleep(2 * time.Second)
	}
}
