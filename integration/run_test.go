package integration

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runDir returns the run directory a `orch run` printed ("run ok: DIR").
func runDir(t *testing.T, r result) string {
	t.Helper()
	for _, line := range strings.Split(r.stdout, "\n") {
		f := strings.Fields(line)
		if len(f) == 3 && f[0] == "run" {
			return f[2]
		}
	}
	t.Fatalf("no run directory in output:\n%s", r.stdout)
	return ""
}

func readJSON(t *testing.T, p string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return v
}

// labPasswords are every password the lab uses.
func (l *lab) labPasswords(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, inv := range []string{"lab.yaml", "lab-password.yaml"} {
		doc := l.inventoryDoc(t, inv)
		for _, section := range []string{"ssh", "mysql"} {
			m, _ := doc["defaults"].(map[string]any)[section].(map[string]any)
			if pw, ok := m["password"].(map[string]any); ok {
				b, err := os.ReadFile(pw["file"].(string))
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, strings.TrimSpace(string(b)))
			}
		}
	}
	if len(out) < 2 {
		t.Fatalf("found %d lab passwords, want the MySQL and the bench user's", len(out))
	}
	return append(out, l.generatedPasswords(t)...)
}

// assertNoPasswords greps every file of a run directory for the passwords.
func (l *lab) assertNoPasswords(t *testing.T, dir string) {
	t.Helper()
	pws := l.labPasswords(t)
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, pw := range pws {
			if strings.Contains(string(b), pw) {
				t.Errorf("%s holds a lab password", p)
			}
		}
		return nil
	})
}

