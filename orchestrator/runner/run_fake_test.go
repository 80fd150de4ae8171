package runner

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/step"
)

// TestRunOnTheFakeLab: a whole run of mariadb-slap on a semi-sync cluster:
// the client reaches the master at its address with the benchmark account
// (password in its environment only), every server is snapshotted before
// and after and watched throughout, the slaves catch up, and the run
// directory ends complete and free of passwords; up and the run open each
// server once.
func TestRunOnTheFakeLab(t *testing.T) {
	f := newFakeLab(t)
	w, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	// The command's stream, as orch run hands it over: up's steps and its
	// whole time, before the run directory exists.
	events := &step.Stream{}
	events.Begin("", "up")
	events.End("db2", "restart", 900*time.Millisecond)
	events.End("", "up", 1500*time.Millisecond)
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "test",
		Events: events, Logf: func(format string, args ...any) { logs = append(logs, format) }})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, strings.Join(logs, "\n"))
	}
	if out.Status != rundir.StatusOK {
		t.Fatalf("status %s", out.Status)
	}
	argv, err := os.ReadFile(f.Argv)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--host=192.0.2.11", "--port=3306", "--user=sbtest"} {
		if !strings.Contains(string(argv), want+"\n") {
			t.Errorf("client argv lacks %s:\n%s", want, argv)
		}
	}
	if strings.Contains(string(argv), "bench-test-pw") {
		t.Error("the password is in the client's argv")
	}
	if pw, _ := os.ReadFile(f.Password); string(pw) != "bench-test-pw" {
		t.Errorf("client's MYSQL_PWD %q", pw)
	}
	dir := out.Dir.Path()
	for _, rel := range []string{"benchmark/run.txt", "hosts/db1/status.before.tsv", "hosts/db2/status.after.tsv",
		"hosts/db3/variables.before.tsv", "hosts/db1/replication.before.json", "results.json", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	if out.Results == nil || out.Results.Benchmark.Result == nil {
		t.Fatalf("results %+v", out.Results)
	}
	// Where orch's own time went: the up it was given, and every phase.
	ph := out.Results.Phases
	if ph["up"] != 1.5 {
		t.Errorf("phases_s up = %v, want the 1.5 s given", ph["up"])
	}
	for _, name := range []string{"connect", "snapshot", "prepare", "run", "checks"} {
		if v, ok := ph[name]; !ok || v < 0 {
			t.Errorf("phases_s lacks %s: %v", name, ph)
		}
	}
	// One stream: events.jsonl holds up's steps and every phase, and each
	// phase's took_s there is its phases_s here, the same number.
	lines, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]float64{}
	restart := false
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var e struct {
			Host, Kind, Detail string
			TookS              float64 `json:"took_s"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("events.jsonl: %q: %v", l, err)
		}
		switch {
		case e.Kind == "step_end" && e.Host == "":
			ends[e.Detail] += e.TookS
		case e.Kind == "step_end" && e.Host == "db2" && e.Detail == "restart" && e.TookS == 0.9:
			restart = true
		}
	}
	if !restart || len(ends) != len(ph) {
		t.Errorf("events.jsonl: up's restart %v, phase ends %v, phases_s %v", restart, ends, ph)
	}
	for name, v := range ph {
		if ends[name] != v {
			t.Errorf("phase %s: events.jsonl says %v s, phases_s %v s", name, ends[name], v)
		}
	}
	m, err := out.Dir.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Status != rundir.StatusOK || m.End.IsZero() || m.Servers["db2"] == "" {
		t.Errorf("manifest: status %s, end %v, servers %v", m.Status, m.End, m.Servers)
	}
	// The console's summary is the run directory's.
	var console strings.Builder
	out.Write(&console)
	for _, want := range []string{"run ok: " + dir + "\n", "  mysqlslap-write (mysqlslap): 4.89 s to run all queries"} {
		if !strings.Contains(console.String(), want) {
			t.Errorf("console lacks %q:\n%s", want, console.String())
		}
	}
	// orch collect finds the inventory the run recorded, and the
	// known_hosts it ran with when none is given.
	acc := &Access{}
	if src, err := acc.FromManifest(out.Dir); err != nil || !strings.HasSuffix(src, "testdata/fakelab.yaml") || acc.KnownHosts != "/dev/null" {
		t.Errorf("the recorded inventory: %q, %v (known_hosts %q)", src, err, acc.KnownHosts)
	}
	// up and the run share one session per server.
	for _, h := range []string{"db1", "db2", "db3"} {
		if n := f.Opens(h); n != 1 {
			t.Errorf("%s opened %d times by up and the run, want once", h, n)
		}
	}
	// What the run sent each host is in its command log: the load box got
	// the client's script (the up before the run is not in it).
	for _, h := range []string{"db1", "db2", "db3", "lb"} {
		b, err := os.ReadFile(filepath.Join(out.Dir.HostDir(h), rundir.HostCommands))
		if err != nil || !strings.Contains(string(b), `"kind":"shell"`) {
			t.Errorf("%s: command log %v:\n%s", h, err, b)
		}
		if h == "lb" && !strings.Contains(string(b), "mariadb-slap") {
			t.Errorf("the load box's command log lacks the client's script:\n%s", b)
		}
	}
}

// TestRunRefusedWhileTheServerIsLocked: while another connection holds the
// cluster's benchmark lock (orch.benchmark.fake: another orch run of this
// cluster, from any load box), a run fails before it touches the dataset
// or starts a client, naming the holder; once the lock is free a run goes,
// and lets the lock go at its end. The one server-wide name of before,
// orch.benchmark, held by any session, no longer blocks it.
func TestRunRefusedWhileTheServerIsLocked(t *testing.T) {
	f := newFakeLab(t)
	w, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s, err := f.C.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := s.Master.DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"orch.benchmark", "orch.benchmark.fake"} {
		var got int
		if err := other.QueryRowContext(ctx, "SELECT GET_LOCK('"+name+"', 0)").Scan(&got); err != nil || got != 1 {
			t.Fatalf("GET_LOCK(%s) from another connection: %d, %v", name, got, err)
		}
	}
	master := f.Lab.Hosts[0].Server() // db1, the master
	from := master.StatementCount()
	os.Remove(f.Argv)
	out, err := Run(ctx, Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "db1") || !strings.Contains(err.Error(), "orch@localhost") {
		t.Fatalf("run beside a held lock: %v", err)
	}
	if out.Status != rundir.StatusFailed {
		t.Errorf("status %s, want failed", out.Status)
	}
	for _, q := range master.Statements(from) {
		if strings.Contains(q, "CREATE") || strings.Contains(q, "DROP") {
			t.Errorf("the refused run changed the dataset: %s", q)
		}
	}
	if b, _ := os.ReadFile(f.Argv); strings.Contains(string(b), "--host=") { // --version is only asked
		t.Errorf("the refused run started a client against the server: %s", b)
	}

	if _, err := other.ExecContext(ctx, "DO RELEASE_LOCK('orch.benchmark.fake')"); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(ctx, Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: t.TempDir(), Version: "test"}); err != nil {
		t.Fatalf("run once the cluster's lock is free, beside a session holding orch.benchmark: %v", err)
	}
	if n := master.HeldLocks(); n != 1 { // the other session's orch.benchmark
		t.Errorf("%d locks held after the run, want the other session's 1", n)
	}
	other.Close()
}
