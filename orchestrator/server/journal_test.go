package server

import (
	"testing"

	"github.com/orch-bench/orch/topology"
)

// journalctl(1): -u UNIT, --since @EPOCH, -o cat prints the message only.
func TestJournalScript(t *testing.T) {
	want := "journalctl --no-pager -q -o cat -u mariadb.service --since @1764585600 | tail -c 65536"
	if got := journalScript("mariadb", 1764585600); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := journalScript("my sql.service", 1); got != "journalctl --no-pager -q -o cat -u 'my sql.service' --since @1 | tail -c 65536" {
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
