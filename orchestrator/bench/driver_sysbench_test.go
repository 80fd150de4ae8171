package bench

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// labTarget is a typical target: the master as the load box reaches it.
var labTarget = Target{Host: "10.0.0.1", Port: 3306, User: "orch", Password: "pw"}

// mustWorkload parses a workload written in a test.
func mustWorkload(t *testing.T, text string) *Workload {
	t.Helper()
	w, err := ParseWorkload("test.yaml", []byte(text))
	if err != nil {
		t.Fatalf("ParseWorkload: %v", err)
	}
	return w
}

func mustStep(t *testing.T, w *Workload, p Phase, tg Target) Step {
	t.Helper()
	d, err := NewDriver(w)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Step(p, tg)
	if err != nil {
		t.Fatalf("Step(%s): %v", p, err)
	}
	return s
}

func TestSysbenchArgv(t *testing.T) {
	const conn = "--db-driver=mysql --mysql-host=10.0.0.1 --mysql-port=3306 --mysql-user=orch"
	tests := []struct {
		name, workload string
		phase          Phase
		target         Target
		want           string // space-joined argv (no value here has spaces)
	}{
		{"prepare", `{tool: sysbench, test: oltp_insert, options: {tables: 8, table_size: 1000, threads: 128, time_s: 60, engine: rocksdb, auto_inc: false}}`,
			PhasePrepare, labTarget,
			"sysbench oltp_insert " + conn + " --mysql-db=sbtest --tables=8 --table-size=1000 --mysql-storage-engine=rocksdb --auto_inc=off --threads=8 prepare"},
		{"prepare threads below tables", `{tool: sysbench, test: oltp_insert, options: {tables: 8, threads: 2}}`,
			PhasePrepare, labTarget,
			"sysbench oltp_insert " + conn + " --mysql-db=sbtest --tables=8 --threads=2 prepare"},
		{"run every knob", `{tool: sysbench, test: oltp_read_write, database: bench1, options: {tables: 2, table_size: 500, threads: 4, time_s: 5, events: 100, report_interval_s: 1, auto_inc: true, percentile: 99, histogram: true, engine: innodb}, extra_args: [--rand-type=uniform]}`,
			PhaseRun, labTarget,
			"sysbench oltp_read_write " + conn + " --mysql-db=bench1 --tables=2 --table-size=500 --auto_inc=on --threads=4 --time=5 --events=100 --report-interval=1 --percentile=99 --histogram=on --rand-type=uniform run"},
		{"run defaults only", `{tool: sysbench, test: oltp_point_select}`,
			PhaseRun, Target{},
			"sysbench oltp_point_select --db-driver=mysql --mysql-db=sbtest run"},
		{"cleanup", `{tool: sysbench, test: oltp_insert, options: {tables: 3, table_size: 10, threads: 9, time_s: 9}, extra_args: [--verbosity=5]}`,
			PhaseCleanup, labTarget,
			"sysbench oltp_insert " + conn + " --mysql-db=sbtest --tables=3 --verbosity=5 cleanup"},
		{"lua path and binary", `{tool: sysbench, binary: /opt/sb/bin/sysbench, test: /opt/lua/my_insert.lua, options: {threads: 1}}`,
			PhaseRun, Target{Host: "db", User: "u"},
			"/opt/sb/bin/sysbench /opt/lua/my_insert.lua --db-driver=mysql --mysql-host=db --mysql-user=u --mysql-db=sbtest --threads=1 run"},
		{"legacy prepare", `{tool: sysbench-legacy, test: ./tests/db/insert.lua, options: {tables: 8, table_size: 100, threads: 64, engine: tokudb, auto_inc: false}}`,
			PhasePrepare, labTarget,
			"sysbench --test=./tests/db/insert.lua " + conn + " --mysql-db=sbtest --oltp-tables-count=8 --oltp-table-size=100 --mysql-table-engine=tokudb --oltp-auto-inc=off prepare"},
		{"legacy run with time lifts the 10000 request cap", `{tool: sysbench-legacy, test: ./tests/db/insert.lua, options: {tables: 8, threads: 64, time_s: 60, report_interval_s: 1, percentile: 95}}`,
			PhaseRun, labTarget,
			"sysbench --test=./tests/db/insert.lua " + conn + " --mysql-db=sbtest --oltp-tables-count=8 --num-threads=64 --max-time=60 --max-requests=0 --report-interval=1 --percentile=95 run"},
		{"legacy run with events", `{tool: sysbench-legacy, test: oltp, options: {threads: 8, time_s: 60, events: 5000}}`,
			PhaseRun, labTarget,
			"sysbench --test=oltp " + conn + " --mysql-db=sbtest --num-threads=8 --max-time=60 --max-requests=5000 run"},
		{"legacy cleanup", `{tool: sysbench-legacy, test: ./tests/db/insert.lua, options: {tables: 2, table_size: 100}}`,
			PhaseCleanup, labTarget,
			"sysbench --test=./tests/db/insert.lua " + conn + " --mysql-db=sbtest --oltp-tables-count=2 cleanup"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustStep(t, mustWorkload(t, tc.workload), tc.phase, tc.target)
			if got := strings.Join(s.Argv, " "); got != tc.want {
				t.Errorf("argv:\n got %s\nwant %s", got, tc.want)
			}
			if s.Phase != tc.phase || s.Output != string(tc.phase)+".out" || len(s.Fallbacks) != 0 {
				t.Errorf("step %+v: want phase %s, output %s.out, no fallbacks", s, tc.phase, tc.phase)
			}
		})
	}
}

