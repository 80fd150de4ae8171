package executor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// sshConfigFixture writes ~/.ssh/config (under the test HOME) with a Host
// block for alias pointing at ts, plus extra lines.
func sshConfigFixture(t *testing.T, f *fixture, ts *testServer, alias string, extra ...string) *topology.Host {
	t.Helper()
	body := fmt.Sprintf("Host %s\n  HostName 127.0.0.1\n  Port %d\n  User root\n  IdentityFile %s\n", alias, ts.port, f.keyFile)
	for _, l := range extra {
		body += "  " + l + "\n"
	}
	if err := os.WriteFile(filepath.Join(mkdir(t, f.dir, ".ssh"), "config"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return &topology.Host{Name: "master", Address: alias}
}

// defaultConfig dials as an inventory that names no known_hosts does: the
// default ~/.ssh/known_hosts, with ~/.ssh/config honoured.
func defaultConfig(f *fixture) DialConfig {
	cfg := f.config()
	cfg.KnownHostsFile = filepath.Join(f.dir, ".ssh", "known_hosts")
	cfg.SSHConfigFile = ""
	return cfg
}

func TestUserKnownHostsFileFromSSHConfig(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	// OpenSSH reads every listed file; the key is in the second one.
	second := filepath.Join(f.dir, "kh", "second")
	mkdir(t, f.dir, "kh")
	trustIn(t, second, ts, ts.hostKeys...)
	h := sshConfigFixture(t, f, ts, "db-alias", "UserKnownHostsFile ~/kh/first %d/kh/second")

	s := f.dial(h, defaultConfig(f))
	if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}

	// An explicit known_hosts (inventory or --known-hosts) wins.
	cfg := defaultConfig(f)
	cfg.KnownHostsFile = f.knownHosts
	_, err := Dial(context.Background(), h, cfg)
	if err == nil {
		t.Fatal("explicit empty known_hosts: unknown key accepted")
	}
	mustContain(t, err.Error(), "unknown host key", f.knownHosts)
	if strings.Contains(err.Error(), "kh/second") {
		t.Errorf("explicit known_hosts was not the only one read: %v", err)
	}
}

func TestStrictHostKeyCheckingFromSSHConfig(t *testing.T) {
	for _, mode := range []string{"accept-new", "no"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t)
			ts := newTestServer(t)
			h := sshConfigFixture(t, f, ts, "db-alias", "UserKnownHostsFile ~/kh/first ~/kh/second",
				"StrictHostKeyChecking "+mode)
			f.dial(h, defaultConfig(f)).Close()
			// The new key goes to the first file, as OpenSSH writes it.
			content, err := os.ReadFile(filepath.Join(f.dir, "kh", "first"))
			if err != nil || !strings.Contains(string(content), ts.hostKeys[0].PublicKey().Type()) {
				t.Fatalf("first known_hosts file: %q, %v", content, err)
			}

			// A changed key is refused whatever the ssh config says.
			other := newTestServer(t)
			h2 := sshConfigFixture(t, f, other, "db-alias", "UserKnownHostsFile ~/kh/first",
				"StrictHostKeyChecking "+mode)
			// Same address, different key: record the old one for it.
			trustIn(t, filepath.Join(f.dir, "kh", "first"), other, ts.hostKeys[0])
			if _, err := Dial(context.Background(), h2, defaultConfig(f)); err == nil ||
				!strings.Contains(err.Error(), "HOST KEY CHANGED") {
				t.Errorf("changed key with StrictHostKeyChecking %s: %v", mode, err)
			}
		})
	}
}

func TestStrictHostKeyCheckingYesRefusesNewKeys(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	h := sshConfigFixture(t, f, ts, "db-alias", "StrictHostKeyChecking yes")
	if _, err := Dial(context.Background(), h, defaultConfig(f)); err == nil {
		t.Fatal("new key accepted with StrictHostKeyChecking yes")
	}
	bad := sshConfigFixture(t, f, ts, "db-alias", "StrictHostKeyChecking maybe")
	_, err := Dial(context.Background(), bad, defaultConfig(f))
	if err == nil {
		t.Fatal("StrictHostKeyChecking maybe accepted")
	}
	mustContain(t, err.Error(), "StrictHostKeyChecking", "maybe", "config")
}
