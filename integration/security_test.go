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