// assertCompleteRun checks the run directory holds what the issue lists.
func assertCompleteRun(t *testing.T, dir, status string, minSamples int) map[string]any {
	t.Helper()
	m := readJSON(t, filepath.Join(dir, "manifest.json"))
	if m["status"] != status {
		t.Errorf("manifest status %v, want %s (error %v)", m["status"], status, m["error"])
	}
	for _, f := range []string{"results.json", "benchmark/run.txt", "events.jsonl",
		"hosts/master/config.cnf", "hosts/master/variables.before.tsv", "hosts/master/status.before.tsv",
		"hosts/slave2/status.after.tsv", "hosts/slave1/replication.before.json", "hosts/slave1/error.log",
		"timeseries/master-mysql.csv", "timeseries/slave2-os.csv",
		"hosts/master/commands.jsonl", "hosts/slave1/commands.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("run directory lacks %s", f)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "timeseries/master-mysql.csv"))
	if n := strings.Count(string(csv), "\n"); n < minSamples+1 {
		t.Errorf("master time series has %d lines", n)
	}
	return readJSON(t, filepath.Join(dir, "results.json"))
}

// TestRunEngines: a shortened pure-random-writes on innodb and on rocksdb,
// each leaving a complete, consistent run directory without passwords.
func TestRunEngines(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	for _, engine := range []string{"innodb", "rocksdb"} {
		t.Run(engine, func(t *testing.T) {
			r := l.mustOK(t, "run", "-i", l.inventory, "--workload", "pure-random-writes", "--engine", engine,
				"--tables", "4", "--threads", "8", "--time", "10", "--table-size", "10000", "--runs", t.TempDir())
			dir := runDir(t, r)
			res := assertCompleteRun(t, dir, "ok", 8)
			assertCommandLogs(t, dir, "sysbench")
			b, _ := res["benchmark"].(map[string]any)
			if b["complete"] != true || b["tps"] == nil {
				t.Errorf("benchmark result incomplete: %v", b)
			}
			if c, _ := res["consistency"].(map[string]any); c["ok"] != true {
				t.Errorf("consistency not ok: %v", res["consistency"])
			}
			if !strings.Contains(strings.ToLower(string(mustRead(t, filepath.Join(dir, "results.json")))), `"engine": "`+engine+`"`) {
				t.Errorf("results do not record %s tables", engine)
			}
			l.assertNoPasswords(t, dir)
			assertHostFactsInHead(t, l, dir)
			assertStepEvents(t, dir, res)
		})
	}
}

// assertStepEvents: the command's one stream is in events.jsonl: up's
// steps on the database hosts, and the run's phases (host ""), each
// phase's took_s the very phases_s of results.json.
func assertStepEvents(t *testing.T, dir string, res map[string]any) {
	t.Helper()
	ends, hosts := map[string]float64{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(mustRead(t, filepath.Join(dir, "events.jsonl")))), "\n") {
		var e struct {
			Host, Kind, Detail string
			TookS              float64 `json:"took_s"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("events.jsonl: %q: %v", line, err)
		}
		if e.Kind != "step_end" {
			continue
		}
		if e.Host == "" {
			ends[e.Detail] += e.TookS
		} else {
			hosts[e.Host] = true
		}
	}
	phases, _ := res["phases_s"].(map[string]any)
	if phases["up"] == nil || len(phases) != len(ends) || !hosts["master"] || !hosts["slave2"] {
		t.Errorf("events.jsonl: phase ends %v, up's steps on %v; phases_s %v", ends, hosts, phases)
	}
	for name, v := range phases {
		if f, _ := v.(float64); math.Abs(f-ends[name]) > 1e-9 {
			t.Errorf("phase %s: phases_s %v s, events.jsonl %v s", name, v, ends[name])
		}
	}
}

// TestRunMysqlslap: the mysqlslap-write workload, shortened.
func TestRunMysqlslap(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	r := l.mustOK(t, "run", "-i", l.inventory, "--workload", "mysqlslap-write", "--concurrency", "4",
		"--iterations", "2", "--set", "number_of_queries=2000", "--runs", t.TempDir())
	dir := runDir(t, r)
	res := assertCompleteRun(t, dir, "ok", 1)
	assertCommandLogs(t, dir, "mysqlslap")
	blocks, _ := res["benchmark"].([]any)
	if len(blocks) == 0 {
		t.Fatalf("no mysqlslap blocks: %v", res["benchmark"])
	}
	if blk := blocks[0].(map[string]any); blk["clients"] != float64(4) || blk["avg_s"] == nil {
		t.Errorf("mysqlslap block %v", blk)
	}
	l.assertNoPasswords(t, dir)
}

// TestTwoRunsAtOnce: two orch runs started in the same instant against one
// cluster. From one account (two shells) the command lock on the master
// lets one go and refuses the other before its up touches a server: two
// ups at once restarted each other's servers and both failed. From two
// accounts (each has its own command lock) the master's benchmark lock lets
// exactly one benchmark; before it, both passed the check for another
// benchmark's processes on the load box.
func TestTwoRunsAtOnce(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	args := []string{"run", "--workload", "mysqlslap-write", "--concurrency", "4",
		"--iterations", "3", "--set", "number_of_queries=3000"}
	both := func(t *testing.T, invA, invB, refusal string) {
		var (
			wg  sync.WaitGroup
			res [2]result
		)
		for i, inv := range []string{invA, invB} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = l.orch(t, append(args, "-i", inv, "--runs", t.TempDir())...)
			}()
		}
		wg.Wait()
		won, lost := res[0], res[1]
		if won.code != 0 {
			won, lost = lost, won
		}
		if won.code != 0 || lost.code == 0 {
			t.Fatalf("exits %d and %d: want exactly one run to benchmark", won.code, lost.code)
		}
		if !strings.Contains(lost.stderr, refusal) {
			t.Errorf("the refused run does not say %q:\n%s", refusal, lost.stderr)
		}
		if strings.Contains(lost.stderr, "mariadb-slap") || strings.Contains(lost.stdout, "mariadb-slap") {
			t.Errorf("the refused run started a client:\n%s\n%s", lost.stdout, lost.stderr)
		}
		assertCompleteRun(t, runDir(t, won), "ok", 1)
	}
	t.Run("one account", func(t *testing.T) {
		both(t, l.inventory, l.inventory, "the cluster is in use by another orch command (orch run, pid ")
	})
	t.Run("two accounts", func(t *testing.T) {
		l.mustOK(t, "up", "-i", l.inventory) // as the runs configure it: neither run's up restarts a server
		pwInv, _ := l.passwordInventory(t)
		both(t, l.inventory, pwInv, "an orch run holds this server's benchmark lock (connection ")
	})
}

// TestRunSurvivesLinkDrop: the load box's link goes down for a few seconds
// mid-run and orch's output stream is cut; the benchmark goes on detached
// and orch re-attaches where it left off. While it
// runs, no process on the load box has the password in its argv.
func TestRunSurvivesLinkDrop(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	done := make(chan result, 1)
	go func() {
		done <- l.orch(t, "run", "-i", l.inventory, "--workload", "pure-random-writes", "--tables", "2",
			"--threads", "4", "--time", "20", "--table-size", "10000", "--runs", t.TempDir())
	}()
	// The link drops while the benchmark itself runs (not during up or
	// prepare, which take longer on a loaded machine): wait for it.
	argv := l.waitLoadBoxBenchmark(t)
	for _, pw := range l.labPasswords(t) {
		if strings.Contains(argv, pw) {
			t.Fatalf("a password is in a process argv on the load box")
		}
	}
	l.fault(t, "loadbox", "link-down")
	time.Sleep(5 * time.Second)
	l.fault(t, "loadbox", "link-up")
	// A link that comes back in seconds may leave TCP and SSH unbroken;
	// killing the follower's tail breaks orch's stream for certain.
	time.Sleep(time.Second)
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "pkill -x tail || true")
	r := <-done
	if r.code != 0 {
		t.Fatalf("run failed after a link drop: %s", r.stderr)
	}
	if !strings.Contains(r.stderr, "re-attaching") {
		t.Errorf("orch did not report re-attaching:\n%s", r.stderr)
	}
	res := assertCompleteRun(t, runDir(t, r), "ok", 15)
	b, _ := res["benchmark"].(map[string]any)
	if ivs, _ := b["intervals"].([]any); b["complete"] != true || len(ivs) < 18 {
		t.Errorf("output after the link drop is not the full run: complete %v, %d intervals", b["complete"], len(ivs))
	}
}

// TestRunInterruptedThenCollect: SIGINT mid-run stops the benchmark and
// leaves an interrupted run that collect completes, idempotently.
func TestRunInterruptedThenCollect(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	runs := t.TempDir()
	cmd := exec.CommandContext(context.Background(), l.bin, "run", "-i", l.inventory, "--workload", "pure-random-writes",
		"--tables", "2", "--threads", "4", "--time", "60", "--table-size", "10000", "--runs", runs)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupted a few seconds into the benchmark itself, whatever up and
	// prepare took: its monitor then holds more than 5 samples.
	l.waitLoadBoxBenchmark(t)
	time.Sleep(8 * time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	t.Logf("interrupted run:\n%s", out.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("interrupted run exit %v, want 130", err)
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(runs, "latest"))
	if err != nil {
		t.Fatal(err)
	}
	if m := readJSON(t, filepath.Join(dir, "manifest.json")); m["status"] != "interrupted" {
		t.Errorf("status %v, want interrupted", m["status"])
	}
	r := l.mustOK(t, "collect", "-i", l.inventory, "--runs", runs)
	if !strings.Contains(r.stdout, "collect: ") {
		t.Errorf("collect printed no summary:\n%s", r.stdout)
	}
	r = l.mustOK(t, "collect", "-i", l.inventory, dir)
	if !strings.Contains(r.stdout, " 0 file(s) fetched") || strings.Contains(r.stdout, "updated") {
		t.Errorf("second collect was not a no-op:\n%s", r.stdout)
	}
	assertCompleteRun(t, dir, "interrupted", 5)
	l.assertNoPasswords(t, dir)
}

// waitLoadBoxBenchmark waits (at most 2 min) until the load box runs a
// client in its run phase (a sysbench command line ending in "run") and
// returns the load box's command lines read then.
func (l *lab) waitLoadBoxBenchmark(t *testing.T) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		argv := l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", `for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f"; echo; done`)
		for _, line := range strings.Split(argv.stdout, "\n") {
			if strings.Contains(line, "sysbench ") && strings.HasSuffix(strings.TrimSpace(line), " run") {
				return argv.stdout
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no benchmark running on the load box after 2 min:\n%s", argv.stdout)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRunStopsOnStall: with both slaves cut off and a semi-sync timeout that
// never falls back to async, the master stalls while its semi-sync status
// stays ON; the run is stopped after --stall-limit with that diagnosis
// instead of hanging until the benchmark's end.
func TestRunStopsOnStall(t *testing.T) {
	l := needLab(t)
	defer l.orch(t, "down", "-i", l.inventory)
	done := make(chan result, 1)
	go func() {
		done <- l.orch(t, "run", "-i", l.inventory, "--workload", "pure-random-writes", "--tables", "2",
			"--threads", "4", "--time", "120", "--table-size", "10000", "--stall-limit", "8s", "--runs", t.TempDir())
	}()
	// The links go down once the load runs, not at a fixed time: an up
	// that restarts every server (a profile left by the test before) can
	// take longer than any sleep, and cutting the slaves mid-restart is
	// another test (TestFaultLinkDropDuringUp).
	l.waitLoadBoxBenchmark(t)
	time.Sleep(2 * time.Second)
	l.fault(t, "slave1", "link-down")
	l.fault(t, "slave2", "link-down")
	defer l.fault(t, "slave2", "link-up")
	defer l.fault(t, "slave1", "link-up")
	var r result
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the run did not stop on a stalled master")
	}
	if r.code == 0 {
		t.Fatalf("a stalled run exited 0")
	}
	if !strings.Contains(r.stderr+r.stdout, "stall") {
		t.Errorf("no stall diagnosis:\n%s\n%s", r.stdout, r.stderr)
	}
	dir := runDir(t, r)
	m := readJSON(t, filepath.Join(dir, "manifest.json"))
	if m["status"] != "failed" || !strings.Contains(m["error"].(string), "stall") {
		t.Errorf("manifest: status %v, error %v", m["status"], m["error"])
	}
	if !strings.Contains(string(mustRead(t, filepath.Join(dir, "events.jsonl"))), `"stall"`) {
		t.Errorf("events.jsonl has no stall event")
	}
}
