package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/rundir"
)

// TestCollectAsksTheServerForItsErrorLog (N5): with no mysql.error_log in
// the inventory, a manifest edited to name another file under /var/log
// as the master's error log is refused: the server's own @@log_error is
// the only log collect reads as root.
func TestCollectAsksTheServerForItsErrorLog(t *testing.T) {
	f := newFakeLab(t)
	out, err := Run(context.Background(), Config{Cluster: f.C, Workload: slapWorkload(t), Engine: "innodb", Root: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range f.C.Inventory.DBHosts() {
		h.MySQL.ErrorLog = ""
	}
	master := f.C.Inventory.Master().Name
	edit := func(remote string) {
		t.Helper()
		if err := out.Dir.UpdateManifest(func(m *rundir.Manifest) error {
			for i, e := range m.Expected {
				if e.Host == master && e.Local == rundir.HostFile(master, rundir.HostErrorLog) {
					m.Expected[i].Remote, m.Expected[i].Done = remote, false
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	edit("/var/log/auth.log")
	_, err = Collect(context.Background(), out.Dir, f.C, false)
	if !errors.Is(err, ErrForeignSource) || !strings.Contains(err.Error(), "is not the one the server writes") {
		t.Fatalf("collect of another /var/log file: %v", err)
	}
	edit("/var/log/mysql/error.log") // what the server says
	if _, err := Collect(context.Background(), out.Dir, f.C, false); errors.Is(err, ErrForeignSource) {
		t.Fatalf("collect of the server's own log: %v", err)
	}
}