func TestSysbenchStepShape(t *testing.T) {
	w := mustWorkload(t, `{tool: sysbench-legacy, binary: ./sysbench/sysbench, test: ./tests/db/insert.lua, workdir: /opt/sysbench-0.5, env: {LUA_PATH: './tests/db/?.lua'}}`)
	s := mustStep(t, w, PhaseRun, labTarget)
	if s.Dir != "/opt/sysbench-0.5" || s.Name != "sysbench ./tests/db/insert.lua run" {
		t.Errorf("dir %q name %q", s.Dir, s.Name)
	}
	if s.Env["LUA_PATH"] != "./tests/db/?.lua" || len(s.Env) != 1 {
		t.Errorf("env %v", s.Env)
	}
	if s.SecretEnv["MYSQL_PWD"] != "pw" || len(s.SecretEnv) != 1 {
		t.Errorf("secret env %v", s.SecretEnv)
	}
	want := "cd /opt/sysbench-0.5 || exit\nexec ./sysbench/sysbench --test=./tests/db/insert.lua --db-driver=mysql --mysql-host=10.0.0.1 --mysql-port=3306 --mysql-user=orch --mysql-db=sbtest run\n"
	if got := s.Script(); got != want {
		t.Errorf("script:\n%s\nwant:\n%s", got, want)
	}
	// The step's env is its own: changing it leaves the workload alone.
	s.Env["LUA_PATH"] = "x"
	if w.Env["LUA_PATH"] != "./tests/db/?.lua" {
		t.Error("step env aliases the workload's")
	}
	// Without a password there is nothing secret to send.
	if s := mustStep(t, w, PhaseRun, Target{Host: "h"}); s.SecretEnv != nil {
		t.Errorf("secret env without password: %v", s.SecretEnv)
	}
}

func TestSysbenchBadTarget(t *testing.T) {
	w := mustWorkload(t, `{tool: sysbench, test: oltp_insert}`)
	d, _ := NewDriver(w)
	for _, tg := range []Target{{Port: 70000}, {Port: -1}, {Password: "a\nb"}, {Host: "a\x00"}} {
		if _, err := d.Step(PhaseRun, tg); err == nil {
			t.Errorf("target %+v accepted", tg)
		}
	}
	if _, err := d.Step("warmup", labTarget); err == nil || !strings.Contains(err.Error(), `no "warmup" phase`) {
		t.Errorf("unknown phase: %v", err)
	}
}

