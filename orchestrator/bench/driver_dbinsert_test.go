package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func dbInsertWorkload(t *testing.T, yaml string) *Workload {
	t.Helper()
	w, err := ParseWorkload("dbi.yaml", []byte("tool: db-insert\n"+yaml))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestDBInsertStep(t *testing.T) {
	w := dbInsertWorkload(t, "options:\n  iterations: 3\n  cache_size: 1048576\n  key_size: 16\n  value_size: 100\n"+
		"  page_size: 4096\n  batch_size: 65536\n  transactions: true\n  transaction_size: 1000\n  compressibility: 2.5\n")
	if w.RunOn != "master" || w.Options.Engine != "tokudb" {
		t.Fatalf("defaults: run_on %q engine %q", w.RunOn, w.Options.Engine)
	}
	d, err := NewDriver(w)
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Step(PhaseRun, Target{Host: "10.0.0.1", Password: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	// The flags are the program's own (its usage line); iterations last.
	want := "'~/.orch/dbinsert/current/bin/db-insert' -x --keysize 16 --valsize 100 --cachesize 1048576 --pagesize 4096 " +
		"--periter 65536 --xcount 1000 --compressibility 2.5 3"
	if got := s.String(); got != want {
		t.Errorf("command\n got %s\nwant %s", got, want)
	}
	if s.SecretEnv != nil || strings.Contains(s.Script(), "secret") {
		t.Error("db-insert has no server: the password must go nowhere")
	}
	if err := w.Override(map[string]string{"engine": "bdb", "binary": "/opt/pft/db-insert"}); err != nil {
		t.Fatal(err)
	}
	s, _ = d.Step(PhaseRun, Target{})
	if s.Argv[0] != "/opt/pft/db-insert-bdb" || !strings.Contains(s.Script(), "bench.bdb") {
		t.Errorf("bdb step: %v\n%s", s.Argv, s.Script())
	}
	if _, err := d.Step(PhasePrepare, Target{}); err == nil {
		t.Error("db-insert has no prepare phase")
	}
}

func TestDBInsertWorkloadErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"options:\n  engine: innodb\n":             `options.engine: "innodb" is not a library db-insert is built against (tokudb, bdb)`,
		"options:\n  transaction_size: 10\n":       "options.transaction_size: needs transactions: true",
		"options:\n  compressibility: lots\n":      `options.compressibility: "lots" is not a positive number`,
		"options:\n  compressibility: -1\n":        `options.compressibility: "-1" is not a positive number`,
		"workdir: /tmp\n":                          "workdir: db-insert runs in the run's own fresh working directory",
		"options:\n  threads: 4\n":                 "options.threads: does not apply to tool db-insert",
		"options:\n  page_size: 100\n":             "options.page_size: 100 is below the minimum 512",
		"options:\n  iterations: 0\n":              "options.iterations: 0 is below the minimum 1",
		"options:\n  cache_size: 0\n":              "options.cache_size: 0 is below the minimum 1",
		"options:\n  key_size: 8\nprepare: true\n": "prepare: db-insert has no prepare phase",
	} {
		_, err := ParseWorkload("dbi.yaml", []byte("tool: db-insert\n"+yaml))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %s", yaml, err, want)
		}
	}
}

// TestDBInsertScript runs the step's script with sh: a missing program is
// named with the hint, and the program's exit status survives the size line.
func TestDBInsertScript(t *testing.T) {
	dir := t.TempDir()
	w := dbInsertWorkload(t, "binary: "+filepath.Join(dir, "nothere")+"\n")
	d, _ := NewDriver(w)
	s, _ := d.Step(PhaseRun, Target{})
	out, err := exec.Command("sh", "-c", s.Script()).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 127 || !strings.Contains(string(out), "nothere is not an executable program on this host: build both programs with `orch dbinsert --source PERCONAFT`") {
		t.Fatalf("missing program: %v %s", err, out)
	}
	// A stand-in that makes the database directory and fails: the size
	// line still comes, the status is the program's.
	prog := filepath.Join(dir, "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\nmkdir bench.tokudb && head -c 8192 /dev/zero > bench.tokudb/f && exit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w = dbInsertWorkload(t, "binary: "+prog+"\n")
	d, _ = NewDriver(w)
	s, _ = d.Step(PhaseRun, Target{})
	cmd := exec.Command("sh", "-c", s.Script())
	cmd.Dir = dir
	out, err = cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("status: %v %s", err, out)
	}
	res, perr := ParseDBInsert("run.out", bytes.NewReader(out))
	if perr == nil || res == nil {
		t.Fatalf("parse %q: %v %+v", out, perr, res)
	}
	if res.DBDir != "bench.tokudb" || res.DBBytes == nil || *res.DBBytes < 8192 {
		t.Errorf("size line %q read as %q %v", out, res.DBDir, res.DBBytes)
	}
	if res.CPUUserS == nil || res.CPUSysS == nil || *res.CPUUserS < 0 {
		t.Errorf("cpu line %q read as %v %v", out, res.CPUUserS, res.CPUSysS)
	}
	if _, err := os.Stat(filepath.Join(dir, ".orch-times")); err != nil {
		t.Errorf("times file: %v", err)
	}
}
