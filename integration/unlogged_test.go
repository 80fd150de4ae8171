package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/topology"
)

// TestNoPasswordInServerLogs (N8): with the general log and a slow log
// that takes every statement on, up makes a replication account and points
// the slaves at the master with its password, and orch makes an account
// through root's socket: neither password is in any server's logs, which
// do hold the statements around them.
func TestNoPasswordInServerLogs(t *testing.T) {
	l := needLab(t)
	const general, slow = "/var/lib/mysql/orch-n8-general.log", "/var/lib/mysql/orch-n8-slow.log"
	doc := l.inventoryDoc(t, "lab.yaml")
	pwFile := doc["defaults"].(map[string]any)["mysql"].(map[string]any)["password"].(map[string]any)["file"].(string)
	b, err := os.ReadFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	replPassword := strings.TrimSpace(string(b))
	doc["replication"].(map[string]any)["user"] = "orch_n8repl"
	inv := filepath.Join(t.TempDir(), "n8.yaml")
	writeYAML(t, inv, doc)
	t.Cleanup(func() {
		l.cleanup(t, "down", inv)
		l.cleanup(t, "up", l.inventory) // the shared lab as it was
		l.sqlOn(t, "db", "SET GLOBAL general_log = OFF, slow_query_log = OFF, long_query_time = 10, log_slow_admin_statements = OFF; DROP USER IF EXISTS 'orch_n8repl'@'%', 'orch_n8probe'@'localhost'", false)
		l.cleanup(t, "exec", "-i", l.inventory, "--role", "db", "--", "rm -f "+general+" "+slow)
	})

	l.mustOK(t, "down", l.inventory) // so that up points the slaves again
	l.mustOK(t, "up", inv, "--knob", "general_log=ON", "--knob", "general_log_file="+general,
		"--knob", "slow_query_log=ON", "--knob", "slow_query_log_file="+slow,
		"--knob", "long_query_time=0", "--knob", "log_slow_admin_statements=ON")

	// An account through root's socket, as up makes orch's own.
	lab, err := topology.Load(l.inventory, topology.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := lab.Master()
	ex, err := executor.Dial(context.Background(), m, executor.DialConfig{KnownHostsFile: lab.KnownHostsFile, SSHConfigFile: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Close()
	raw := make([]byte, 16)
	rand.Read(raw)
	probePassword := hex.EncodeToString(raw)
	if err := account.EnsureBySocket(context.Background(), ex, account.Account{User: "orch_n8probe", Host: "localhost", Password: probePassword, Grants: "USAGE ON *.*"}); err != nil {
		t.Fatal(err)
	}

	for _, h := range lab.DBHosts() {
		// Not through l.orch, which would print a leaked password.
		out, err := exec.Command(l.bin, "exec", "-i", l.inventory, "--role", h.Name, "--", "cat "+general+" "+slow).Output()
		if err != nil {
			t.Fatalf("%s: read the logs: %v", h.Name, err)
		}
		logs := string(out)
		for _, pw := range []string{replPassword, probePassword} {
			if strings.Contains(logs, pw) {
				t.Errorf("%s: a password is in the server's logs", h.Name)
			}
		}
		want := "START SLAVE"
		if h.Role == topology.RoleMaster {
			want = "INSERT INTO orch.canary"
		}
		if !strings.Contains(logs, want) || !strings.Contains(logs, "Query_time") {
			t.Errorf("%s: the logs lack %q or a slow-log entry: logging was not on", h.Name, want)
		}
	}
}
