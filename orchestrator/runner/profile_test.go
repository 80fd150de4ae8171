package runner

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
)

// The tail runs the run's own sysbench workload, bounded by time only,
// duplicate keys ignored; the run's workload is left as it was. mysqlslap
// (a query count) and custom programs carry no tail, and say why.
func TestTailWorkload(t *testing.T) {
	w, err := bench.LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	events, secs := 5000, 30
	w.Options.Events, w.Options.TimeS = &events, &secs
	tw, why := tailWorkload(w, 6500*time.Millisecond)
	if why != "" || tw == nil {
		t.Fatalf("no tail: %s", why)
	}
	if *tw.Options.TimeS != 7 || tw.Options.Events != nil || !slices.Contains(tw.ExtraArgs, "--mysql-ignore-errors=1213,1020,1205,1062") {
		t.Errorf("tail workload: time %d, events %v, args %v", *tw.Options.TimeS, tw.Options.Events, tw.ExtraArgs)
	}
	if *w.Options.TimeS != 30 || *w.Options.Events != 5000 || len(w.ExtraArgs) != 0 {
		t.Errorf("the run's workload changed: time %d, events %v, args %v", *w.Options.TimeS, w.Options.Events, w.ExtraArgs)
	}
	w.ExtraArgs = []string{"--mysql-ignore-errors=all"}
	if tw, _ := tailWorkload(w, time.Second); len(tw.ExtraArgs) != 1 {
		t.Errorf("the workload's own error list was overridden: %v", tw.ExtraArgs)
	}
	d, err := bench.NewDriver(tw)
	if err != nil {
		t.Fatal(err)
	}
	step, err := d.Step(bench.PhaseRun, bench.Target{Host: "10.0.0.1"})
	if err != nil || !strings.Contains(step.String(), "--time=7 ") {
		t.Errorf("tail step %q: %v", step.String(), err)
	}
	slap, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	if tw, why := tailWorkload(slap, time.Second); tw != nil || !strings.Contains(why, "query count") {
		t.Errorf("mysqlslap: %v, %q", tw, why)
	}
}
