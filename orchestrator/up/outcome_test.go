package up

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// box answers the no-op reachability command, or fails it like a host
// whose SSH connection is gone.
type box struct{ gone bool }

func (b box) Run(context.Context, executor.Command) (executor.Result, error) {
	if b.gone {
		return executor.Result{}, errors.New("open session: connection lost; reconnecting failed: i/o timeout")
	}
	return executor.Result{}, nil
}
func (box) Upload(context.Context, io.Reader, string, os.FileMode, bool) error { return nil }
func (box) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, nil
}
func (box) Name() string { return "box" }
func (box) Close() error { return nil }

func node(name, addr string, gone bool) *server.Node {
	return &server.Node{Host: &topology.Host{Name: name, Address: addr}, Exec: box{gone: gone}}
}

// TestApplyFailedSaysWhereEachHostIs: after a failed apply the error keeps
// each host's own error and then says, for every host, what was done on it.
func TestApplyFailedSaysWhereEachHostIs(t *testing.T) {
	nodes := []*server.Node{node("db1", "192.0.2.1", false), node("db2", "192.0.2.2", false), node("db3", "192.0.2.3", true)}
	results := []*server.Result{
		{Written: true, Restarted: true},
		{Written: true, RolledBack: true},
		{Written: true, RollbackFailed: true},
	}
	errs := []error{nil, errors.New("db2 192.0.2.2: verify: innodb_log_file_size is 1, orch wants 2"), errors.New("db3 192.0.2.3: stop server: connection lost")}
	err := applyFailed(context.Background(), nodes, results, errs)
	var intr *Interrupted
	if err == nil || errors.As(err, &intr) {
		t.Fatalf("err %v, want a plain failure", err)
	}
	want := "db2 192.0.2.2: verify: innodb_log_file_size is 1, orch wants 2\n" +
		"db3 192.0.2.3: stop server: connection lost\n" +
		"where the hosts were left:\n" +
		"  db1 192.0.2.1: written, restarted: runs the new config\n" +
		"  db2 192.0.2.2: written, rolled back: runs its previous config\n" +
		"  db3 192.0.2.3: written, rolling back failed: its state is in the error above; unreachable now: open session: connection lost; reconnecting failed: i/o timeout"
	if err.Error() != want {
		t.Errorf("\n got %s\nwant %s", err, want)
	}
}

// TestApplyInterrupted: Ctrl-C during the apply gives an Interrupted error
// (exit 130 in the CLI) that still says where every host was left; hosts
// whose turn never came are reported untouched, not as failures.
func TestApplyInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	nodes := []*server.Node{node("db1", "192.0.2.1", false), node("db2", "192.0.2.2", false), node("db3", "192.0.2.3", false)}
	results := []*server.Result{{Written: true, SetGlobal: []string{"sync_binlog"}}, {Written: true, RolledBack: true}, nil}
	errs := []error{nil, fmt.Errorf("db2 192.0.2.2: check option files: %w", context.Canceled), context.Canceled}
	err := applyFailed(ctx, nodes, results, errs)
	var intr *Interrupted
	if !errors.As(err, &intr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v (%T), want *Interrupted", err, err)
	}
	for _, w := range []string{
		"db1 192.0.2.1: written, set at run time: runs the new config",
		"db2 192.0.2.2: written, rolled back: runs its previous config",
		"db3 192.0.2.3: not changed (interrupted before its turn)",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("lacks %q:\n%s", w, err)
		}
	}
	if strings.Contains(err.Error(), "unreachable") || intr.Err != nil {
		t.Errorf("an interruption reported as a failure: %v", err)
	}
}

func TestOutcomeWording(t *testing.T) {
	for _, tc := range []struct {
		res  *server.Result
		err  error
		want string
	}{
		{nil, errors.New("x"), "not changed"},
		{&server.Result{Unchanged: true}, nil, "unchanged"},
		{&server.Result{}, errors.New("enable rocksdb: no plugin"), "not changed"},
		{&server.Result{Written: true}, errors.New("x"), "written, then failed"},
		{&server.Result{Written: true}, nil, "written: runs the new config"},
	} {
		if got := outcome(tc.res, tc.err); got != tc.want {
			t.Errorf("outcome(%+v, %v) = %q, want %q", tc.res, tc.err, got, tc.want)
		}
	}
}
