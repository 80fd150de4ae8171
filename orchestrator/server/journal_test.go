package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"

	"github.com/orch-bench/orch/topology"
)

// journalctl(1): --sync writes what journald holds; -u UNIT, --since @EPOCH,
// -o cat prints the message only.
func TestJournalScript(t *testing.T) {
	want := "journalctl --sync 2>/dev/null; journalctl --no-pager -q -o cat -u mariadb.service --since @1764585600 | tail -c 65536"
	if got := journalScript("mariadb", 1764585600); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := journalScript("my sql.service", 1); got != "journalctl --sync 2>/dev/null; journalctl --no-pager -q -o cat -u 'my sql.service' --since @1 | tail -c 65536" {
		t.Errorf("unit with suffix: %s", got)
	}
	// Only a systemd service has a journal to read.
	sys, _ := chooseService("h", topology.ServiceControl{}, map[string][]string{"pid1": {"systemd"}, "unit": {"mariadb"}})
	sysv, _ := chooseService("h", topology.ServiceControl{}, map[string][]string{"pid1": {"init"}, "initd": {"mariadb"}, "service": {"yes"}})
	if sys.Unit != "mariadb" || sysv.Unit != "" || sysv.Start != "service mariadb start" {
		t.Errorf("systemd %+v, SysV %+v", sys, sysv)
	}
	n := &Node{Facts: Facts{Service: sys}}
	if !n.Journal() {
		t.Error("log_error unset under systemd: the journal is not read")
	}
	n.Facts.ErrorLog = "/var/log/mysql/error.log"
	if n.Journal() {
		t.Error("a server with an error log file is read from the journal")
	}
}

// slowJournal answers journalctl with what a lagging journald holds: the
// first reads have only the start banner, later ones the [ERROR] line too.
type slowJournal struct {
	reads int
	lines []string
}

func (j *slowJournal) Run(_ context.Context, c executor.Command) (executor.Result, error) {
	if !strings.Contains(c.Script, "journalctl") {
		return executor.Result{}, fmt.Errorf("unexpected script %q", c.Script)
	}
	j.reads++
	return executor.Result{Stdout: []byte(strings.Join(j.lines[:min(j.reads, len(j.lines))], "\n"))}, nil
}
func (j *slowJournal) Upload(context.Context, io.Reader, string, os.FileMode, bool) error {
	return errors.New("no upload")
}
func (j *slowJournal) Download(context.Context, string, io.Writer, bool) (os.FileMode, error) {
	return 0, errors.New("no download")
}
func (j *slowJournal) Name() string { return "slow" }
func (j *slowJournal) Close() error { return nil }

// A failed start read before journald has the server's last line waits
// for it (bounded) instead of quoting the banner.
func TestStartErrorsWaitForTheJournal(t *testing.T) {
	j := &slowJournal{lines: []string{
		"2026-12-01 10:00:00 0 [Note] Starting MariaDB 10.11.18 as process 42",
		"2026-12-01 10:00:00 0 [Note] InnoDB: Using transactional memory",
		"2026-12-01 10:00:00 0 [ERROR] InnoDB: File /nonexistent/ib_logfile0 was not found",
	}}
	n := &Node{Exec: j, Facts: Facts{Service: Service{Unit: "mariadb"}}}
	got := n.startErrors(context.Background(), LogMark{Journal: 1})
	if len(got) != 1 || got[0] != "[ERROR] InnoDB: File /nonexistent/ib_logfile0 was not found" || j.reads != 3 {
		t.Errorf("after %d reads: %q", j.reads, got)
	}
	// A journal that never gets an [ERROR] line is quoted as it is, once
	// the bound has passed.
	quiet := &slowJournal{lines: j.lines[:1]}
	n.Exec = quiet
	start := time.Now()
	if got := n.startErrors(context.Background(), LogMark{Journal: 1}); len(got) != 1 || !strings.Contains(got[0], "Starting MariaDB") {
		t.Errorf("quiet journal: %q", got)
	}
	if time.Since(start) < journalLag || quiet.reads < 2 {
		t.Errorf("gave up after %s and %d reads", time.Since(start), quiet.reads)
	}
}
