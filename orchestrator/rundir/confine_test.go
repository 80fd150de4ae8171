package rundir

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
)

// TestCollectIsConfined (N5): whatever an edited manifest names, collect
// reads a benchmark output only inside the run's private directory under
// the SSH user's home and never through a symlink, and a log read as root
// never through one either (a *.err link in the datadir): the secret
// stays on the host. What it does fetch is 0600 in a 0700 run directory.
func TestCollectIsConfined(t *testing.T) {
	remote := remoteDir(t)
	secret := filepath.Join(t.TempDir(), "shadow")
	os.WriteFile(secret, []byte("root:$6$secret-hash:19000::::::\n"), 0o600)
	outside := t.TempDir() // under the test's HOME but open to others, like /tmp
	os.Chmod(outside, 0o1777)
	os.WriteFile(filepath.Join(outside, "run.out"), []byte("planted\n"), 0o644)
	os.Symlink(secret, filepath.Join(remote, "run.out"))
	os.Symlink(secret, filepath.Join(remote, "host.err"))
	os.WriteFile(filepath.Join(remote, "ok.log"), []byte("a log line\n"), 0o644)

	d, _ := collectSetup(t,
		ExpectedFile{Host: "loadbox", Remote: filepath.Join(remote, "run.out"), Local: BenchmarkRun, Kind: KindFile},
		ExpectedFile{Host: "loadbox", Remote: filepath.Join(outside, "run.out"), Local: BenchmarkPrepare, Kind: KindFile},
		ExpectedFile{Host: "master", Remote: filepath.Join(remote, "host.err"), Local: HostFile("master", HostErrorLog), Kind: KindLogSlice, Sudo: true},
		ExpectedFile{Host: "slave1", Remote: filepath.Join(remote, "ok.log"), Local: HostFile("slave1", HostErrorLog), Kind: KindLogSlice, Sudo: true},
	)
	hosts := map[string]executor.Executor{"loadbox": executor.NewLocal("loadbox"), "master": executor.NewLocal("master"), "slave1": executor.NewLocal("slave1")}
	rep, err := Collect(context.Background(), d, hosts)
	if err == nil {
		t.Fatal("collect fetched through a symlink or outside the run's directory")
	}
	for _, want := range []string{"run.out is a symlink", "is open to others", "host.err is a symlink"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	filepath.Walk(d.Path(), func(p string, fi os.FileInfo, _ error) error {
		if b, _ := os.ReadFile(p); fi != nil && !fi.IsDir() && strings.Contains(string(b), "secret-hash") {
			t.Errorf("%s holds the secret", p)
		}
		return nil
	})
	for _, f := range rep.Files {
		if f.Local == HostFile("slave1", HostErrorLog) && f.Outcome != Fetched {
			t.Errorf("the plain log was not fetched: %+v", f)
		}
	}
	for p, want := range map[string]os.FileMode{d.Path(): 0o700, filepath.Join(d.Path(), HostFile("slave1", HostErrorLog)): 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
}