func TestSysbenchDataset(t *testing.T) {
	n := func(k int) []string {
		var s []string
		for i := 1; i <= k; i++ {
			s = append(s, "sbtest"+string(rune('0'+i)))
		}
		return s
	}
	tests := []struct {
		workload string
		ok       bool
		want     DatasetSpec
	}{
		{`{tool: sysbench, test: oltp_insert, options: {tables: 8, table_size: 1000000, auto_inc: false}}`, true,
			DatasetSpec{Database: "sbtest", Tables: n(8), TableSize: 0, Engine: "innodb"}},
		{`{tool: sysbench, test: oltp_insert, options: {tables: 2, table_size: 500, engine: rocksdb}}`, true,
			DatasetSpec{Database: "sbtest", Tables: n(2), TableSize: 500, Engine: "rocksdb"}},
		{`{tool: sysbench, test: /usr/share/sysbench/oltp_write_only.lua, database: db2}`, true,
			DatasetSpec{Database: "db2", Tables: n(1), TableSize: 10000, Engine: "innodb"}},
		{`{tool: sysbench-legacy, test: ./tests/db/insert.lua, options: {tables: 3, table_size: 7, auto_inc: false}}`, true,
			DatasetSpec{Database: "sbtest", Tables: n(3), TableSize: 7, Engine: "innodb"}},
		{`{tool: sysbench-legacy, test: oltp, options: {table_size: 7, engine: tokudb}}`, true,
			DatasetSpec{Database: "sbtest", Tables: []string{"sbtest"}, TableSize: 7, Engine: "tokudb"}},
		{`{tool: sysbench, test: bulk_insert}`, false, DatasetSpec{}},
		{`{tool: sysbench, test: /home/me/custom.lua}`, false, DatasetSpec{}},
	}
	for _, tc := range tests {
		d, _ := NewDriver(mustWorkload(t, tc.workload))
		got, ok := d.Dataset()
		if ok != tc.ok || got.Database != tc.want.Database || !slices.Equal(got.Tables, tc.want.Tables) ||
			got.TableSize != tc.want.TableSize || got.Engine != tc.want.Engine {
			t.Errorf("%s:\n got %+v %v\nwant %+v %v", tc.workload, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSysbenchParseAndProgress(t *testing.T) {
	d, _ := NewDriver(mustWorkload(t, `{tool: sysbench, test: oltp_insert}`))
	f, err := os.Open("testdata/sysbench-1.0-oltp_insert-innodb-run.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := d.Parse("run.out", f)
	if err != nil {
		t.Fatal(err)
	}
	sb, ok := res.(*Sysbench)
	if !ok || !sb.Complete || sb.Threads != 32 || len(sb.Intervals) == 0 {
		t.Fatalf("result %T %+v", res, res)
	}
	iv, ok := d.Progress("[ 2s ] thds: 32 tps: 2502.16 qps: 2502.16 (r/w/o: 0.00/2502.16/0.00) lat (ms,95%): 27.17 err/s: 0.00 reconn/s: 0.00")
	if !ok || iv.T != 2 || iv.TPS.String() != "2502.16" {
		t.Errorf("progress %+v %v", iv, ok)
	}
	if _, ok := d.Progress("Threads started!"); ok {
		t.Error("non-interval line taken for progress")
	}
	legacy, _ := NewDriver(mustWorkload(t, `{tool: sysbench-legacy, test: oltp}`))
	if iv, ok := legacy.Progress("[   1s] threads: 64, tps: 0.00, reads: 0.00, writes: 8112.35, response time: 14.02ms (95%), errors: 0.00, reconnects:  0.00"); !ok || iv.Threads != 64 {
		t.Errorf("legacy progress %+v %v", iv, ok)
	}
}

func TestNewDriverValidates(t *testing.T) {
	if _, err := NewDriver(&Workload{Name: "x", Tool: DriverSysbench}); err == nil || !strings.HasPrefix(err.Error(), "workload x: test: missing") {
		t.Errorf("invalid workload: %v", err)
	}
	// Built in code, without the loader's defaults: still a usable command.
	w := &Workload{Name: "x", Tool: DriverSysbench, Test: "oltp_insert"}
	s := mustStep(t, w, PhaseRun, Target{})
	if strings.Join(s.Argv, " ") != "sysbench oltp_insert --db-driver=mysql run" {
		t.Errorf("argv %q", s.Argv)
	}
}
