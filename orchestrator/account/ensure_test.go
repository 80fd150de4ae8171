package account

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/step"
	"github.com/orch-bench/orch/topology"
)

// shellOf is a host whose shell is this machine's, with SERVER_NAME set
// to the host's name: the stand-in client below serves each host's root
// socket from one script.
type shellOf struct {
	executor.Executor
	name string
}

func (s shellOf) Run(ctx context.Context, c executor.Command) (executor.Result, error) {
	env := map[string]string{"SERVER_NAME": s.name}
	for k, v := range c.Env {
		env[k] = v
	}
	c.Env = env
	return s.Executor.Run(ctx, c)
}

// standInClient installs a `mariadb` on PATH that appends what each host's
// root session was fed to a log ("host: statement" lines), answers every
// query with no row (a stock server: no account, no schema of orch's) and
// fails, as a server does, when refuse (host:text) matches its input, or
// hangs (as a server whose disk is stuck) when hang does.
func standInClient(t *testing.T, refuse string, hang ...string) (log func() []string) {
	t.Helper()
	bin := t.TempDir()
	logFile := filepath.Join(bin, "fed")
	script := `#!/bin/sh
in=$(cat)
printf '%s\n' "$in" | sed "s/^/$SERVER_NAME: /" >> ` + logFile + `
case "$SERVER_NAME:$in" in
` + strings.Join(append(hang, "no-such-host:"), "|") + `*) exec sleep 30 ;;
` + refuse + `*) echo "ERROR 1396 (HY000) at line 3: Operation CREATE USER failed for 'orch'@'localhost'" >&2; exit 1 ;;
esac
exit 0
`
	if err := os.WriteFile(filepath.Join(bin, "mariadb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	return func() []string {
		b, _ := os.ReadFile(logFile)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
}

func ensureOn(t *testing.T, inv *topology.Inventory, events *step.Stream) error {
	return ensureCtx(context.Background(), t, inv, events)
}

func ensureCtx(ctx context.Context, t *testing.T, inv *topology.Inventory, events *step.Stream) error {
	t.Helper()
	dir, err := StateDir(inv)
	if err != nil {
		t.Fatal(err)
	}
	Resolve(inv, dir) // as the command's inventory loading does
	c := cluster.Connect(ctx, inv, inv.Hosts, cluster.Options{Dialer: func(_ context.Context, h *topology.Host, _ executor.DialConfig) (executor.Executor, error) {
		return shellOf{executor.NewLocal(h.Name), h.Name}, nil
	}})
	defer c.Close()
	return Ensure(ctx, c, EnsureOptions{Events: events})
}

// fedTo is what host's root session received, in order.
func fedTo(log []string, host string) []string {
	var out []string
	for _, l := range log {
		if s, ok := strings.CutPrefix(l, host+": "); ok {
			out = append(out, s)
		}
	}
	return out
}

// TestEnsureTakesBackAFailedHostsAccounts: orch's accounts are made on
// every stock host in parallel, as steps; when one host refuses, every
// host's accounts made by this up are dropped (binary logging off, as they
// were made) and their names taken out of orch's record, and the error
// says so. Nothing is dropped on a host where up succeeded alone.
func TestEnsureTakesBackAFailedHostsAccounts(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	log := standInClient(t, `slave2:*"CREATE USER"`)
	events := &step.Stream{}
	var said []string
	events.Subscribe(func(e step.Event) {
		if e.Kind == step.Ended {
			said = append(said, e.Host+" "+e.Step)
		}
	})
	err := ensureOn(t, loadInv(t, stockHosts), events)
	if err == nil || !strings.HasPrefix(err.Error(), "slave2 ") || !strings.Contains(err.Error(), "Operation CREATE USER failed") ||
		!strings.HasSuffix(err.Error(), "(up took back what it had done to the accounts)") {
		t.Fatalf("error: %v", err)
	}
	all := log()
	for _, h := range []string{"master", "slave1", "slave2"} {
		fed := strings.Join(fedTo(all, h), "\n")
		i := strings.LastIndex(fed, "SET SESSION sql_log_bin = 0;\nDROP USER IF EXISTS 'orch'@'localhost';\nDROP USER IF EXISTS 'orch'@'127.0.0.1'")
		j := strings.LastIndex(fed, "DELETE FROM `orch`.`orch_owned` WHERE (kind = 'account' AND name = 'orch@localhost')")
		if i < 0 || j < i {
			t.Errorf("%s: the accounts made were not dropped with binary logging off, then taken out of the record:\n%s", h, fed)
		}
	}
	if fed := strings.Join(fedTo(all, "master"), "\n"); !strings.Contains(fed, "DROP USER IF EXISTS 'orch_bench'@'10.0.0.14'") {
		t.Errorf("master: the benchmark accounts were not dropped:\n%s", fed)
	}
	undone := 0
	for _, s := range said {
		if strings.Contains(s, " undo ") {
			undone++
		}
	}
	if undone != 6 { // record and accounts, on each of the three hosts
		t.Errorf("undo steps said: %d, want 6: %q", undone, said)
	}
}

// On success nothing is taken back, and a second run has nothing to add
// to the record.
func TestEnsureMakesAndKeeps(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	log := standInClient(t, "no-such-host:")
	if err := ensureOn(t, loadInv(t, stockHosts), nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range log() {
		if strings.Contains(l, "DROP USER") || strings.Contains(l, "DELETE FROM") {
			t.Errorf("a successful up took something back: %s", l)
		}
	}
	for _, h := range []string{"master", "slave1", "slave2"} {
		if fed := strings.Join(fedTo(log(), h), "\n"); !strings.Contains(fed, "CREATE USER IF NOT EXISTS 'orch'@'localhost'") {
			t.Errorf("%s: no account made:\n%s", h, fed)
		}
	}
}

// TestEnsureInterruptedIsTakenBack: a Ctrl-C while one host hangs stops
// up, and the accounts it had made elsewhere are still dropped: the
// interrupt must not stop the undoing.
func TestEnsureInterruptedIsTakenBack(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	log := standInClient(t, "no-such-host:", `slave2:*"CREATE USER"*`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := &step.Stream{}
	made := 0
	events.Subscribe(func(e step.Event) {
		if e.Kind == step.Ended && strings.HasPrefix(e.Step, StepAccounts+" ") {
			if made++; made == 2 { // master and slave1 are done; slave2 hangs
				cancel()
			}
		}
	})
	err := ensureCtx(ctx, t, loadInv(t, stockHosts), events)
	if err == nil || !strings.Contains(err.Error(), "(up took back what it had done to the accounts)") {
		t.Fatalf("error: %v", err)
	}
	for _, h := range []string{"master", "slave1"} {
		if fed := strings.Join(fedTo(log(), h), "\n"); !strings.Contains(fed, "DROP USER IF EXISTS 'orch'@'localhost'") {
			t.Errorf("%s: the accounts made before the interrupt were not dropped:\n%s", h, fed)
		}
	}
}

// TestRefusedUpWritesNothing: a DBA's own orch@localhost stops up before
// anything is written, password files included; so the next identical up
// finds no file of orch's and stops the same way (the review's second up
// took the DBA's accounts over on the first one's password files).
func TestRefusedUpWritesNothing(t *testing.T) {
	state := t.TempDir()
	t.Setenv(EnvStateDir, state)
	bin := t.TempDir()
	fed := filepath.Join(bin, "fed")
	// A server where orch@localhost exists and orch's record does not.
	script := `#!/bin/sh
in=$(cat)
printf '%s\n' "$in" >> ` + fed + `
case "$in" in *"FROM mysql.user"*) echo "orch@localhost" ;; esac
exit 0
`
	if err := os.WriteFile(filepath.Join(bin, "mariadb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	for i := 1; i <= 2; i++ {
		err := ensureOn(t, loadInv(t, stockHosts), nil)
		if err == nil || !strings.Contains(err.Error(), "account 'orch'@'localhost' exists and orch did not make it") {
			t.Fatalf("up %d: %v", i, err)
		}
		var files []string
		filepath.WalkDir(state, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files = append(files, p)
			}
			return nil
		})
		if len(files) != 0 {
			t.Fatalf("up %d was refused yet wrote %v", i, files)
		}
	}
	b, _ := os.ReadFile(fed)
	for _, w := range []string{"CREATE", "ALTER", "GRANT", "INSERT", "DROP"} {
		if strings.Contains(string(b), w) {
			t.Errorf("a refused up sent %s:\n%s", w, b)
		}
	}
}

// TestNewHostTreatedAsAnyServer: orch's password files exist (the cluster
// was up before) and a host added since has a DBA's orch@localhost that
// its record does not list: up stops there, as on any server, instead of
// taking the password files as proof (the review's new host was taken
// over the same way as a refused up's).
func TestNewHostTreatedAsAnyServer(t *testing.T) {
	t.Setenv(EnvStateDir, t.TempDir())
	inv := loadInv(t, stockHosts)
	dir, err := StateDir(inv)
	if err != nil {
		t.Fatal(err)
	}
	Resolve(inv, dir)
	if err := Generate(inv); err != nil { // an earlier up's files
		t.Fatal(err)
	}
	bin := t.TempDir()
	script := `#!/bin/sh
in=$(cat)
case "$SERVER_NAME:$in" in slave2:*"FROM mysql.user"*) echo "orch@localhost" ;; esac
exit 0
`
	if err := os.WriteFile(filepath.Join(bin, "mariadb"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	err = ensureOn(t, loadInv(t, stockHosts), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "slave2 ") || !strings.Contains(err.Error(), "account 'orch'@'localhost' exists and orch did not make it") {
		t.Fatalf("up with a new host holding a DBA's account: %v", err)
	}
}
