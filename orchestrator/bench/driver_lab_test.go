package bench

import (
	"bytes"
	"context"
	"database/sql"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/labenv"

	"github.com/orch-bench/orch/orchestrator/dataset"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/orchestrator/shell"
	"github.com/orch-bench/orch/topology"
)

// The lab test runs the real tools on an `orch lab` (set
// ORCH_TEST_LAB_INVENTORY to its lab.yaml): sysbench and mariadb-slap on the
// load box against the master, through the SSH executor, as the runner will.

const (
	labFragment = "/etc/mysql/mariadb.conf.d/99-orch-test.cnf"
	labDatabase = "orch_bench_drv_test"
)

type lab struct {
	master    *topology.Host
	mex, lbex *executor.SSH
	db        *sql.DB
	target    Target
	password  string
}

func openLab(t *testing.T) *lab {
	t.Helper()
	path := labenv.Inventory(t)
	inv, err := topology.Load(path, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := &lab{master: inv.Master()}
	if inv.LoadBox() == nil {
		t.Fatal("the lab inventory has no load box")
	}
	ctx := context.Background()
	dial := func(h *topology.Host) *executor.SSH {
		ex, err := executor.Dial(ctx, h, executor.DialConfig{KnownHostsFile: inv.KnownHostsFile})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.Close() })
		return ex
	}
	l.mex, l.lbex = dial(l.master), dial(inv.LoadBox())
	if l.password, err = l.master.MySQL.Password.Resolve(); err != nil {
		t.Fatal(err)
	}
	l.exposeMaster(t)
	if l.db, err = mysqlconn.Open(ctx, l.mex, l.master); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.db.Close() })
	port := l.master.MySQL.Port
	if port == 0 {
		port = topology.DefaultMySQLPort
	}
	l.target = Target{Host: l.master.Address, Port: port, User: l.master.MySQL.User, Password: l.password}
	return l
}

// exposeMaster makes the master listen on its lab address (the lab binds
// it to 127.0.0.1) with a test fragment, restarting it with the
// inventory's service commands; cleanup removes the fragment and restarts.
func (l *lab) exposeMaster(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	sudo := l.master.SSH.Sudo
	if err := l.mex.Upload(ctx, strings.NewReader("[mysqld]\nbind_address=0.0.0.0\n"), labFragment, 0o644, sudo); err != nil {
		t.Fatal(err)
	}
	l.restartMaster(t)
	t.Cleanup(func() {
		if _, err := l.mex.Run(ctx, executor.Command{Script: "rm -f " + shell.Quote(labFragment), Sudo: sudo}); err != nil {
			t.Error(err)
		}
		l.restartMaster(t)
	})
}

func (l *lab) restartMaster(t *testing.T) {
	t.Helper()
	svc := l.master.MySQL.Service
	stop, start := svc.Stop, svc.Start
	if start == "" {
		stop, start = "systemctl stop "+shell.Quote(svc.Unit), "systemctl start "+shell.Quote(svc.Unit)
	}
	for _, script := range []string{stop, start} {
		cmd := executor.Command{Script: script, Sudo: l.master.SSH.Sudo, Timeout: 2 * time.Minute}
		if _, err := l.mex.Run(context.Background(), cmd); err != nil {
			t.Fatalf("restart master: %v", err)
		}
	}
}

// run runs a step on the load box in the foreground.
func (l *lab) run(t *testing.T, s Step) executor.Result {
	t.Helper()
	cmd := s.Command()
	cmd.Timeout = 2 * time.Minute
	res, err := l.lbex.Run(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", s.Name, err, res.Stdout)
	}
	return res
}

// matches asks the dataset package, as the runner does, whether the
// server holds exactly what spec's prepare leaves.
func (l *lab) matches(t *testing.T, spec DatasetSpec) (bool, string) {
	t.Helper()
	ok, why, err := dataset.Matches(context.Background(), l.db, dataset.Spec{Database: spec.Database,
		Tables: len(spec.Tables), TablePrefix: strings.TrimRight(spec.Tables[0], "0123456789"),
		TableSize: int64(spec.TableSize), ExactRows: true, Engine: spec.Engine})
	if err != nil {
		t.Fatal(err)
	}
	return ok, why
}

// procScan collects every /proc/*/cmdline on the load box, repeatedly, in
// the background, for the password check.
type procScan struct {
	mu    sync.Mutex
	scans [][]byte
	stop  chan struct{}
	done  chan struct{}
}

func (l *lab) scanProcesses(t *testing.T) *procScan {
	p := &procScan{stop: make(chan struct{}), done: make(chan struct{})}
	script := `for f in /proc/[0-9]*/cmdline; do printf '\n%s: ' "$f"; cat "$f" 2>/dev/null; done`
	go func() {
		defer close(p.done)
		for {
			res, err := l.lbex.Run(context.Background(), executor.Command{Script: script})
			if err != nil {
				t.Errorf("scan processes: %v", err)
				return
			}
			p.mu.Lock()
			p.scans = append(p.scans, res.Stdout)
			p.mu.Unlock()
			select {
			case <-p.stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	}()
	return p
}

func (p *procScan) finish() [][]byte {
	close(p.stop)
	<-p.done
	return p.scans
}

// lineWriter hands each complete line to fn.
type lineWriter struct {
	buf bytes.Buffer
	fn  func(string)
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line) // keep the partial line
			return len(b), nil
		}
		w.fn(strings.TrimRight(line, "\n"))
	}
}

