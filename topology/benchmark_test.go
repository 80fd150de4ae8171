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

// A YAML inventory with a server host is the existing-server form: that
// server alone (as the master), with an optional load box.
func TestYAMLExistingServer(t *testing.T) {
	dir := t.TempDir()
	inv := mustLoad(t, writeFile(t, dir, "e.yaml", "defaults:\n  mysql:\n    user: bench\n    password: {env: PW}\nhosts:\n  - {name: mydb, role: server, address: 10.1.1.1}\n  - {name: lb, role: loadbox, address: 10.1.1.2}\n"), LoadOptions{HomeDir: dir})
	if !inv.Existing || inv.Master().Name != "mydb" || inv.LoadBox().Name != "lb" || inv.Benchmark.User != "bench" {
		t.Errorf("existing %v, master %v, benchmark %+v", inv.Existing, inv.Master(), inv.Benchmark)
	}
	if err := inv.ValidateCluster(); err == nil || !strings.Contains(err.Error(), "e.yaml:6:5: cluster setup is not allowed on an existing server") {
		t.Errorf("up accepted an existing server: %v", err)
	}
	_, err := Load(writeFile(t, dir, "f.yaml", "hosts:\n  - {name: mydb, role: server, address: 10.1.1.1}\n  - {name: s, role: slave, address: 10.1.1.3}\n"), LoadOptions{HomeDir: dir})
	if err == nil || !strings.Contains(err.Error(), `f.yaml:3:21: a server host is an existing server benchmarked alone; "s" cannot be a slave`) {
		t.Errorf("a slave next to a server: %v", err)
	}
	// No account named: orch makes none on a server it does not set up,
	// so the file is refused where the server is declared.
	_, err = Load(writeFile(t, dir, "g.yaml", "hosts:\n  - {name: mydb, role: server, address: 10.1.1.1}\n"), LoadOptions{HomeDir: dir})
	if err == nil || !strings.Contains(err.Error(), "g.yaml:2:5: existing server mydb: no mysql.user and mysql.password: orch makes no account on a server it benchmarks as it is") ||
		strings.Contains(err.Error(), "\n") {
		t.Errorf("an existing server without an account: %v", err)
	}
}
