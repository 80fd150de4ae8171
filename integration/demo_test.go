package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// demoMatrix reads `make demo`'s matrix command from the Makefile, so the
// test runs what the demo runs: its arguments after "orch", the lab
// inventory for $(LAB_INV), and its --options by name.
func demoMatrix(t *testing.T, inventory string) (args []string, opt map[string]string) {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join("..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(mk), "\\\n", " ")
	var line string
	inDemo := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "demo:"):
			inDemo = true
		case inDemo && !strings.HasPrefix(l, "\t"):
			inDemo = false
		case inDemo && strings.Contains(l, "$(BIN) matrix "):
			line = l
		}
	}
	if line == "" {
		t.Fatal("Makefile: no orch matrix command under demo:")
	}
	fields := strings.Fields(line)
	args = fields[slices.Index(fields, "matrix"):]
	opt = map[string]string{}
	for i, a := range args {
		if a == "$(LAB_INV)" {
			args[i] = inventory
		}
		if name, ok := strings.CutPrefix(a, "--"); ok {
			if k, v, eq := strings.Cut(name, "="); eq {
				opt[k] = v
			} else if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				opt[k] = args[i+1]
			}
		}
	}
	for _, k := range []string{"tables", "threads", "time", "table-size", "warmup"} {
		if opt[k] == "" {
			t.Fatalf("Makefile's demo matrix names no --%s: %q", k, line)
		}
	}
	return args, opt
}

// checkDemoRun holds one run of the demo (its results.csv row) to what
// orch's instruments must leave alone and what its figures must satisfy:
// no second of the steady window below 20% of the run's median rate (a
// server stopped by gdb or anything orch runs), sustained <= steady, no
// invariant flagged but the client/master gap and a last interval line
// the client did not print, stacks (if any) in the tail after the load.
// It reports whether the run took stacks: the default takes them in a
// configuration's first run.
func checkDemoRun(t *testing.T, dir string, row map[string]string, steady float64) (stacks bool) {
	t.Helper()
	cell := filepath.Join(dir, "cells", row["run"])
	var res tailRun
	if err := json.Unmarshal(mustRead(t, filepath.Join(cell, "results.json")), &res); err != nil {
		t.Fatal(err)
	}
	from, err1 := strconv.ParseFloat(row["window_from_s"], 64)
	to, err2 := strconv.ParseFloat(row["window_to_s"], 64)
	if err1 != nil || err2 != nil || !(to > from) {
		t.Fatalf("cell %s: window %q-%q", row["run"], row["window_from_s"], row["window_to_s"])
	}
	var in []float64
	for _, iv := range res.Benchmark.Intervals {
		if iv.T > from && iv.T <= to {
			in = append(in, iv.TPS)
		}
	}
	if len(in) < int(to-from)-1 {
		t.Fatalf("cell %s: %d intervals in the %v-%v s window", row["run"], len(in), from, to)
	}
	sorted := slices.Sorted(slices.Values(in))
	median := sorted[len(sorted)/2]
	for i, v := range in {
		if v < 0.2*median {
			t.Errorf("cell %s: second %d of the window: %.0f tps, below 20%% of the median %.0f", row["run"], i+1, v, median)
		}
	}
	if sus, err := strconv.ParseFloat(row["sustained_metric"], 64); err != nil || sus > steady*1.005 {
		t.Errorf("cell %s: sustained %q above steady %v", row["run"], row["sustained_metric"], steady)
	}
	// Flags orch's instruments cannot cause are logged: the client's
	// rate against the master's. sysbench leaving out its last interval
	// line (its last report and the end of --time fall on the same
	// instant) is no gap and no flag; a gap inside the series is.
	for _, f := range strings.Split(row["flags"], "; ") {
		if strings.HasPrefix(f, "client ") {
			t.Logf("cell %s: flagged: %s", row["run"], f)
		} else if f != "" {
			t.Errorf("cell %s: invariant violated: %s", row["run"], f)
		}
	}
	inst := res.Instruments
	switch {
	case inst == nil || !inst.Monitors:
		t.Errorf("cell %s: instruments %+v, want the monitors on", row["run"], inst)
	case inst.Stacks != "off" && inst.Stacks != "" && inst.StacksIn != "tail":
		t.Errorf("cell %s: stacks %s sampled in %q, want the tail after the load", row["run"], inst.Stacks, inst.StacksIn)
	}
	return inst != nil && inst.StacksIn == "tail"
}
