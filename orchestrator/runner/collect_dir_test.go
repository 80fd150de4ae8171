package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/topology"
)

// TestCollectSaysWhatItDid: only files that were complete already count as
// present; a missing or failed one is its own line, not "already present".
func TestCollectSaysWhatItDid(t *testing.T) {
	res := &CollectResult{Report: &rundir.CollectReport{Files: []rundir.FileReport{
		{Host: "loadbox", Remote: "/w/out.txt", Local: "benchmark/out.txt", Outcome: rundir.Fetched, Written: 2048, WireBytes: 512, ResumedAt: 1024},
		{Host: "master", Remote: "/var/log/mysql/error.log", Local: "hosts/master/error.log", Outcome: rundir.Present},
		{Host: "slave1", Remote: "/var/log/mysql/error.log", Local: "hosts/slave1/error.log", Outcome: rundir.Missing},
		{Host: "slave2", Remote: "/var/log/mysql/error.log", Local: "hosts/slave2/error.log", Outcome: rundir.Failed, Error: errors.New("connection reset").Error()},
	}}, Parsed: true}
	var b strings.Builder
	res.write(&b, "runs/r1")
	want := []string{
		"fetched loadbox:/w/out.txt -> benchmark/out.txt (2048 bytes, 512 on the wire, resumed at 1024)",
		"missing slave1:/var/log/mysql/error.log -> hosts/slave1/error.log",
		"failed slave2:/var/log/mysql/error.log -> hosts/slave2/error.log connection reset",
		"collect: runs/r1: 1 file(s) fetched, 1 already present",
		"collect: results.json updated from the benchmark output",
	}
	got := b.String()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("output lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "master:") || strings.Contains(got, "still running") {
		t.Errorf("a present file or a running benchmark was reported:\n%s", got)
	}
}

// TestCollectDirFetchesWhatTheRunDirectoryLacks: orch collect on a run
// directory whose benchmark output was lost finds the inventory the run
// recorded, fetches the file back from the load box (the run kept its
// working directory) and says so; a second collect finds it present.
func TestCollectDirFetchesWhatTheRunDirectoryLacks(t *testing.T) {
	f := newFakeLab(t)
	w, err := bench.LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: w, Engine: "innodb", Root: root, Version: "test", KeepRemote: true,
		Logf: func(string, ...any) {}})
	if err != nil {
		t.Fatal(err)
	}
	local := filepath.Join(out.Dir.Path(), "benchmark", "run.txt")
	want, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(local); err != nil {
		t.Fatal(err)
	}
	connect := func(context.Context, *topology.Inventory) *cluster.Cluster { return f.C }
	var said strings.Builder
	if err := CollectDir(context.Background(), CollectOptions{Root: root, Access: &Access{}, KeepRemote: true, Out: &said, Connect: connect}); err != nil {
		t.Fatalf("collect: %v\n%s", err, said.String())
	}
	got, err := os.ReadFile(local)
	if err != nil || string(got) != string(want) {
		t.Fatalf("benchmark/run.txt after collect: %v, %d bytes, want %d", err, len(got), len(want))
	}
	if !strings.Contains(said.String(), "fetched lb:") || !strings.Contains(said.String(), "-> benchmark/run.txt") {
		t.Errorf("collect did not say it fetched the output:\n%s", said.String())
	}
	said.Reset()
	if err := CollectDir(context.Background(), CollectOptions{Dir: out.Dir.Path(), Access: &Access{}, KeepRemote: true, Out: &said, Connect: connect}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(said.String(), "fetched lb:") || !strings.Contains(said.String(), "0 file(s) fetched") {
		t.Errorf("a second collect fetched again:\n%s", said.String())
	}
}

// CollectDir's bad input is an InputError, before any host.
func TestCollectDirBadInput(t *testing.T) {
	for name, o := range map[string]CollectOptions{
		"no such directory": {Dir: filepath.Join(t.TempDir(), "nope"), Access: &Access{}},
		"no run yet":        {Root: t.TempDir(), Access: &Access{}},
	} {
		err := CollectDir(context.Background(), o)
		if !orchestrator.IsBadInput(err) {
			t.Errorf("%s: %v, want bad input", name, err)
		}
	}
}
