package topology

import (
	"strings"
	"testing"
)

// The benchmark account: the file's block wins; without one, the master's
// named account; with no account named at all, orch's own.
func TestBenchmarkAccount(t *testing.T) {
	hosts := "hosts:\n  - {name: m, role: master, address: 10.1.1.1}\n"
	for _, tc := range []struct {
		name, doc   string
		user        string
		managed, pw bool
	}{
		{"block", "benchmark:\n  user: sb\n  password: {env: SB_PW}\n" + hosts, "sb", false, true},
		{"master's account", "defaults:\n  mysql:\n    user: admin\n    password: {env: PW}\n" + hosts, "admin", false, true},
		{"orch's own", hosts, DefaultBenchUser, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			inv := mustLoad(t, writeFile(t, dir, "c.yaml", tc.doc), LoadOptions{HomeDir: dir})
			b := inv.Benchmark
			if b.User != tc.user || b.Managed != tc.managed || b.Password.IsSet() != tc.pw {
				t.Errorf("benchmark %+v; want user %s managed %v password set %v", b, tc.user, tc.managed, tc.pw)
			}
		})
	}
	dir := t.TempDir()
	_, err := Load(writeFile(t, dir, "c.yaml", "benchmark:\n  password: {env: X}\n"+hosts), LoadOptions{HomeDir: dir})
	if err == nil || !strings.Contains(err.Error(), "c.yaml:2:3: benchmark: user is required") {
		t.Errorf("benchmark without a user: %v", err)
	}
}
