package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// passwordInventory is the lab's inventory for the user bench (password
// login, sudo with that password) and the password itself.
func (l *lab) passwordInventory(t *testing.T) (inv, password string) {
	t.Helper()
	doc := l.inventoryDoc(t, "lab-password.yaml")
	ssh := doc["defaults"].(map[string]any)["ssh"].(map[string]any)
	file := ssh["sudo_password"].(map[string]any)["file"].(string)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(filepath.Dir(l.inventory), "lab-password.yaml"), strings.TrimSpace(string(b))
}

// TestSudoPasswordNeverReachesTheCommand: with a sudoers rule that lets
// bench run /bin/sh without a password (and everything else with one),
// `orch exec --sudo -- cat` runs as root and prints nothing: before, orch
// chose sudo -S from a `sudo -n true` probe, sudo did not read the password
// line, and cat printed it. Without the rule, the password is read by sudo
// and, again, never by the command.
func TestSudoPasswordNeverReachesTheCommand(t *testing.T) {
	l := needLab(t)
	inv, pw := l.passwordInventory(t)
	const rule = "/etc/sudoers.d/zz-orch-test-nopasswd-sh"
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--",
		"printf 'bench ALL=(ALL) NOPASSWD: /bin/sh\\n' > "+rule+".tmp && chmod 0440 "+rule+".tmp && visudo -qcf "+rule+".tmp && mv "+rule+".tmp "+rule)
	removed := false
	remove := func() {
		if !removed {
			l.mustOK(t, "exec", "-i", l.inventory, "--role", "loadbox", "--", "rm -f "+rule+" "+rule+".tmp")
			removed = true
		}
	}
	t.Cleanup(remove)

	for _, phase := range []string{"NOPASSWD: /bin/sh", "password for everything"} {
		r := l.mustOK(t, "exec", "-i", inv, "--role", "loadbox", "--sudo", "--", "cat; echo uid=$(id -u)")
		if strings.Contains(r.stdout+r.stderr, pw) {
			t.Fatalf("%s: the sudo password reached the command's output", phase)
		}
		if strings.TrimSpace(r.stdout) != "loadbox | uid=0" {
			t.Fatalf("%s: output %q, want only loadbox | uid=0 (cat had nothing to read)", phase, r.stdout)
		}
		remove()
	}
}

// TestTooLongReplicationPasswordScrubbed: MariaDB refuses a replication
// password over 96 characters with error 1470, quoting its first 64
// characters and "..."; that prefix must not reach orch's output. The
// cluster is brought back with the lab's own inventory afterwards.
func TestTooLongReplicationPasswordScrubbed(t *testing.T) {
	l := needLab(t)
	dir := t.TempDir()
	pw := strings.Repeat("Zq8-long-repl-pw-", 8) // 136 characters
	pwFile := filepath.Join(dir, "repl-password")
	if err := os.WriteFile(pwFile, []byte(pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	doc := l.inventoryDoc(t, "lab.yaml")
	repl, _ := doc["replication"].(map[string]any)
	if repl == nil {
		repl = map[string]any{}
		doc["replication"] = repl
	}
	repl["password"] = map[string]any{"file": pwFile}
	inv := filepath.Join(dir, "lab.yaml")
	writeYAML(t, inv, doc)
	t.Cleanup(func() { l.mustOK(t, "up", "-i", l.inventory, "--engine", "innodb") })
	// up leaves working replication alone: unwire slave1 so that up wires
	// it again, with the new password.
	l.mustOK(t, "exec", "-i", l.inventory, "--role", "slave1", "--", `mariadb -e "STOP SLAVE; RESET SLAVE ALL"`)

	r := l.orch(t, "up", "-i", inv, "--engine", "innodb")
	if r.code == 0 {
		t.Fatal("up with a 136-character replication password succeeded; MariaDB allows at most 96")
	}
	if strings.Contains(r.stdout+r.stderr, pw[:12]) {
		t.Fatal("the replication password's first characters are in orch's output")
	}
	if !strings.Contains(r.stderr, "too long") {
		t.Fatalf("stderr does not give the server's reason: %s", r.stderr)
	}
}
