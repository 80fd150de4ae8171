package integration

import (
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// variant writes a copy of the lab inventory whose known_hosts is a file the
// test controls, and returns the inventory path and that known_hosts path.
func (l *lab) variant(t *testing.T, knownHosts []byte) (inv, kh string) {
	t.Helper()
	dir := t.TempDir()
	doc := l.inventoryDoc(t, "lab.yaml")
	kh = filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, knownHosts, 0o600); err != nil {
		t.Fatal(err)
	}
	doc["known_hosts"] = kh
	inv = filepath.Join(dir, "lab.yaml")
	writeYAML(t, inv, doc)
	return inv, kh
}

func (l *lab) knownHosts(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(l.inventoryDoc(t, "lab.yaml")["known_hosts"].(string))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestChangedHostKeyRefused: when master presents a key other than the
// recorded one, orch refuses it, with or without --accept-new-host-keys, and
// the other hosts still check out.
func TestChangedHostKeyRefused(t *testing.T) {
	l := needLab(t)
	addr := hostAddress(t, l.inventoryDoc(t, "lab.yaml"), "master")
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	// Replace master's line by a key it does not have.
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(l.knownHosts(t))), "\n") {
		if !strings.Contains(line, addr+" ") && !strings.Contains(line, "["+addr+"]") {
			lines = append(lines, line)
		}
	}
	lines = append(lines, knownhosts.Line([]string{knownhosts.Normalize(addr + ":22")}, sshPub))
	inv, kh := l.variant(t, []byte(strings.Join(lines, "\n")+"\n"))

	for _, extra := range [][]string{nil, {"--accept-new-host-keys"}} {
		r := l.orch(t, append([]string{"check", "-i", inv}, extra...)...)
		if r.code == 0 {
			t.Fatalf("check %v accepted a changed host key", extra)
		}
		if !strings.Contains(r.stdout, "master "+addr) || !strings.Contains(strings.ToLower(r.stdout), "changed") {
			t.Errorf("check %v: no changed-key error naming master:\n%s", extra, r.stdout)
		}
		if !strings.Contains(r.stdout, ssh.FingerprintSHA256(sshPub)) {
			t.Errorf("check %v: the recorded fingerprint is not named", extra)
		}
	}
	after, _ := os.ReadFile(kh)
	if strings.Count(string(after), "\n") != len(lines) {
		t.Errorf("known_hosts was modified after a changed key:\n%s", after)
	}
}

// TestUnknownHostKeys: an empty known_hosts refuses every host with its
// fingerprint; --accept-new-host-keys records them, and the next run needs
// no flag.
func TestUnknownHostKeys(t *testing.T) {
	l := needLab(t)
	inv, kh := l.variant(t, nil)
	r := l.orch(t, "check", "-i", inv)
	if r.code == 0 {
		t.Fatal("check accepted unknown host keys without --accept-new-host-keys")
	}
	for _, h := range []string{"master", "slave1", "slave2", "loadbox"} {
		if !strings.Contains(r.stdout, h+" ") {
			t.Errorf("unknown-key error does not name %s", h)
		}
	}
	if !strings.Contains(r.stdout, "SHA256:") || !strings.Contains(r.stdout, "--accept-new-host-keys") {
		t.Errorf("unknown-key error lacks the fingerprint or the hint:\n%s", r.stdout)
	}
	acc := l.mustOK(t, "check", "-i", inv, "--accept-new-host-keys")
	b, _ := os.ReadFile(kh)
	if n := strings.Count(string(b), "\n"); n != 4 {
		t.Fatalf("known_hosts has %d lines after accepting, want 4:\n%s", n, b)
	}
	// Each key orch trusted is announced with its fingerprint, once.
	announced := regexp.MustCompile(`added host key for \S+ \(\S+ SHA256:[A-Za-z0-9+/]+\) to ` + regexp.QuoteMeta(kh))
	if n := len(announced.FindAllString(acc.stderr, -1)); n != 4 {
		t.Errorf("%d accepted keys announced, want 4:\n%s", n, acc.stderr)
	}
	if again := l.mustOK(t, "check", "-i", inv); strings.Contains(again.stderr, "added host key") {
		t.Errorf("a known key announced again:\n%s", again.stderr)
	}
}

// TestUnreachableHost: with slave2's link down, check fails within the
// connect timeout, names slave2, and still prints the other hosts.
func TestUnreachableHost(t *testing.T) {
	l := needLab(t)
	l.fault(t, "slave2", "link-down")
	defer l.fault(t, "slave2", "link-up")
	addr := hostAddress(t, l.inventoryDoc(t, "lab.yaml"), "slave2")
	r := l.orch(t, "check", "-i", l.inventory, "--connect-timeout", "5s")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1", r.code)
	}
	if !strings.Contains(r.stdout, "slave2 "+addr) {
		t.Errorf("no error naming slave2 %s:\n%s", addr, r.stdout)
	}
	if !strings.Contains(r.stdout, "MariaDB 10.") {
		t.Errorf("the reachable hosts' results are missing:\n%s", r.stdout)
	}
	// Functional bound, not a speed target: the dead host must not hold the
	// command much past its 5 s connect timeout (the checks take a few seconds more).
	if r.elapsed > 30*time.Second {
		t.Errorf("check took %s with one host down and a 5s connect timeout", r.elapsed)
	}
	r = l.orch(t, "exec", "-i", l.inventory, "--connect-timeout", "5s", "--", "hostname")
	if r.code != 1 || !containsLine(r.stdout, "master", "master") || !strings.Contains(r.stderr, "slave2 "+addr) {
		t.Errorf("exec with slave2 down: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}
