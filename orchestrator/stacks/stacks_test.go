package stacks

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func names(fr []Frame) []string {
	var out []string
	for _, f := range fr {
		s := f.Func
		if f.Lib {
			s = "lib:" + s
		}
		out = append(out, s)
	}
	return out
}

func TestParseGDB(t *testing.T) {
	r := ParseGDB(read(t, "gdb.txt"))
	if r.Snapshots != 2 || len(r.Stacks) != 5 {
		t.Fatalf("%d snapshots, %d stacks, want 2 and 5", r.Snapshots, len(r.Stacks))
	}
	want := []string{"lib:__futex_abstimed_wait_common64", "lib:__pthread_cond_wait_common", "Repl_semi_sync_master::commit_trx",
		"MYSQL_BIN_LOG::write_transaction_to_binlog", "lib:start_thread"}
	if got := names(r.Stacks[0]); !reflect.DeepEqual(got, want) {
		t.Errorf("first stack\n got %v\nwant %v", got, want)
	}
	want = []string{"lib:fdatasync", "(anonymous namespace)::log_flush", "lib:start_thread"}
	if got := names(r.Stacks[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("second stack\n got %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(r.PausesMs, []float64{412, 380.5}) {
		t.Errorf("pauses %v", r.PausesMs)
	}
	if !reflect.DeepEqual(r.Errors, []string{"gdb exited 1"}) {
		t.Errorf("errors %v", r.Errors)
	}
}

func TestProfileAggregates(t *testing.T) {
	r := ParseGDB(read(t, "gdb.txt"))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := NewProfile("master", "master", GDB, at, at.Add(3*time.Second), r)
	if p.Samples != 5 || len(p.Stacks) != 3 {
		t.Fatalf("%d samples in %d stacks, want 5 in 3", p.Samples, len(p.Stacks))
	}
	// Two stacks seen twice each: the tie is broken by key, alphabetically.
	if p.Stacks[0].Count != 2 || p.Stacks[1].Count != 2 || p.Stacks[2].Count != 1 {
		t.Errorf("counts %d %d %d", p.Stacks[0].Count, p.Stacks[1].Count, p.Stacks[2].Count)
	}
	if p.Stacks[0].Key() != "__GI___sigtimedwait,signal_hand,start_thread" || !strings.HasPrefix(p.Stacks[1].Key(), "__futex_abstimed_wait_common64,") {
		t.Errorf("order: %q then %q", p.Stacks[0].Key(), p.Stacks[1].Key())
	}
	if got := p.Share(p.Stacks[1]); got != 0.4 {
		t.Errorf("share %v, want 0.4", got)
	}
	if p.MaxPauseMs == nil || *p.MaxPauseMs != 412 {
		t.Errorf("max pause %v", p.MaxPauseMs)
	}
	fs := FuncShares(p)
	// Server frames only, inclusive: 2 of 5 samples commit through semi-sync.
	want := map[string]float64{"Repl_semi_sync_master::commit_trx": 0.4, "MYSQL_BIN_LOG::write_transaction_to_binlog": 0.4,
		"signal_hand": 0.4, "(anonymous namespace)::log_flush": 0.2}
	if len(fs) != len(want) {
		t.Fatalf("func shares %v", fs)
	}
	for _, f := range fs {
		if want[f.Func] != f.Share {
			t.Errorf("%s share %v, want %v", f.Func, f.Share, want[f.Func])
		}
	}
}

func TestAggregateDepth(t *testing.T) {
	a := []Frame{{Func: "a"}, {Func: "b"}, {Func: "c"}}
	b := []Frame{{Func: "a"}, {Func: "b"}, {Func: "d"}}
	got := Aggregate([][]Frame{a, b, nil, {{Func: "z"}}}, 2)
	if len(got) != 2 || got[0].Key() != "a,b" || got[0].Count != 2 || got[1].Key() != "z" {
		t.Errorf("%+v", got)
	}
}

func TestParsePerf(t *testing.T) {
	r := ParsePerf(read(t, "perf.txt"))
	if len(r.Stacks) != 3 {
		t.Fatalf("%d stacks", len(r.Stacks))
	}
	if got, want := names(r.Stacks[0]), []string{"lib:__GI___poll", "do_handle_one_connection"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	if got, want := names(r.Stacks[1]), []string{"lib:copy_user_generic_string", "MYSQL_BIN_LOG::write_transaction_to_binlog"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	p := NewProfile("m", "master", Perf, time.Time{}, time.Time{}, r)
	if p.Samples != 3 || p.Stacks[0].Count != 2 || p.MaxPauseMs != nil {
		t.Errorf("%+v", p)
	}
}

func TestModes(t *testing.T) {
	for in, want := range map[string]Mode{"": Auto, "on": Auto, "OFF": Off, "gdb": GDB, "perf": Perf} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseMode("dtrace"); err == nil || !strings.Contains(err.Error(), "dtrace") {
		t.Errorf("bad mode: %v", err)
	}
	cases := []struct {
		m    Mode
		have []string
		want Mode
	}{{Auto, []string{"perf", "gdb"}, Perf}, {Auto, []string{"perf"}, Perf}, {Auto, []string{"gdb"}, Off}, {Auto, nil, Off},
		{GDB, []string{"perf", "gdb"}, GDB}, {Perf, []string{"gdb"}, ""}, {Off, []string{"gdb"}, Off}}
	for _, c := range cases {
		if got := Pick(c.m, c.have); got != c.want {
			t.Errorf("Pick(%s, %v) = %q, want %q", c.m, c.have, got, c.want)
		}
	}
}

// The scripts are shell text: they must parse, quote the pid file, and
// say so when there is no pid rather than run a tool on nothing.
func TestScriptsWithoutPid(t *testing.T) {
	pf := t.TempDir() + "/no such 'dir'/$(touch x).pid"
	for _, s := range []string{GDBScript(pf, 2, 100*time.Millisecond), PerfScript(pf, time.Second)} {
		out, err := exec.Command("/bin/sh", "-c", s).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if strings.TrimSpace(string(out)) != "@error no pid in the server's pid file" {
			t.Errorf("output %q", out)
		}
	}
}

// gdb for real, on a sleeping child of this test: the script's output
// must parse into a stack and a timed pause.
func TestGDBScriptOnAProcess(t *testing.T) {
	if _, err := exec.LookPath("gdb"); err != nil {
		t.Skip("gdb is not installed here")
	}
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	pf := t.TempDir() + "/child.pid"
	if err := os.WriteFile(pf, []byte(strings.TrimSpace(strconv.Itoa(child.Process.Pid))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("/bin/sh", "-c", GDBScript(pf, 1, 0)).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	r := ParseGDB(string(out))
	if r.Snapshots != 1 || len(r.Stacks) == 0 || len(r.PausesMs) != 1 || r.PausesMs[0] <= 0 {
		t.Fatalf("parsed %+v from:\n%s", r, out)
	}
	found := false
	for _, f := range r.Stacks[0] {
		found = found || strings.Contains(f.Func, "sleep") || strings.Contains(f.Func, "main")
	}
	if !found {
		t.Errorf("no sleep or main frame in %v", names(r.Stacks[0]))
	}
}

// Real output of GDBScript: one snapshot of the lab master's mariadbd
// under sysbench oltp_insert, captured in a profiling tail. The stop is
// the time between the instants noted around attach and detach (gdb's
// start-up and the executable's symbols are outside it); every thread's
// stack parses, including the commits waiting in the binlog group commit.
func TestParseGDBFromTheLab(t *testing.T) {
	r := ParseGDB(read(t, "gdb-lab-master.txt"))
	if r.Snapshots != 1 || len(r.Stacks) != 31 {
		t.Fatalf("%d snapshots, %d stacks, want 1 and 31 (the threads)", r.Snapshots, len(r.Stacks))
	}
	if len(r.PausesMs) != 1 || r.PausesMs[0] != float64(1796156342070694535-1796156341812232211)/1e6 {
		t.Errorf("pauses %v, want the one stop of 258.46 ms", r.PausesMs)
	}
	if len(r.Errors) != 0 {
		t.Errorf("errors %v", r.Errors)
	}
	p := NewProfile("master", "master", GDB, time.Time{}, time.Time{}, r)
	waiting := 0
	for _, s := range p.Stacks {
		if strings.Contains(s.Key(), "MYSQL_BIN_LOG::write_transaction_to_binlog_events") {
			waiting += s.Count
		}
	}
	if waiting != 4 {
		t.Errorf("%d threads in write_transaction_to_binlog_events, want the 4 sysbench connections", waiting)
	}
	for _, s := range p.Stacks {
		for _, f := range s.Frames {
			if strings.HasPrefix(f.Func, "@") || strings.Contains(f.Func, "stop_") {
				t.Errorf("a marker inside a stack: %q", s.Key())
			}
		}
	}
}

// TestResumeScript runs the script with bash on a real process: one left
// stopped (SIGSTOP, as an attach that never detached leaves a server) is
// continued; one running is left alone.
func TestResumeScript(t *testing.T) {
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	pf := filepath.Join(t.TempDir(), "server.pid")
	if err := os.WriteFile(pf, []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", child.Process.Pid))
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "State:"); ok {
				return strings.Fields(v)[0]
			}
		}
		return ""
	}
	run := func() string {
		out, err := exec.Command("bash", "-c", ResumeScript(pf)).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return string(out)
	}
	if out := run(); strings.Contains(out, "@resumed") {
		t.Errorf("a running process was continued: %q", out)
	}
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for i := 0; state() != "T" && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if state() != "T" {
		t.Fatalf("the child did not stop: %s", state())
	}
	if out := run(); !strings.Contains(out, "@resumed") {
		t.Errorf("a stopped process was not continued: %q", out)
	}
	for i := 0; state() == "T" && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if s := state(); s == "T" {
		t.Errorf("still stopped after the script")
	}
}
