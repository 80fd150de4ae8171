package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestExistingServer is the seed's writes.sh workflow: the README's
// two-line ips.txt (the lab master's address, then `user password`)
// names one server to benchmark as it is, from this machine. run and a
// dynamic-knob matrix work on it without a restart, a file or replication
// changes, and put the server's variables back; up refuses it in one line,
// and so does a knob that needs a restart.
func TestExistingServer(t *testing.T) {
	l := needLab(t)
	// The lab's master as a user's server would be: reachable on its
	// address (up's config binds every address).
	l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb")
	doc := l.inventoryDoc(t, filepath.Base(l.inventory))
	defs := doc["defaults"].(map[string]any)
	sshDefs, mysqlDefs := defs["ssh"].(map[string]any), defs["mysql"].(map[string]any)
	pw, err := os.ReadFile(mysqlDefs["password"].(map[string]any)["file"].(string))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ips := filepath.Join(dir, "ips.txt")
	master := hostAddress(t, doc, "master")
	if err := os.WriteFile(ips, []byte(master+"\n"+mysqlDefs["user"].(string)+" "+strings.TrimSpace(string(pw))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	access := []string{"-i", ips, "--ssh-user", sshDefs["user"].(string), "--identity", sshDefs["identity_files"].([]any)[0].(string),
		"--known-hosts", doc["known_hosts"].(string)}
	orch := func(args ...string) result { return l.orch(t, append(args, access...)...) }
	// What the server runs as: its PID (a restart changes it) and the
	// knob's value.
	state := func() (pid, syncBinlog string) {
		r := l.mustOK(t, append(append([]string{"exec"}, access...), "--", "pidof mariadbd; mariadb -N -e 'select @@sync_binlog'")...)
		f := strings.Fields(regexp.MustCompile(`(?m)^\S+\s+\|?\s*`).ReplaceAllString(r.stdout, ""))
		if len(f) < 2 {
			t.Fatalf("exec output %q", r.stdout)
		}
		return f[len(f)-2], f[len(f)-1]
	}
	pid0, sync0 := state()

	if r := orch("up"); r.code != 2 || !strings.Contains(r.stderr, "cluster setup is not allowed on an existing server") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("up: exit %d, want 2 and one line: %q", r.code, r.stderr)
	}
	runs := filepath.Join(dir, "runs")
	tiny := []string{"--workload", "pure-random-writes", "--runs", runs, "--tables", "1", "--threads", "2", "--time", "3", "--table-size", "500"}
	// back_log is read only at startup on every flavour.
	if r := orch(append([]string{"run", "--knob", "back_log=77"}, tiny...)...); r.code == 0 || !strings.Contains(r.stderr, "back_log: not dynamic: an existing server is changed only at run time") {
		t.Errorf("a static knob: exit %d: %s", r.code, r.stderr)
	}
	flip := "1"
	if sync0 == "1" {
		flip = "0"
	}
	r := orch(append([]string{"run", "--knob", "sync_binlog=" + flip}, tiny...)...)
	if r.code != 0 || !strings.Contains(r.stdout, "run ok") || !strings.Contains(r.stderr, "SET GLOBAL sync_binlog = "+flip) {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if pid, sync := state(); pid != pid0 || sync != sync0 {
		t.Errorf("after run: mariadbd %s (was %s), sync_binlog %s (was %s): want no restart and the value put back", pid, pid0, sync, sync0)
	}

	mruns := filepath.Join(dir, "matrix")
	m := orch(append([]string{"matrix", "--engines=innodb", "--knobs=sync_binlog=0,1", "--warmup", "1", "--runs", mruns}, append(tiny[:2], tiny[4:]...)...)...)
	if m.code != 0 {
		t.Fatalf("matrix: exit %d: %s", m.code, m.stderr)
	}
	mdir, _ := filepath.EvalSymlinks(filepath.Join(mruns, "latest"))
	ms := loadMatrix(t, mdir)
	if len(ms.Cells) != 2 {
		t.Errorf("matrix: %d cells, want 2", len(ms.Cells))
	}
	for _, c := range ms.Cells {
		if c.State != "ok" {
			t.Errorf("cell %s: %s", c.ID, c.State)
		}
	}
	if pid, sync := state(); pid != pid0 || sync != sync0 {
		t.Errorf("after matrix: mariadbd %s (was %s), sync_binlog %s (was %s)", pid, pid0, sync, sync0)
	}
}
