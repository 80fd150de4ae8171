package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// distinctivePassword looks like nothing else in a command, and carries
// shell metacharacters so a quoting slip would show.
const distinctivePassword = `Pw-7f3c9e'"$(id) ;x`

// allSteps builds every step every driver can build for the built-in
// workloads and one inline workload per driver.
func allSteps(t *testing.T, tg Target) []Step {
	t.Helper()
	var ws []*Workload
	for _, name := range BuiltinWorkloads() {
		w, err := LoadWorkload(name)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	for _, text := range []string{
		`{tool: sysbench, test: oltp_read_write, options: {tables: 2, threads: 4, time_s: 5, histogram: true}, extra_args: [--rand-type=uniform]}`,
		`{tool: sysbench-legacy, test: ./tests/db/insert.lua, workdir: /opt/sb, options: {tables: 2, time_s: 5}}`,
		`{tool: mysqlslap, binary: mysqlslap, options: {concurrency: 4, auto_generate_sql: true}}`,
		`{tool: custom, binary: /usr/local/bin/wrapper, parser: sysbench, database: db1, env: {A: b}}`,
	} {
		ws = append(ws, mustWorkload(t, text))
	}
	var steps []Step
	for _, w := range ws {
		d, err := NewDriver(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []Phase{PhasePrepare, PhaseRun, PhaseCleanup} {
			if s, err := d.Step(p, tg); err == nil {
				steps = append(steps, s)
			}
		}
	}
	if len(steps) < 10 {
		t.Fatalf("only %d steps built", len(steps))
	}
	return steps
}

func TestPasswordNeverInCommand(t *testing.T) {
	tg := Target{Host: "10.0.0.1", Port: 3306, User: "orch", Password: distinctivePassword}
	for _, s := range allSteps(t, tg) {
		cmd := s.Command()
		texts := append([]string{s.Name, s.Dir, s.Script(), s.String(), cmd.Script}, s.Argv...)
		for k, v := range cmd.Env {
			texts = append(texts, k, v)
		}
		for _, text := range texts {
			// Any 6-character piece of it would be a leak too.
			for i := 0; i+6 <= len(distinctivePassword); i++ {
				if strings.Contains(text, distinctivePassword[i:i+6]) {
					t.Fatalf("%s: password piece %q in %q", s.Name, distinctivePassword[i:i+6], text)
				}
			}
		}
		for _, a := range s.Argv {
			if passwordFlag(DriverMysqlslap, a) {
				t.Errorf("%s: password-like flag %q", s.Name, a)
			}
		}
		if strings.HasPrefix(s.Name, "db-insert ") && cmd.SecretEnv == nil {
			continue // PerconaFT's db-insert talks to no server: no password at all
		}
		if len(cmd.SecretEnv) != 1 || cmd.SecretEnv["MYSQL_PWD"] != distinctivePassword {
			t.Errorf("%s: secret env %v, want MYSQL_PWD only", s.Name, cmd.SecretEnv)
		}
	}
}

// TestHostileValuesStayLiteral runs steps full of shell metacharacters
// through /bin/sh (the local executor, same script path as over SSH) with a
// fake program that echoes its arguments back: each must arrive intact as
// one argument, nothing may be executed, and the password must arrive
// through the environment.
func TestHostileValuesStayLiteral(t *testing.T) {
	hostile := []string{`$(touch CANARY)`, "`touch CANARY`", `'; touch CANARY; '`, `a b  c`, `"`, `\`, `*`, `~`, `a;b|c&d>e<f`, "tab\there"}
	root := t.TempDir()
	dir := filepath.Join(root, `we ird $(touch CANARY) 'dir'`)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	prog := fakeProgram(t, dir, `prog "x" ;y`)
	tg := Target{Host: `db'; touch CANARY`, Port: 3307, User: `u$(touch CANARY)`, Password: distinctivePassword}

	quoted := make([]string, len(hostile))
	for i, h := range hostile {
		quoted[i] = `"` + strings.ReplaceAll(strings.ReplaceAll(h, `\`, `\\`), `"`, `\"`) + `"`
	}
	list := "[" + strings.Join(quoted, ", ") + "]"
	yq := func(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
	workloads := []string{
		`{tool: sysbench, binary: ` + yq(prog) + `, test: ` + yq(`oltp $(touch CANARY).lua`) + `, workdir: ` + yq(dir) + `, extra_args: ` + list + `, env: {X: ` + yq(`$(touch CANARY)'"`) + `}}`,
		`{tool: sysbench-legacy, binary: ` + yq(prog) + `, test: ` + yq(`./t/'x'.lua`) + `, extra_args: ` + list + `}`,
		`{tool: mysqlslap, binary: ` + yq(prog) + `, options: {concurrency: 2}, extra_args: ` + list + `}`,
		`{tool: custom, binary: ` + yq(prog) + `, parser: db-insert, workdir: ` + yq(dir) + `, extra_args: ` + list + `}`,
	}
	t.Chdir(root)
	for _, text := range workloads {
		w := mustWorkload(t, text)
		s := mustStep(t, w, PhaseRun, tg)
		got, err := runLocal(t, s)
		if err != nil {
			t.Fatalf("%s: %v", w.Tool, err)
		}
		wd := root
		if w.Workdir != "" {
			wd = w.Workdir
		}
		want := append(append([]string{}, s.Argv[1:]...), "cwd="+wd, "pwd="+distinctivePassword)
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			t.Errorf("%s: arguments changed on the way:\n got %q\nwant %q", w.Tool, got, want)
		}
		for _, h := range hostile {
			if !strings.Contains("\x00"+strings.Join(got, "\x00"), "\x00"+h+"\x00") {
				t.Errorf("%s: %q did not arrive as one argument", w.Tool, h)
			}
		}
	}
	for _, d := range []string{root, dir} {
		if _, err := os.Stat(filepath.Join(d, "CANARY")); err == nil {
			t.Fatalf("a hostile value was executed (CANARY in %s)", d)
		}
	}
}
