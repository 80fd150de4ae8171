package runner

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/orchestrator/cluster"
	"github.com/orch-bench/orch/orchestrator/internal/fakemaria"
	"github.com/orch-bench/orch/topology"
	"golang.org/x/crypto/ssh"
)

// TestAccessLoadsWhatTheCommandLineNames: one file is its cluster; of
// several, --cluster chooses and without it a command that works on one
// says which there are; a cluster command gets all of them; whatever is
// wrong is bad input (exit 2) before any host.
func TestAccessLoadsWhatTheCommandLineNames(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ORCH_SIM_MYSQL_PW", "pw-one")
	dir := t.TempDir()
	one := writeFile(t, dir, "one.yaml", existingYAML)
	fleet := writeFile(t, dir, "fleet.yaml", eastWestYAML)

	a := &Access{Inventories: []string{one}, SSHConfig: "none"}
	inv, err := a.Load("")
	if err != nil || inv.Name != "one" || len(inv.Hosts) != 1 {
		t.Fatalf("Load: %v, %+v", err, inv)
	}
	if pw, err := inv.Hosts[0].MySQL.Password.Resolve(); err != nil || pw != "pw-one" {
		t.Errorf("the password reference: %q, %v", pw, err)
	}

	a = &Access{Inventories: []string{fleet}, SSHConfig: "none"}
	if _, err := a.Load(""); err == nil || !orchestrator.IsBadInput(err) {
		t.Errorf("one of two clusters, unnamed: %v", err)
	}
	invs, err := a.Clusters("")
	if err != nil || len(invs) != 2 || invs[0].Name != "east" || invs[1].Name != "west" {
		t.Fatalf("Clusters: %v, %d", err, len(invs))
	}
	a.Cluster = "west"
	if inv, err := a.Load(""); err != nil || inv.Name != "west" {
		t.Errorf("--cluster west: %v, %+v", err, inv)
	}
	a.Cluster = "north"
	if _, err := a.Clusters(""); !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "north") {
		t.Errorf("--cluster north: %v", err)
	}

	// Two files, one cluster each: a one-cluster command must be told which.
	a = &Access{Inventories: []string{one, writeFile(t, dir, "two.yaml", strings.NewReplacer("one", "two", "192.0.2.11", "192.0.2.12").Replace(existingYAML))}, SSHConfig: "none"}
	_, err = a.Load("")
	if !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "choose it with --cluster NAME") {
		t.Errorf("two files, no --cluster: %v", err)
	}

	// A file that does not load names its line.
	bad := writeFile(t, dir, "bad.yaml", "name: x\nhosts:\n  - {name: a, role: wizard, address: 192.0.2.1}\n")
	if _, err := (&Access{Inventories: []string{bad}, SSHConfig: "none"}).Load(""); !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "bad.yaml:3") {
		t.Errorf("bad inventory: %v", err)
	}
}

// TestAccessSecrets: a secret that cannot be resolved is bad input, except
// for a dry run, which contacts no host: there it is a warning.
func TestAccessSecrets(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	one := writeFile(t, t.TempDir(), "one.yaml", strings.ReplaceAll(existingYAML, "ORCH_SIM_MYSQL_PW", "ORCH_TEST_UNSET_PW"))
	a := &Access{Inventories: []string{one}, SSHConfig: "none"}
	if _, err := a.Load(""); !orchestrator.IsBadInput(err) || !strings.Contains(err.Error(), "ORCH_TEST_UNSET_PW") {
		t.Errorf("unresolved secret: %v", err)
	}
	var warn bytes.Buffer
	a.DryRun, a.Warn = true, &warn
	if _, err := a.Load(""); err != nil || !strings.Contains(warn.String(), "WARNING") || !strings.Contains(warn.String(), "not needed for --dry-run") {
		t.Errorf("dry run: %v, warned %q", err, warn.String())
	}
	if _, err := a.Parse(""); err != nil {
		t.Errorf("Parse resolves no secret: %v", err)
	}
}

// TestExecPrefixesAndCounts: every output line carries its host's name;
// a failing command makes an ExecFailed counting the hosts it failed on;
// a role with no host is bad input.
func TestExecPrefixesAndCounts(t *testing.T) {
	t.Setenv("ORCH_RUNNER_TEST_PW", "runner-test-pw")
	t.Setenv("ORCH_RUNNER_BENCH_PW", "bench-test-pw")
	f := fakemaria.NewCluster(t, "testdata/fakelab.yaml", "mariadb-slap", "testdata/mariadb-slap-write-innodb.txt")
	connect := func(context.Context, *topology.Inventory, []*topology.Host) *cluster.Cluster { return f.C }
	var out bytes.Buffer
	o := ExecOptions{Inventory: f.C.Inventory, Role: "loadbox", Script: "echo one; echo two >&2", Connect: connect, Out: &out}
	if err := Exec(context.Background(), o); err != nil {
		t.Fatalf("exec: %v", err)
	}
	if got := out.String(); !strings.Contains(got, "lb | one\n") || !strings.Contains(got, "lb | two\n") {
		t.Errorf("output %q", got)
	}
	o.Script = "exit 3"
	var failed *ExecFailed
	if err := Exec(context.Background(), o); !errors.As(err, &failed) || failed.Failed != 1 || failed.Hosts != 1 || failed.Error() != "exec: failed on 1 of 1 hosts" {
		t.Errorf("failing command: %v", err)
	}
	o.Role = "wizard"
	if err := Exec(context.Background(), o); !orchestrator.IsBadInput(err) {
		t.Errorf("unknown role: %v", err)
	}
}

// TestAccessConnectNamesTheHostItCannotReach: the command's SSH dial (its
// settings: port, known_hosts, timeout) reaches the host's address; a
// host whose SSH port refuses is a failure naming it, kept by the cluster
// for the commands that need every host.
func TestAccessConnectNamesTheHostItCannotReach(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("ORCH_SIM_MYSQL_PW", "pw-one")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close() // nothing listens there now: the dial is refused at once
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := writeFile(t, dir, "id_ed25519", string(pem.EncodeToMemory(block)))
	if err := os.Chmod(key, 0o600); err != nil {
		t.Fatal(err)
	}
	inv := writeFile(t, dir, "gone.yaml", fmt.Sprintf(`name: gone
known_hosts: /dev/null
defaults:
  ssh: {user: bench, port: %d, identity_files: [%s]}
  mysql: {user: bench, password: {env: ORCH_SIM_MYSQL_PW}}
hosts:
  - {name: db1, role: server, address: 127.0.0.1}
`, port, key))
	a := &Access{Inventories: []string{inv}, SSHConfig: "none", ConnectTimeout: 2 * time.Second}
	loaded, err := a.Load("")
	if err != nil {
		t.Fatal(err)
	}
	c := a.ConnectAll(context.Background(), loaded)
	defer c.Close()
	err = c.ConnectErr()
	if err == nil || !strings.Contains(err.Error(), "db1 127.0.0.1") || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("connect error %v, want one naming db1 and the refusal", err)
	}
}
