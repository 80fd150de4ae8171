package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

// fakeLab is a cluster of simulated MariaDB hosts, brought up by orch up,
// with this machine as its load box: the benchmark client is a script on
// PATH that prints what mariadb-slap printed on the lab and records its
// arguments and password environment.
type fakeLab struct {
	c      *cluster.Cluster
	lab    *fakemaria.Lab
	argv   string // where the fake client writes its arguments
	pwFile string // where it writes $MYSQL_PWD
	mode   string // "hang" or "fail" in this file changes what it does
}

// setMode makes the fake client hang (until stopped) or exit 1 after its
// output.
func (f *fakeLab) setMode(t *testing.T, mode string) {
	t.Helper()
	if err := os.WriteFile(f.mode, []byte(mode), 0o644); err != nil {
		t.Fatal(err)
	}
}

func newFakeLab(t *testing.T) *fakeLab {
	t.Helper()
	t.Setenv("ORCH_RUNNER_TEST_PW", "runner-test-pw")
	t.Setenv("ORCH_RUNNER_BENCH_PW", "bench-test-pw")
	t.Setenv("HOME", t.TempDir())
	inv, err := topology.Load("testdata/fakelab.yaml", topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	lab := fakemaria.NewLab(inv)
	dial := func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
		if h.Role == topology.RoleLoadBox {
			return executor.NewLocal(h.Name), nil
		}
		return lab.Dial(ctx, h, cfg)
	}
	c := cluster.Connect(context.Background(), inv, inv.Hosts, cluster.Options{Dialer: dial, OpenDB: lab.OpenDB})
	t.Cleanup(func() { c.Close() })
	if _, err := up.Up(context.Background(), c, up.Options{Desired: server.Desired{Engine: "innodb"}, VerifyTimeout: 5 * time.Second}); err != nil {
		t.Fatalf("up: %v", err)
	}
	bin := t.TempDir()
	sample, err := filepath.Abs("testdata/mariadb-slap-write-innodb.txt")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeLab{c: c, lab: lab, argv: filepath.Join(bin, "argv"), pwFile: filepath.Join(bin, "pw"), mode: filepath.Join(bin, "mode")}
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + f.argv + "\nprintf '%s' \"$MYSQL_PWD\" > " + f.pwFile + `
case "$(cat ` + f.mode + ` 2>/dev/null)" in
hang) echo "Benchmark"; sleep 60; exit 0 ;;
fail) echo "mariadb-slap: Error when connecting to server: 2013 Lost connection" >&2; exit 1 ;;
esac
cat ` + sample + "\n"
	if err := os.WriteFile(filepath.Join(bin, "mariadb-slap"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return f
}
