package bench

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestCustomStep(t *testing.T) {
	// Any program whose output one of orch's parsers reads.
	w := mustWorkload(t, `{name: db-insert, tool: custom, binary: /usr/local/tokudb/examples/db-insert, workdir: /var/tmp, run_on: master, parser: db-insert, extra_args: ["4"]}`)
	if w.RunOn != "master" || w.Parser != "db-insert" || len(w.Phases()) != 1 {
		t.Errorf("db-insert workload: run_on %s parser %s phases %v", w.RunOn, w.Parser, w.Phases())
	}
	if err := w.Override(map[string]string{"binary": "/opt/toku/db-insert", "workdir": "/data/bench"}); err != nil {
		t.Fatal(err)
	}
	s := mustStep(t, w, PhaseRun, labTarget)
	if got := strings.Join(s.Argv, " "); got != "/opt/toku/db-insert 4" {
		t.Errorf("argv %q", got)
	}
	wantEnv := map[string]string{"ORCH_MYSQL_HOST": "10.0.0.1", "ORCH_MYSQL_PORT": "3306", "ORCH_MYSQL_USER": "orch"}
	if len(s.Env) != len(wantEnv) {
		t.Errorf("env %v, want %v", s.Env, wantEnv)
	}
	for k, v := range wantEnv {
		if s.Env[k] != v {
			t.Errorf("env %s=%q, want %q", k, s.Env[k], v)
		}
	}
	if s.Dir != "/data/bench" || s.Name != "db-insert db-insert" || s.SecretEnv["MYSQL_PWD"] != "pw" {
		t.Errorf("step %+v", s)
	}
	if want := "cd /data/bench || exit\nexec /opt/toku/db-insert 4\n"; s.Script() != want {
		t.Errorf("script %q, want %q", s.Script(), want)
	}
	d, _ := NewDriver(w)
	for _, p := range []Phase{PhasePrepare, PhaseCleanup} {
		if _, err := d.Step(p, labTarget); err == nil {
			t.Errorf("custom %s step built", p)
		}
	}
	if _, ok := d.Dataset(); ok {
		t.Error("custom claims a dataset")
	}
}

func TestCustomEnvAndDatabase(t *testing.T) {
	w := mustWorkload(t, `{tool: custom, binary: run.sh, parser: mysqlslap, database: bench, env: {MODE: fast}, extra_args: [-c, "4"]}`)
	s := mustStep(t, w, PhaseRun, Target{Host: "db"})
	if s.Env["ORCH_MYSQL_DATABASE"] != "bench" || s.Env["ORCH_MYSQL_HOST"] != "db" || s.Env["MODE"] != "fast" || len(s.Env) != 3 {
		t.Errorf("env %v", s.Env)
	}
	if strings.Join(s.Argv, " ") != "run.sh -c 4" || s.SecretEnv != nil {
		t.Errorf("argv %q secret %v", s.Argv, s.SecretEnv)
	}
}

func TestCustomParsers(t *testing.T) {
	tests := []struct {
		parser, file string
		check        func(Result) bool
	}{
		{"db-insert", "testdata/db-insert-run.txt", func(r Result) bool {
			d, ok := r.(*DBInsert)
			return ok && d.Complete && d.Insertions == 4194304 && len(d.Batches) == 2
		}},
		{"sysbench", "testdata/sysbench-0.5-insert-run.txt", func(r Result) bool {
			s, ok := r.(*Sysbench)
			return ok && s.Version == "0.5" && s.Threads == 64
		}},
		{"mariadb-slap", "testdata/mariadb-slap-write-innodb.txt", func(r Result) bool {
			m, ok := r.(Mysqlslap)
			return ok && len(m) == 1 && m[0].QueriesPerClient == 400
		}},
	}
	for _, tc := range tests {
		d, _ := NewDriver(mustWorkload(t, `{tool: custom, binary: prog, parser: `+tc.parser+`}`))
		f, err := os.Open(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		res, err := d.Parse("run.out", f)
		f.Close()
		if err != nil || !tc.check(res) {
			t.Errorf("parser %s: %+v %v", tc.parser, res, err)
		}
	}
	// A db-insert run cut short is reported as incomplete, with its batches.
	d, _ := NewDriver(mustWorkload(t, `{tool: custom, binary: prog, parser: db-insert}`))
	res, err := d.Parse("run.out", strings.NewReader("serial and random insertions of 1048576 per batch\nserial  2.811002s   373025/s    random 11.402113s    91963/s    cumulative 14.213115s   147551/s\n"))
	if !errors.Is(err, ErrIncomplete) || res == nil || len(res.(*DBInsert).Batches) != 1 {
		t.Errorf("cut db-insert output: %+v %v", res, err)
	}
	// Progress only for sysbench-format output.
	line := "[ 1s ] thds: 4 tps: 238.26 qps: 7361.19 (r/w/o: 5610.62/1111.56/639.02) lat (ms,99%): 52.89 err/s: 158.51 reconn/s: 0.00"
	if _, ok := d.Progress(line); ok {
		t.Error("db-insert parser reports sysbench progress")
	}
	sb, _ := NewDriver(mustWorkload(t, `{tool: custom, binary: prog, parser: sysbench}`))
	if iv, ok := sb.Progress(line); !ok || iv.Threads != 4 {
		t.Errorf("sysbench-format progress: %+v %v", iv, ok)
	}
}
