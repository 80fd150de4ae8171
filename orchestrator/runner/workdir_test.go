package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/rundir"
)

// Working directories are made by the SSH user in their home: unique per
// run even for the same run id, mode 0700.
func TestMakeWorkdirPrivateAndUnique(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ex := executor.NewLocal(rundir.LocalHost)
	ctx := context.Background()
	a, err := makeWorkdir(ctx, ex, "cell-001")
	if err != nil {
		t.Fatal(err)
	}
	b, err := makeWorkdir(ctx, ex, "cell-001")
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) != home || filepath.Dir(b) != home {
		t.Fatalf("workdirs %q and %q: want two different directories in %s", a, b, home)
	}
	for _, d := range []string{a, b} {
		st, err := os.Lstat(d)
		if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want a 0700 directory", d, st.Mode(), err)
		}
	}
}

// removeWorkdir deletes only orch's own directory in the user's home.
func TestRemoveWorkdirRefusesOthers(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ex := executor.NewLocal(rundir.LocalHost)
	ctx := context.Background()
	elsewhere := t.TempDir()
	victim := filepath.Join(elsewhere, "keep-me")
	os.WriteFile(victim, []byte("x"), 0o600)
	link := filepath.Join(home, rundir.WorkdirName("r")+".aaaaaaaaaa")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if err := removeWorkdir(ctx, ex, link); err == nil || !strings.Contains(err.Error(), "left in place") {
		t.Fatalf("a symlink was accepted as the working directory: %v", err)
	}
	outside := filepath.Join(elsewhere, rundir.WorkdirName("r")+".bbbbbbbbbb")
	os.Mkdir(outside, 0o700)
	if err := removeWorkdir(ctx, ex, outside); err == nil {
		t.Fatal("a directory outside the home was removed")
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the symlink's target was touched: %v", err)
	}
	d, err := makeWorkdir(ctx, ex, "r")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "run.out"), []byte("out"), 0o600)
	if err := removeWorkdir(ctx, ex, d); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(d); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", d, err)
	}
	if err := removeWorkdir(ctx, ex, d); err != nil {
		t.Fatalf("removing twice: %v", err)
	}
}

// cleanWorkdir waits for every expected file of the directory, then
// removes it and records that in the manifest.
func TestCleanWorkdirAfterCompleteCollect(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ex := executor.NewLocal(rundir.LocalHost)
	ctx := context.Background()
	d, err := rundir.Create(t.TempDir(), "w", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	wd, err := makeWorkdir(ctx, ex, filepath.Base(d.Path()))
	if err != nil {
		t.Fatal(err)
	}
	m := &rundir.Manifest{Status: rundir.StatusOK, Remote: &rundir.Remote{Host: rundir.LocalHost, Dir: wd}}
	if err := m.Expect(rundir.ExpectedFile{Host: rundir.LocalHost, Remote: wd + "/run.out", Local: rundir.BenchmarkRun, Kind: rundir.KindFile}); err != nil {
		t.Fatal(err)
	}
	if err := d.SaveManifest(m); err != nil {
		t.Fatal(err)
	}
	if removed, err := cleanWorkdir(ctx, d, ex); removed || err != nil {
		t.Fatalf("removed with run.out not collected: %v %v", removed, err)
	}
	d.UpdateManifest(func(m *rundir.Manifest) error { m.MarkDone(rundir.BenchmarkRun); return nil })
	if removed, err := cleanWorkdir(ctx, d, ex); !removed || err != nil {
		t.Fatalf("not removed after a complete collect: %v %v", removed, err)
	}
	if _, err := os.Lstat(wd); !os.IsNotExist(err) {
		t.Fatalf("%s still there", wd)
	}
	if m, _ := d.LoadManifest(); !m.Remote.Removed {
		t.Fatal("the manifest does not record the removal")
	}
}

// A matrix cell redone after a crash removes the last attempt's directory.
func TestRemoveStaleWorkdir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	ex := executor.NewLocal(rundir.LocalHost)
	ctx := context.Background()
	d, err := rundir.Create(t.TempDir(), "cell", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	old, err := makeWorkdir(ctx, ex, filepath.Base(d.Path()))
	if err != nil {
		t.Fatal(err)
	}
	other, err := makeWorkdir(ctx, ex, "another-run")
	if err != nil {
		t.Fatal(err)
	}
	for _, stale := range []string{other, old} {
		r := &run{dir: d, bhost: rundir.LocalHost, bexec: ex, logf: t.Logf, stale: &rundir.Remote{Host: rundir.LocalHost, Dir: stale}}
		r.removeStale(ctx)
	}
	if _, err := os.Lstat(old); !os.IsNotExist(err) {
		t.Errorf("the last attempt's directory %s is still there", old)
	}
	if _, err := os.Lstat(other); err != nil {
		t.Errorf("another run's directory was removed: %v", err)
	}
}
