package integration

import (
	"strings"
	"testing"
)

// TestInventoryAsPositionalFile: check, exec and inventory take the
// inventory as a positional FILE (check and exec were "unknown command")
// and act on the lab's hosts exactly as with -i FILE.
func TestInventoryAsPositionalFile(t *testing.T) {
	l := needLab(t)
	if facts := checkJSON(t, l.mustOK(t, "check", l.inventory, "--json")); len(facts) != 4 {
		t.Fatalf("check FILE reported %d hosts, want 4", len(facts))
	}
	r := l.mustOK(t, "exec", l.inventory, "--", "echo", "at-$(hostname)")
	for _, h := range []string{"master", "slave1", "slave2", "loadbox"} {
		if !strings.Contains(r.stdout, h) {
			t.Errorf("exec FILE: no line from %s:\n%s", h, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "| at-"); n != 4 {
		t.Errorf("exec FILE: %d output lines, want one per host:\n%s", n, r.stdout)
	}
	r = l.mustOK(t, "exec", l.inventory, "--role", "master", "--", "true")
	if strings.TrimSpace(r.stdout) != "" {
		t.Errorf("exec FILE --role master -- true printed %q", r.stdout)
	}
	// inventory shows where orch logged in: user@address:port.
	r = l.mustOK(t, "inventory", l.inventory)
	if strings.Contains(r.stdout, "@:") || !strings.Contains(r.stdout, "root@") {
		t.Errorf("inventory SSH column:\n%s", r.stdout)
	}
}
