package up

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/orchestrator/account"
	"github.com/orch-bench/orch/orchestrator/server"
	"github.com/orch-bench/orch/topology"
)

// On stock hosts (no account named) the dry run starts with the accounts
// orch makes through root's socket, as MariaDB's CREATE USER / ALTER USER /
// GRANT spell them, passwords redacted; nothing is generated.
func TestDryRunShowsManagedAccounts(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stock.yaml")
	os.WriteFile(p, []byte("hosts:\n  - {name: master, role: master, address: 10.0.0.1}\n  - {name: slave1, role: slave, address: 10.0.0.2}\n  - {name: slave2, role: slave, address: 10.0.0.3}\n  - {name: lb, role: loadbox, address: 10.0.0.4}\n"), 0o600)
	inv, err := topology.Load(p, topology.LoadOptions{HomeDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	account.Resolve(inv, filepath.Join(dir, "state"))
	var b strings.Builder
	if err := DryRun(&b, inv, server.Desired{}, "mariadb:10.11.6"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"### master 10.0.0.1: first, through root's unix socket",
		"SET SESSION sql_log_bin = 0;\nSET SESSION sql_log_off = 1; SET SESSION long_query_time = 31536000;\nCREATE USER IF NOT EXISTS 'orch'@'localhost' IDENTIFIED BY '<redacted>';",
		"GRANT ALL PRIVILEGES ON `sbtest`.* TO 'orch_bench'@'10.0.0.4';",
		"### slave2 10.0.0.3: first, through root's unix socket",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q", want)
		}
	}
	if strings.Count(out, "orch_bench") != strings.Count(out[:strings.Index(out, "### slave1")], "orch_bench") {
		t.Error("the benchmark account is made on a slave")
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); err == nil {
		t.Error("a dry run generated passwords")
	}
}
