package bench

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestSplitThreads(t *testing.T) {
	for _, c := range []struct {
		total, n int
		want     []int
	}{
		{128, 2, []int{64, 64}},
		{7, 3, []int{3, 2, 2}},
		{5, 2, []int{3, 2}},
		{2, 2, []int{1, 1}},
		{9, 1, []int{9}},
	} {
		got, err := SplitThreads(c.total, c.n)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitThreads(%d, %d) = %v, %v; want %v", c.total, c.n, got, err, c.want)
		}
	}
	if _, err := SplitThreads(1, 2); err == nil || !strings.Contains(err.Error(), "1 thread(s) cannot be split over 2 load boxes") {
		t.Errorf("1 thread over 2 boxes: %v", err)
	}
}

// The sysbench command lines the clients get: the threads add up to the
// workload's, each has the histogram and a seed of its own, everything else
// (tables, time, test) is the workload's.
func TestClientWorkloadsCommandLines(t *testing.T) {
	w, err := LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Override(map[string]string{"threads": "5", "time": "30", "tables": "4"}); err != nil {
		t.Fatal(err)
	}
	ws, err := ClientWorkloads(w, 2, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var argvs [][]string
	for _, c := range ws {
		d, err := NewDriver(c)
		if err != nil {
			t.Fatal(err)
		}
		s, err := d.Step(PhaseRun, Target{Host: "10.0.0.1"})
		if err != nil {
			t.Fatal(err)
		}
		argvs = append(argvs, s.Argv)
	}
	for i, want := range [][]string{
		{"--threads=3", "--rand-seed=1001"},
		{"--threads=2", "--rand-seed=1002"},
	} {
		for _, arg := range append(want, "--tables=4", "--time=30", "--histogram=on", "oltp_insert", "run") {
			if !slices.Contains(argvs[i], arg) {
				t.Errorf("client %d: %q missing from %q", i+1, arg, argvs[i])
			}
		}
	}
	if *w.Options.Threads != 5 || len(w.ExtraArgs) != 0 {
		t.Errorf("the workload itself changed: threads %d, extra %q", *w.Options.Threads, w.ExtraArgs)
	}
	// One load box: the workload as it is.
	if one, err := ClientWorkloads(w, 1, 1000); err != nil || one[0] != w {
		t.Errorf("one load box: %v, %v", one, err)
	}
}

func TestClientWorkloadsRefusals(t *testing.T) {
	slap, err := LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ClientWorkloads(slap, 2, 1); err == nil || !strings.Contains(err.Error(), "need a sysbench 1.x workload") {
		t.Errorf("mysqlslap over two boxes: %v", err)
	}
	w, _ := LoadWorkload("pure-random-writes")
	if err := w.Override(map[string]string{"events": "1000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ClientWorkloads(w, 2, 1); err == nil || !strings.Contains(err.Error(), "must stop together") {
		t.Errorf("events over two boxes: %v", err)
	}
	w, _ = LoadWorkload("pure-random-writes")
	w.Override(map[string]string{"threads": "1"})
	if _, err := ClientWorkloads(w, 2, 1); err == nil || !strings.Contains(err.Error(), "cannot be split") {
		t.Errorf("1 thread over two boxes: %v", err)
	}
	w, _ = LoadWorkload("pure-random-writes")
	w.ExtraArgs = []string{"--rand-seed=7"}
	ws, err := ClientWorkloads(w, 2, 1)
	if err != nil || !reflect.DeepEqual(ws[1].ExtraArgs, []string{"--rand-seed=7"}) {
		t.Errorf("the workload's own seed: %v, %v", ws, err)
	}
}
