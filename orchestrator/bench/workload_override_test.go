package bench

import (
	"slices"
	"strings"
	"testing"
)

func TestOverrideShortensARun(t *testing.T) {
	w, err := LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	err = w.Override(map[string]string{
		"threads": "4", "time": "5", "tables": "2", "table-size": "1000",
		"events": "0", "engine": "rocksdb", "report_interval": "2", "Database": "sb2",
	})
	if err != nil {
		t.Fatal(err)
	}
	s := mustStep(t, w, PhaseRun, labTarget)
	want := "sysbench oltp_insert --db-driver=mysql --mysql-host=10.0.0.1 --mysql-port=3306 --mysql-user=orch --mysql-db=sb2 --tables=2 --table-size=1000 --auto_inc=off --threads=4 --time=5 --events=0 --report-interval=2 --percentile=95 run"
	if got := strings.Join(s.Argv, " "); got != want {
		t.Errorf("argv:\n got %s\nwant %s", got, want)
	}
	d, _ := NewDriver(w)
	spec, _ := d.Dataset()
	if spec.Engine != "rocksdb" || len(spec.Tables) != 2 || spec.Database != "sb2" {
		t.Errorf("dataset after overrides: %+v", spec)
	}
}

func TestOverrideMysqlslap(t *testing.T) {
	w, err := LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Override(map[string]string{"concurrency": "4,8", "iterations": "2", "queries": "200", "write_number": "10", "binary": "/opt/my sql/bin/mysqlslap"}); err != nil {
		t.Fatal(err)
	}
	o := w.Options
	if !slices.Equal(o.Concurrency, IntList{4, 8}) || *o.Iterations != 2 || *o.NumberOfQueries != 200 || *o.WriteNumber != 10 || w.Binary != "/opt/my sql/bin/mysqlslap" {
		t.Errorf("options %+v binary %q", o, w.Binary)
	}
	// A named binary means no run-time choice.
	if s := mustStep(t, w, PhaseRun, labTarget); s.Argv[0] != w.Binary || s.Fallbacks != nil {
		t.Errorf("step %q %v", s.Argv[0], s.Fallbacks)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{"thread": "4"}, `workload pure-random-writes: override thread=4: unknown setting "thread" (for tool sysbench: tables, table_size, threads, time_s, events, report_interval_s, auto_inc, percentile, histogram, engine; and binary, workdir, database)`},
		{map[string]string{"tool": "custom"}, `unknown setting "tool"`},
		{map[string]string{"threads": "four"}, `workload pure-random-writes: override threads=four: expected an integer`},
		{map[string]string{"threads": "1.5"}, `override threads=1.5: expected an integer`},
		{map[string]string{"threads": ""}, `override threads=: expected an integer`},
		{map[string]string{"histogram": "maybe"}, `override histogram=maybe: expected true or false`},
		{map[string]string{"threads": "[1]"}, `override threads=[1]: expected an integer`},
		// Range and applicability checks name the file but no position:
		// the value did not come from it.
		{map[string]string{"threads": "0"}, `workload pure-random-writes: after overrides: playbooks/workloads/pure-random-writes.yaml: options.threads: 0 is below the minimum 1`},
		{map[string]string{"iterations": "3"}, `after overrides: playbooks/workloads/pure-random-writes.yaml: options.iterations: does not apply to tool sysbench`},
		{map[string]string{"concurrency": "8"}, `options.concurrency: does not apply to tool sysbench`},
		{map[string]string{"engine": "x y"}, `options.engine: "x y" is not an engine name`},
		{map[string]string{"percentile": "0", "histogram": "on"}, `pure-random-writes.yaml: options.histogram: sysbench cannot print a histogram with percentile 0`},
		{map[string]string{"binary": "-x"}, `pure-random-writes.yaml: binary: "-x" cannot start with '-'`},
	}
	for _, tc := range tests {
		w, err := LoadWorkload("pure-random-writes")
		if err != nil {
			t.Fatal(err)
		}
		before := *w
		err = w.Override(tc.set)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v:\n got %v\nwant …%s…", tc.set, err, tc.want)
		}
		// A failed override leaves the workload as it was.
		if *w.Options.Threads != 128 || w.Options.Percentile != before.Options.Percentile || w.Binary != "sysbench" || w.Options.Engine != "" {
			t.Errorf("%v: workload changed by a failed override: %+v", tc.set, w.Options)
		}
		if _, ok := w.pos["options.threads"]; !ok {
			t.Errorf("%v: positions changed by a failed override", tc.set)
		}
	}
	// A mysqlslap workload refuses sysbench's knobs, and vice versa.
	m, _ := LoadWorkload("mysqlslap-write")
	if err := m.Override(map[string]string{"time": "10"}); err == nil || !strings.Contains(err.Error(), "options.time_s: does not apply to tool mysqlslap") {
		t.Errorf("time on mysqlslap: %v", err)
	}
}

func TestOverrideKeepsSharedStateApart(t *testing.T) {
	a, _ := LoadWorkload("pure-random-writes")
	b := *a
	if err := a.Override(map[string]string{"threads": "2"}); err != nil {
		t.Fatal(err)
	}
	if *b.Options.Threads != 128 {
		t.Errorf("override wrote through a shared pointer: %d", *b.Options.Threads)
	}
}
