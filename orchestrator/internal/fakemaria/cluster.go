package fakemaria

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// Cluster is a connected cluster of simulated database hosts whose load box
// is this machine (its executor is the local one): the benchmark client is
// a script on PATH that prints a recorded client output, and records its
// arguments and password environment.
type Cluster struct {
	C   *cluster.Cluster
	Lab *Lab
	// Argv and Password are where the client writes its arguments (one a
	// line) and $MYSQL_PWD.
	Argv, Password string

	mode  string
	mu    sync.Mutex
	opens map[string]int
}

// NewCluster loads inventory (whose load box, if any, is this machine),
// sets HOME to a fresh directory (the load box user's home) and installs
// the client program, which prints output (a recorded file); "" installs
// no client.
func NewCluster(t testing.TB, inventory, program, output string) *Cluster {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	inv, err := topology.Load(inventory, topology.LoadOptions{HomeDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	f := &Cluster{Lab: NewLab(inv), Argv: filepath.Join(bin, "argv"), Password: filepath.Join(bin, "pw"),
		mode: filepath.Join(bin, "mode"), opens: map[string]int{}}
	if program != "" {
		f.installClient(t, bin, program, output)
	}
	dial := func(ctx context.Context, h *topology.Host, cfg executor.DialConfig) (executor.Executor, error) {
		if h.Role == topology.RoleLoadBox {
			return executor.NewLocal(h.Name), nil
		}
		return f.Lab.Dial(ctx, h, cfg)
	}
	open := func(ctx context.Context, h *topology.Host, ex executor.Executor) (*sql.DB, error) {
		f.mu.Lock()
		f.opens[h.Name]++
		f.mu.Unlock()
		return f.Lab.OpenDB(ctx, h, ex)
	}
	f.C = cluster.Connect(context.Background(), inv, inv.Hosts, cluster.Options{Dialer: dial, OpenDB: open})
	t.Cleanup(func() { f.C.Close() })
	return f
}

// Opens is how many connection pools were opened to the host's server: one
// per session.
func (f *Cluster) Opens(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.opens[host]
}

// ClientMode makes the client hang until stopped ("hang") or fail with a
// lost connection ("fail"); "" restores the recorded output.
func (f *Cluster) ClientMode(t testing.TB, mode string) {
	t.Helper()
	if err := os.WriteFile(f.mode, []byte(mode), 0o644); err != nil {
		t.Fatal(err)
	}
}

// installClient puts program on PATH: it records its arguments and
// password, then prints output or does what ClientMode says.
func (f *Cluster) installClient(t testing.TB, bin, program, output string) {
	t.Helper()
	sample, err := filepath.Abs(output)
	if err != nil {
		t.Fatal(err)
	}
	// --version answers as the lab's mariadb-slap 10.11 does, whatever
	// the mode: the load box's facts ask it before any run.
	script := "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'mariadb-slap  Ver 1.0 Distrib 10.11.19-MariaDB, for debian-linux-gnu (x86_64)'; exit 0; }\nprintf '%s\\n' \"$@\" > " + f.Argv + "\nprintf '%s' \"$MYSQL_PWD\" > " + f.Password + `
case "$(cat ` + f.mode + ` 2>/dev/null)" in
hang) echo "Benchmark"; sleep 60; exit 0 ;;
fail) echo "mariadb-slap: Error when connecting to server: 2013 Lost connection" >&2; exit 1 ;;
esac
cat ` + sample + "\n"
	if err := os.WriteFile(filepath.Join(bin, program), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}