func TestLabSysbench(t *testing.T) {
	l := openLab(t)
	w, err := LoadWorkload("pure-random-writes")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Override(map[string]string{"tables": "2", "threads": "4", "time": "5", "table-size": "1000", "database": labDatabase}); err != nil {
		t.Fatal(err)
	}
	d, _ := NewDriver(w)
	spec, ok := d.Dataset()
	if !ok {
		t.Fatal("no dataset spec for oltp_insert")
	}
	ctx := context.Background()
	if _, err := l.db.ExecContext(ctx, spec.CreateDatabaseSQL()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+quoteIdent(labDatabase)) })
	step := func(p Phase) Step {
		s, err := d.Step(p, l.target)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	if ok, why := l.matches(t, spec); ok {
		t.Fatalf("before prepare the dataset matches: %s", why)
	}
	l.run(t, step(PhasePrepare))
	if ok, why := l.matches(t, spec); !ok {
		t.Fatalf("after prepare the dataset should match: %s", why)
	}

	// Run, watching progress lines and every process's command line.
	var (
		mu        sync.Mutex
		intervals []Interval
	)
	run := step(PhaseRun)
	cmd := run.Command()
	var out bytes.Buffer
	cmd.Stdout = io.MultiWriter(&out, &lineWriter{fn: func(line string) {
		if iv, ok := d.Progress(line); ok {
			mu.Lock()
			intervals = append(intervals, iv)
			mu.Unlock()
		}
	}})
	scan := l.scanProcesses(t)
	_, err = l.lbex.Run(ctx, cmd)
	scans := scan.finish()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	sawSysbench := false
	for _, s := range scans {
		if bytes.Contains(s, []byte(l.password)) {
			// Say where, without printing the password into the test log.
			leak := bytes.ReplaceAll(s, []byte(l.password), []byte("***"))
			t.Fatalf("the password is in a command line on the load box:\n%s", bytes.ReplaceAll(leak, []byte{0}, []byte(" ")))
		}
		sawSysbench = sawSysbench || bytes.Contains(s, []byte("oltp_insert\x00--db-driver=mysql"))
	}
	if !sawSysbench {
		t.Errorf("no scan (of %d) caught sysbench running", len(scans))
	}

	res, err := d.Parse(run.Output, &out)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, out.String())
	}
	sb := res.(*Sysbench)
	if !sb.Complete || sb.Threads != 4 || sb.Writes == 0 || sb.Percentile != 95 || len(sb.Intervals) < 4 {
		t.Errorf("result: %+v", sb)
	}
	if len(intervals) != len(sb.Intervals) {
		t.Errorf("live progress saw %d intervals, the report has %d", len(intervals), len(sb.Intervals))
	}
	t.Logf("sysbench: %d writes, %s tps, p95 %s ms; %d process scans", sb.Writes, sb.TPS, sb.LatencyMS.Pct, len(scans))

	// The run inserted rows: the dataset is no longer the prepared one.
	if ok, why := l.matches(t, spec); ok {
		t.Errorf("after the run the dataset still matches: %s", why)
	}
	l.run(t, step(PhaseCleanup))
	var left int
	if err := l.db.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", spec.Database).Scan(&left); err != nil || left != 0 {
		t.Errorf("after cleanup: %d tables left (%v)", left, err)
	}
}

func TestLabMariadbSlap(t *testing.T) {
	l := openLab(t)
	w, err := LoadWorkload("mysqlslap-write")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Override(map[string]string{"concurrency": "4", "iterations": "2", "queries": "200", "write-number": "10", "database": labDatabase}); err != nil {
		t.Fatal(err)
	}
	d, _ := NewDriver(w)
	s, err := d.Step(PhaseRun, l.target)
	if err != nil {
		t.Fatal(err)
	}
	res := l.run(t, s) // the default binary: picked on the load box
	out := append(append([]byte{}, res.Stdout...), res.Stderr...)
	parsed, err := d.Parse(s.Output, bytes.NewReader(out))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, out)
	}
	m := parsed.(Mysqlslap)
	if len(m) != 1 || m[0].Clients != 4 || m[0].QueriesPerClient != 50 || m[0].Rusage == nil || m[0].AvgS.Float64() <= 0 {
		t.Errorf("result: %+v", m)
	}
	var n int
	if err := l.db.QueryRowContext(context.Background(),
		"SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", labDatabase).Scan(&n); err != nil || n != 0 {
		t.Errorf("mariadb-slap left its schema behind (%d, %v)", n, err)
	}
	t.Logf("mariadb-slap: avg %s s for %d clients", m[0].AvgS, m[0].Clients)
}
