package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

func TestMysqlslapArgv(t *testing.T) {
	tests := []struct {
		name, workload string
		target         Target
		prog           string
		fallbacks      []string
		args           string
	}{
		{"built-in write load", "mysqlslap-write", labTarget, "mariadb-slap", []string{"mysqlslap"},
			"--host=10.0.0.1 --port=3306 --user=orch --create-schema=mysqlslap --concurrency=100 --iterations=5 --auto-generate-sql --auto-generate-sql-load-type=write --auto-generate-sql-add-autoincrement --number-of-queries=1000000 --debug-info"},
		{"every knob", `{tool: mysqlslap, binary: /usr/local/mysql/bin/mysqlslap, database: slap2, options: {concurrency: [4, 8], iterations: 2, auto_generate_sql: true, auto_generate_sql_load_type: mixed, auto_generate_sql_add_autoincrement: false, engine: "innodb,rocksdb", number_of_queries: 80, auto_generate_sql_write_number: 10, debug_info: false}, extra_args: [--commit=10, --csv]}`,
			Target{Host: "db", User: "bench"}, "/usr/local/mysql/bin/mysqlslap", nil,
			"--host=db --user=bench --create-schema=slap2 --concurrency=4,8 --iterations=2 --auto-generate-sql --auto-generate-sql-load-type=mixed --engine=innodb,rocksdb --number-of-queries=80 --auto-generate-sql-write-number=10 --commit=10 --csv"},
		{"concurrency as text", `{tool: mysqlslap, options: {concurrency: "2,4"}}`, Target{}, "mariadb-slap", []string{"mysqlslap"},
			"--create-schema=mysqlslap --concurrency=2,4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var w *Workload
			if strings.HasPrefix(tc.workload, "{") {
				w = mustWorkload(t, tc.workload)
			} else {
				var err error
				if w, err = LoadWorkload(tc.workload); err != nil {
					t.Fatal(err)
				}
			}
			s := mustStep(t, w, PhaseRun, tc.target)
			if s.Argv[0] != tc.prog || strings.Join(s.Argv[1:], " ") != tc.args || strings.Join(s.Fallbacks, ",") != strings.Join(tc.fallbacks, ",") {
				t.Errorf("got %q %v %s\nwant %q %v %s", s.Argv[0], s.Fallbacks, strings.Join(s.Argv[1:], " "), tc.prog, tc.fallbacks, tc.args)
			}
			if s.Output != "run.out" {
				t.Errorf("output %q", s.Output)
			}
		})
	}
}

func TestMysqlslapPhases(t *testing.T) {
	w := mustWorkload(t, `{tool: mysqlslap}`)
	if got := w.Phases(); len(got) != 1 || got[0] != PhaseRun {
		t.Errorf("phases %v", got)
	}
	d, _ := NewDriver(w)
	for _, p := range []Phase{PhasePrepare, PhaseCleanup} {
		if _, err := d.Step(p, labTarget); err == nil {
			t.Errorf("%s step built", p)
		}
	}
	if _, ok := d.Dataset(); ok {
		t.Error("mysqlslap claims a dataset")
	}
	if _, ok := d.Progress("\tNumber of clients running queries: 4"); ok {
		t.Error("mysqlslap line taken for progress")
	}
	f, err := os.Open("testdata/mariadb-slap-write-innodb.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := d.Parse("run.out", f)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := res.(Mysqlslap); !ok || len(m) != 1 || m[0].Clients != 50 || m[0].Engine != "innodb" {
		t.Errorf("result %#v", res)
	}
}

// fakeProgram writes an executable shell script to dir/name that prints
// its arguments and its MYSQL_PWD, each followed by a NUL byte.
func fakeProgram(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done\nprintf 'cwd=%s\\0' \"$(pwd)\"\nprintf 'pwd=%s\\0' \"$MYSQL_PWD\"\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// runLocal runs the step through /bin/sh the way the runner does and
// returns the NUL-separated fields the fake program printed.
func runLocal(t *testing.T, s Step) ([]string, error) {
	t.Helper()
	res, err := executor.NewLocal("test").Run(context.Background(), s.Command())
	out := strings.Split(string(res.Stdout), "\x00")
	return out[:len(out)-1], err
}

func TestMysqlslapPicksInstalledProgram(t *testing.T) {
	dir := t.TempDir()
	w := mustWorkload(t, `{tool: mysqlslap, options: {concurrency: 4}}`)
	s := mustStep(t, w, PhaseRun, labTarget)
	s.Env = map[string]string{"PATH": dir} // only the fake programs
	s.Dir = dir                            // and the working directory comes first

	// Neither installed: a clear message and exit 127.
	_, err := runLocal(t, s)
	var ee *executor.ExitError
	if !errors.As(err, &ee) || ee.ExitCode != 127 || !strings.Contains(ee.Stderr, "none of mariadb-slap, mysqlslap found") {
		t.Fatalf("without programs: %v", err)
	}
	// Only the old name: it is used.
	fakeProgram(t, dir, "mysqlslap")
	got, err := runLocal(t, s)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, s.Argv[1:]...), "cwd="+dir, "pwd=pw")
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("mysqlslap got %q\nwant %q", got, want)
	}
	// Both: the MariaDB name wins.
	if err := os.WriteFile(filepath.Join(dir, "mariadb-slap"), []byte("#!/bin/sh\necho mariadb-slap\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := executor.NewLocal("test").Run(context.Background(), s.Command())
	if err != nil || string(res.Stdout) != "mariadb-slap\n" {
		t.Errorf("with both: %q %v", res.Stdout, err)
	}
}
