package bench

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

func TestBuiltinWorkloads(t *testing.T) {
	if got := BuiltinWorkloads(); !slices.Equal(got, []string{"db-insert", "mysqlslap-write", "pure-random-writes"}) {
		t.Fatalf("built-ins %v", got)
	}
	w, err := LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	o := w.Options
	if w.Tool != DriverSysbench || w.Test != "oltp_insert" || w.Database != "sbtest" || w.Binary != "sysbench" ||
		*o.Tables != 8 || *o.Threads != 128 || *o.TimeS != 3600 || *o.ReportIntervalS != 1 || *o.AutoInc ||
		!w.Prepare || w.Cleanup || w.RunOn != topology.RoleLoadBox {
		t.Errorf("pure-random-writes: %+v", w)
	}
	if w.Source != "playbooks/workloads/pure-random-writes.yaml" {
		t.Errorf("source %q", w.Source)
	}
	m, err := LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	if mo := m.Options; !slices.Equal(mo.Concurrency, IntList{100}) || *mo.Iterations != 5 || *mo.NumberOfQueries != 1000000 ||
		!*mo.AutoGenerateSQL || mo.LoadType != "write" || !*mo.AddAutoIncrement || m.Prepare {
		t.Errorf("mysqlslap-write: %+v", m)
	}
}

func TestLoadWorkloadFromFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	text := "tool: sysbench\ntest: oltp_write_only\noptions:\n  threads: 2\n"
	for _, f := range []string{"mine.yaml", "sub/other.yml"} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for arg, name := range map[string]string{"mine.yaml": "mine", "sub/other.yml": "other", filepath.Join(dir, "mine.yaml"): "mine"} {
		w, err := LoadWorkload(arg)
		if err != nil {
			t.Fatal(err)
		}
		if w.Name != name || w.Source != arg || *w.Options.Threads != 2 {
			t.Errorf("%s: name %q source %q", arg, w.Name, w.Source)
		}
	}
	// A local file shadows a built-in of the same name.
	if err := os.WriteFile("db-insert.yaml", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err := LoadWorkload("db-insert.yaml"); err != nil || w.Tool != DriverSysbench {
		t.Errorf("local db-insert.yaml: %+v %v", w, err)
	}
	if w, err := LoadWorkload("mysqlslap-write.yaml"); err != nil || w.Tool != DriverMysqlslap {
		t.Errorf("built-in by file name: %+v %v", w, err)
	}
	_, err := LoadWorkload("nope")
	if err == nil || !strings.Contains(err.Error(), "built-in: db-insert, mysqlslap-write, pure-random-writes") {
		t.Errorf("unknown name: %v", err)
	}
	if _, err := LoadWorkload("./nope.yaml"); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "./nope.yaml: ") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := LoadWorkload("sub/"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
}

func TestWorkloadErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"empty", "\n  \n", `test.yaml:1:1: workload is empty: expected a mapping with tool and options`},
		{"not a mapping", "- a\n", `test.yaml:1:1: expected a mapping with keys name, description, tool, binary, test, workdir, run_on, database, options, extra_args, env, prepare, cleanup, parser; found a list`},
		{"syntax", "tool: sysbench\n  test: x\n", `test.yaml:2: YAML syntax error: mapping values are not allowed in this context`},
		{"flow syntax", "tool: sysbench\noptions: {threads: 1\n", `test.yaml:2: YAML syntax error: did not find expected ',' or '}'`},
		{"two documents", "tool: custom\n---\ntool: x\n", `test.yaml:2:1: a second YAML document; a workload is a single document`},
		{"unknown key", "tool: sysbench\ntest: oltp_insert\nthreads: 4\n", `test.yaml:3:1: unknown key "threads" (valid keys: name, description, tool, binary, test, workdir, run_on, database, options, extra_args, env, prepare, cleanup, parser)`},
		{"unknown option", "tool: sysbench\ntest: oltp_insert\noptions:\n  thread: 4\n", `test.yaml:4:3: options: unknown key "thread" (valid keys: tables, table_size, threads, time_s, events, report_interval_s, auto_inc, percentile, histogram, engine, concurrency, iterations, auto_generate_sql, auto_generate_sql_load_type, auto_generate_sql_add_autoincrement, number_of_queries, auto_generate_sql_write_number, debug_info, key_size, value_size, cache_size, page_size, batch_size, transactions, transaction_size, compressibility)`},
		{"duplicate", "tool: sysbench\ntest: a\noptions:\n  threads: 4\n  threads: 8\n", `test.yaml:5:3: options.threads: duplicate key (first at line 4)`},
		{"wrong type", "tool: sysbench\ntest: a\noptions:\n  threads: many\n", `test.yaml:4:12: options.threads: expected an integer; found "many"`},
		{"float", "tool: sysbench\ntest: a\noptions:\n  time_s: 1.5\n", `test.yaml:4:11: options.time_s: expected an integer; found "1.5"`},
		{"bool", "tool: sysbench\ntest: a\noptions:\n  auto_inc: 0\n", `test.yaml:4:13: options.auto_inc: expected true or false; found "0"`},
		{"no value", "tool: sysbench\ntest: a\noptions:\n  threads:\n", `test.yaml:4:3: options.threads: no value; expected an integer`},
		{"list for string", "tool: [a]\n", `test.yaml:1:7: tool: expected a string; found a list`},
		{"options not a mapping", "tool: sysbench\ntest: a\noptions: 4\n", `test.yaml:3:10: options: expected a mapping; found "4"`},
		{"bad concurrency", "tool: mysqlslap\noptions:\n  concurrency: [4, x]\n", `test.yaml:3:16: options.concurrency: expected an integer or a list of integers; found a list`},
		{"missing tool", "test: oltp_insert\n", `test.yaml: tool: missing; one of sysbench, sysbench-legacy, mysqlslap, custom, db-insert`},
		{"unknown tool", "tool: hammerdb\n", `test.yaml:1:7: tool: unknown tool "hammerdb" (valid: sysbench, sysbench-legacy, mysqlslap, custom, db-insert)`},
		{"missing test", "tool: sysbench\n", `test.yaml: test: missing: the sysbench test to run (oltp_insert, a Lua path, ...)`},
		{"test for mysqlslap", "tool: mysqlslap\ntest: x\n", `test.yaml:2:7: test: only for tools sysbench and sysbench-legacy`},
		{"option for other tool", "tool: sysbench\ntest: a\noptions:\n  iterations: 3\n", `test.yaml:4:15: options.iterations: does not apply to tool sysbench (its options: tables, table_size, threads, time_s, events, report_interval_s, auto_inc, percentile, histogram, engine)`},
		{"histogram legacy", "tool: sysbench-legacy\ntest: oltp\noptions:\n  histogram: true\n", `test.yaml:4:14: options.histogram: does not apply to tool sysbench-legacy (its options: tables, table_size, threads, time_s, events, report_interval_s, auto_inc, percentile, engine)`},
		{"custom options", "tool: custom\nbinary: x\nparser: db-insert\noptions: {threads: 2}\n", `test.yaml:4:20: options.threads: does not apply to tool custom (its options: none)`},
		{"below min", "tool: sysbench\ntest: a\noptions:\n  threads: 0\n", `test.yaml:4:12: options.threads: 0 is below the minimum 1`},
		{"above max", "tool: sysbench\ntest: a\noptions:\n  percentile: 101\n", `test.yaml:4:15: options.percentile: 101 is above the maximum 100`},
		{"list element below min", "tool: mysqlslap\noptions:\n  concurrency: 4,0\n", `test.yaml:3:16: options.concurrency: 0 is below the minimum 1`},
		{"histogram without percentile", "tool: sysbench\ntest: a\noptions: {percentile: 0, histogram: true}\n", `test.yaml:3:37: options.histogram: sysbench cannot print a histogram with percentile 0`},
		{"forever", "tool: sysbench\ntest: a\noptions: {time_s: 0, events: 0}\n", `test.yaml:3:19: options.time_s: time_s 0 with events 0 would run forever; set one of them`},
		{"load type", "tool: mysqlslap\noptions: {auto_generate_sql_load_type: writes}\n", `test.yaml:2:40: options.auto_generate_sql_load_type: "writes" is not one of mixed, read, write, key, update`},
		{"engine injection", "tool: sysbench\ntest: a\noptions: {engine: 'innodb */ DROP'}\n", `test.yaml:3:19: options.engine: "innodb */ DROP" is not an engine name`},
		{"mysqlslap engine list", "tool: mysqlslap\noptions: {engine: 'innodb,'}\n", `test.yaml:2:19: options.engine: "" is not an engine name`},
		{"custom without binary", "tool: custom\nparser: db-insert\n", `test.yaml: binary: missing: the program a custom workload runs`},
		{"custom without parser", "tool: custom\nbinary: x\n", `test.yaml: parser: missing: how to read the program's output (sysbench, mysqlslap, mariadb-slap, db-insert)`},
		{"unknown parser", "tool: custom\nbinary: x\nparser: tpcc\n", `test.yaml:3:9: parser: unknown parser "tpcc" (valid: sysbench, mysqlslap, mariadb-slap, db-insert)`},
		{"parser for sysbench", "tool: sysbench\ntest: a\nparser: sysbench\n", `test.yaml:3:9: parser: only for tool custom: sysbench output has its own parser`},
		{"prepare for mysqlslap", "tool: mysqlslap\nprepare: true\n", `test.yaml:2:10: prepare: mysqlslap has no prepare phase`},
		{"cleanup for custom", "tool: custom\nbinary: x\nparser: db-insert\ncleanup: true\n", `test.yaml:4:10: cleanup: custom has no cleanup phase`},
		{"run_on", "tool: sysbench\ntest: a\nrun_on: slave1\n", `test.yaml:3:9: run_on: "slave1" is not loadbox or master`},
		{"database", "tool: sysbench\ntest: a\ndatabase: 'sb`test'\n", "test.yaml:3:11: database: \"sb`test\" is not a plain schema name (letters, digits, '_', '$')"},
		{"name", "name: 'my workload'\ntool: sysbench\ntest: a\n", `test.yaml:1:7: name: "my workload" is not a workload name (letters, digits, '.', '_', '-'; at most 64)`},
		{"binary option-like", "tool: sysbench\nbinary: --help\ntest: a\n", `test.yaml:2:9: binary: "--help" cannot start with '-' or hold control characters`},
		{"env name", "tool: sysbench\ntest: a\nenv: {'A B': x}\n", `test.yaml:3:7: env.A B: not a variable name`},
		{"env password", "tool: sysbench\ntest: a\nenv:\n  MYSQL_PWD: x\n", `test.yaml:4:3: env.MYSQL_PWD: set by orch from the inventory`},
		{"password arg", "tool: sysbench\ntest: a\nextra_args: [--threads=2, --mysql-password=x]\n", `test.yaml:3:27: extra_args[1]: passwords never go on the command line: orch passes the inventory's password as MYSQL_PWD`},
		{"slap short password", "tool: mysqlslap\nextra_args: [-vpsecret]\n", `test.yaml:2:14: extra_args[0]: passwords never go on the command line: orch passes the inventory's password as MYSQL_PWD`},
		{"slap abbreviated password", "tool: mysqlslap\nextra_args: ['--pass=x']\n", `test.yaml:2:14: extra_args[0]: passwords never go on the command line: orch passes the inventory's password as MYSQL_PWD`},
		{"merge key", "tool: sysbench\ntest: a\noptions:\n  <<: {threads: 1}\n", `test.yaml:4:3: options: keys must be plain names; found "<<"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseWorkload("test.yaml", []byte(tc.text))
			if err == nil {
				t.Fatalf("accepted:\n%s", tc.text)
			}
			var te *topology.Error
			if !errors.As(err, &te) {
				t.Errorf("error is %T, want *topology.Error", err)
			}
			if err.Error() != tc.want {
				t.Errorf("\n got %s\nwant %s", err, tc.want)
			}
		})
	}
}

func TestWorkloadAccepts(t *testing.T) {
	w := mustWorkload(t, "# comment\nname: x.1\ntool: sysbench\ntest: oltp_insert\noptions:\nprepare: false\ncleanup: true\nextra_args: [--mysql-ignore-errors=1062, --password-file=/x]\n")
	if w.Name != "x.1" || w.Prepare || !w.Cleanup || !slices.Equal(w.Phases(), []Phase{PhaseRun, PhaseCleanup}) {
		t.Errorf("%+v phases %v", w, w.Phases())
	}
	// Defaults by tool.
	w = mustWorkload(t, "tool: mysqlslap\noptions: {concurrency: [1, 2]}\n")
	if w.Name != "test" || w.Binary != "" || w.Database != "mysqlslap" || w.Prepare || !slices.Equal(w.Options.Concurrency, IntList{1, 2}) {
		t.Errorf("mysqlslap defaults: %+v", w)
	}
	// yes/no booleans, an anchor and an alias, a BOM, CRLF line ends.
	w = mustWorkload(t, "\uFEFFtool: sysbench\r\ntest: &t oltp_insert\r\ndescription: *t\r\noptions: {auto_inc: no, histogram: yes}\r\n")
	if *w.Options.AutoInc || !*w.Options.Histogram || w.Description != "oltp_insert" {
		t.Errorf("yaml forms: %+v", w)
	}
}
