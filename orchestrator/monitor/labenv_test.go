package monitor

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"
	"github.com/orch-bench/orch/orchestrator/server"

	"github.com/orch-bench/orch/lab"
	"github.com/orch-bench/orch/orchestrator/bench"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/orchestrator/up"
	"github.com/orch-bench/orch/topology"
)

// Lab tests run against a lab made by `orch lab up` and are skipped unless
//
//	ORCH_TEST_LAB_INVENTORY=/tmp/lab-mon/lab.yaml   (the root inventory)
//	ORCH_TEST_LAB_STATE_DIR=/var/lib/orch-lab-mon  (for link faults)
//
// They configure the cluster with orch up (as `orch run` does), and
// create and drop the sbtest database.

type labEnv struct {
	inv      *topology.Inventory
	stateDir string
	dbs      []*server.Node
	masterDB *sql.DB
	loadbox  executor.Executor
	password string
}

// needLab connects to the lab, brings it up as a semi-sync cluster and
// returns the database sessions to monitor.
func needLab(t testing.TB) *labEnv {
	t.Helper()
	path := labenv.Inventory(t)
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := inv.ValidateCluster(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dial := executor.DialConfig{KnownHostsFile: inv.KnownHostsFile}
	c := cluster.Connect(ctx, inv, inv.DBHosts(), cluster.Options{Dial: dial})
	t.Cleanup(func() { c.Close() })
	if _, err := up.Up(ctx, c, up.Options{VerifyTimeout: time.Minute}); err != nil {
		t.Fatalf("orch up: %v", err)
	}
	env := &labEnv{inv: inv}
	sessions, err := c.Open(ctx, cluster.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	env.dbs, env.masterDB = sessions.DB(), sessions.Master.DB
	lb, err := executor.Dial(ctx, inv.LoadBox(), dial)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lb.Close() })
	env.loadbox = lb
	if env.password, err = inv.Master().MySQL.Password.Resolve(); err != nil {
		t.Fatal(err)
	}
	if _, err := env.masterDB.ExecContext(ctx, "DROP DATABASE IF EXISTS sbtest"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.masterDB.ExecContext(ctx, "CREATE DATABASE sbtest"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		env.masterDB.ExecContext(ctx, "DROP DATABASE IF EXISTS sbtest")
	})
	return env
}

// sysbench runs oltp_insert (prepare or run) from the load box against the
// master, the password delivered as MYSQL_PWD through stdin.
func (e *labEnv) sysbench(ctx context.Context, phase string, threads int, seconds int) (string, error) {
	m := e.inv.Master()
	args := []string{"sysbench", "oltp_insert", "--mysql-host=" + m.Address, "--mysql-user=" + m.MySQL.User,
		"--mysql-db=sbtest", "--tables=2", "--table-size=1000",
		fmt.Sprintf("--threads=%d", threads), fmt.Sprintf("--time=%d", seconds), phase}
	res, err := e.loadbox.Run(ctx, executor.Command{Script: shell.Join(args...),
		SecretEnv: map[string]string{"MYSQL_PWD": e.password}, Timeout: time.Duration(seconds)*time.Second + 2*time.Minute})
	out := string(res.Stdout)
	if err != nil {
		return out, fmt.Errorf("sysbench %s: %w\n%s", phase, err, res.Stderr)
	}
	return out, nil
}

func (e *labEnv) tps(t testing.TB, out string) float64 {
	t.Helper()
	r, err := bench.ParseSysbench("run.txt", strings.NewReader(out))
	if err != nil {
		t.Fatalf("sysbench output: %v\n%s", err, out)
	}
	return r.TPS.Float64()
}

// fault injects a lab fault (link-down, link-up) on one host.
func (e *labEnv) fault(t testing.TB, host, kind string) {
	t.Helper()
	if err := lab.Fault(context.Background(), lab.Config{StateDir: e.stateDir, Out: io.Discard}, host, kind); err != nil {
		t.Fatalf("lab fault %s %s: %v", host, kind, err)
	}
}
