package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/rundir"
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
