package integration

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// newSystemdLab builds a systemd lab of the test's own on subnet (each
// test a different one) with `orch lab up --systemd` and more flags, torn down when the
// test ends, and returns it (l.inventory is its lab.yaml) and its state
// dir. It needs root and ORCH_BIN.
func newSystemdLab(t *testing.T, subnet string, more ...string) (*lab, string) {
	t.Helper()
	bin := needBin(t)
	dir := t.TempDir()
	l := &lab{bin: bin, inventory: filepath.Join(dir, "inv", "lab.yaml")}
	state := filepath.Join(dir, "state")
	start := time.Now()
	l.mustOK(t, append([]string{"lab", "up", "--systemd", "--subnet", subnet, "--state-dir", state, "-i", l.inventory}, more...)...)
	t.Logf("systemd lab %v up in %.1fs", more, time.Since(start).Seconds())
	t.Cleanup(func() { l.cleanup(t, "lab", "down", "--state-dir", state, "-i", l.inventory) })
	return l, state
}

// rootSSH logs in to a systemd lab host as root with the lab's key,
// verifying its host key against the lab's known_hosts.
func rootSSH(t *testing.T, state, ip string) *ssh.Client {
	t.Helper()
	keyPEM, err := os.ReadFile(filepath.Join(state, "id_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	hostKeys, err := knownhosts.New(filepath.Join(state, "known_hosts"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", net.JoinHostPort(ip, "22"), &ssh.ClientConfig{
		User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)}, HostKeyCallback: hostKeys, Timeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatalf("ssh root@%s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sshRun runs cmd with stdin (where secrets go) and returns its stdout.
func sshRun(t *testing.T, c *ssh.Client, cmd, stdin string) string {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr, s.Stdin = &out, &errb, strings.NewReader(stdin)
	if err := s.Run(cmd); err != nil {
		t.Fatalf("%s: %v: %s", cmd, err, strings.TrimSpace(errb.String()))
	}
	return out.String()
}

// statusJSON is the part of `orch status --json` the stock-host tests read.
type statusJSON struct {
	Master struct {
		Server   string `json:"server"`
		SemiSync *struct {
			Active  bool   `json:"active"`
			Clients *int64 `json:"clients"`
		} `json:"semi_sync"`
	} `json:"master"`
	Slaves []struct {
		Name     string `json:"name"`
		ReadOnly *bool  `json:"read_only"`
		Replica  struct {
			IO  string `json:"io_running"`
			SQL string `json:"sql_running"`
		} `json:"replica"`
	} `json:"slaves"`
}

// clusterStatus runs `orch status --json` on inv, which must succeed.
func clusterStatus(t *testing.T, l *lab, inv string) statusJSON {
	t.Helper()
	var st statusJSON
	if err := json.Unmarshal([]byte(l.mustOK(t, "status", "-i", inv, "--json").stdout), &st); err != nil {
		t.Fatal(err)
	}
	return st
}

// checkReplicas wants two slaves replicating (IO and SQL threads running),
// both read-only.
func (st statusJSON) checkReplicas(t *testing.T) {
	t.Helper()
	if len(st.Slaves) != 2 {
		t.Fatalf("status: %d slaves", len(st.Slaves))
	}
	for _, s := range st.Slaves {
		if s.Replica.IO != "Yes" || s.Replica.SQL != "Yes" || s.ReadOnly == nil || !*s.ReadOnly {
			t.Errorf("%s: IO %q SQL %q read_only %v after up", s.Name, s.Replica.IO, s.Replica.SQL, s.ReadOnly)
		}
	}
}

// dbHostsSSH logs in to the lab's three database hosts as root (rootSSH).
func dbHostsSSH(t *testing.T, state string, doc map[string]any) map[string]*ssh.Client {
	t.Helper()
	hosts := map[string]*ssh.Client{}
	for _, name := range []string{"master", "slave1", "slave2"} {
		hosts[name] = rootSSH(t, state, hostAddress(t, doc, name))
	}
	return hosts
}
