package executor

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestUnknownHostKeyRefusedWithFingerprint(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	_, err := Dial(context.Background(), f.host(ts), f.config())
	if err == nil {
		t.Fatal("unknown host accepted")
	}
	key := ts.hostKeys[0].PublicKey()
	msg := err.Error()
	mustContain(t, msg, "db1 127.0.0.1: ", ts.addr(), key.Type(), gossh.FingerprintSHA256(key), f.knownHosts, "--accept-new-host-keys")
	if strings.Contains(msg, "\n") {
		t.Errorf("message is not one line: %q", msg)
	}
	if _, err := os.Stat(f.knownHosts); !os.IsNotExist(err) {
		t.Errorf("known_hosts written without --accept-new-host-keys (%v)", err)
	}
}

func TestAcceptNewHostKeyAppendsAndSticks(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	cfg := f.config()
	cfg.KnownHostsFile = filepath.Join(f.dir, "new", "dir", "known_hosts")
	cfg.AcceptNewHostKeys = true
	f.dial(f.host(ts), cfg).Close()

	fi, err := os.Stat(cfg.KnownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("known_hosts mode %o, want 600", fi.Mode().Perm())
	}
	content, _ := os.ReadFile(cfg.KnownHostsFile)
	want := knownhosts.Line([]string{knownhosts.Normalize(ts.addr())}, ts.hostKeys[0].PublicKey()) + "\n"
	if string(content) != want {
		t.Errorf("known_hosts:\n%s\nwant:\n%s", content, want)
	}

	cfg.AcceptNewHostKeys = false
	s := f.dial(f.host(ts), cfg)
	if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(cfg.KnownHostsFile); !bytes.Equal(again, content) {
		t.Errorf("known_hosts changed on a known host:\n%s", again)
	}
}

func TestChangedHostKeyAlwaysRefused(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	old := newEd25519Key()
	os.WriteFile(f.knownHosts, []byte("# comment\n"), 0o600)
	trustIn(t, f.knownHosts, ts, old)
	for _, accept := range []bool{false, true} {
		cfg := f.config()
		cfg.AcceptNewHostKeys = accept
		_, err := Dial(context.Background(), f.host(ts), cfg)
		if err == nil {
			t.Fatalf("accept=%v: changed key accepted", accept)
		}
		mustContain(t, err.Error(), "db1 127.0.0.1: HOST KEY CHANGED", ts.addr(),
			gossh.FingerprintSHA256(ts.hostKeys[0].PublicKey()), gossh.FingerprintSHA256(old.PublicKey()),
			f.knownHosts+":2")
	}
	if content, _ := os.ReadFile(f.knownHosts); strings.Count(string(content), "\n") != 2 {
		t.Errorf("known_hosts modified:\n%s", content)
	}
}

func TestKnownKeyTypeIsPreferred(t *testing.T) {
	// The server has two key types; only one is recorded. Without asking
	// for the recorded type, the server's first choice would look changed.
	ed, ec := newEd25519Key(), newECDSAKey()
	for _, known := range []*testKey{ed, ec} {
		t.Run(known.PublicKey().Type(), func(t *testing.T) {
			f := newFixture(t)
			ts := newTestServer(t, withHostKeys(ed, ec))
			trustIn(t, f.knownHosts, ts, known)
			s := f.dial(f.host(ts), f.config())
			if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestConcurrentAcceptsKeepKnownHostsValid(t *testing.T) {
	f := newFixture(t)
	const n = 12
	servers := make([]*testServer, n)
	for i := range servers {
		servers[i] = newTestServer(t)
	}
	os.WriteFile(f.knownHosts, []byte("# no trailing newline"), 0o600)
	cfg := f.config()
	cfg.AcceptNewHostKeys = true
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, ts := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Dial(context.Background(), f.host(ts), cfg)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
	fh, err := os.Open(f.knownHosts)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	lines := 0
	for sc := bufio.NewScanner(fh); sc.Scan(); {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			if _, _, _, _, _, err := gossh.ParseKnownHosts([]byte(line)); err != nil {
				t.Errorf("bad line %q: %v", line, err)
			}
			lines++
		}
	}
	if lines != n {
		t.Errorf("%d entries, want %d", lines, n)
	}
	cfg.AcceptNewHostKeys = false
	for i, ts := range servers {
		s, err := Dial(context.Background(), f.host(ts), cfg)
		if err != nil {
			t.Errorf("server %d not trusted afterwards: %v", i, err)
			continue
		}
		s.Close()
	}
}

func TestAlgorithmsForKnownKeys(t *testing.T) {
	f := newFixture(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 1024) // only the public half is used
	if err != nil {
		t.Fatal(err)
	}
	rsaPub, err := gossh.NewPublicKey(&rsaKey.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	ec := newECDSAKey()
	content := knownhosts.Line([]string{"[10.0.0.9]:2222"}, rsaPub) + "\n" +
		knownhosts.Line([]string{"[10.0.0.9]:2222"}, ec.PublicKey()) + "\n"
	os.WriteFile(f.knownHosts, []byte(content), 0o600)
	hk := &hostKeys{file: f.knownHosts, logf: t.Logf}
	_, algos, err := hk.config("10.0.0.9:2222")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256, gossh.KeyAlgoECDSA256}
	if fmt.Sprint(algos) != fmt.Sprint(want) {
		t.Errorf("algorithms %v, want %v", algos, want)
	}
	if _, algos, _ := hk.config("10.0.0.10:22"); algos != nil {
		t.Errorf("unknown host got algorithms %v", algos)
	}
}
