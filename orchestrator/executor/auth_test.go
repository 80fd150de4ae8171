package executor

import (
	"context"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"golang.org/x/crypto/ssh/agent"

	"github.com/orch-bench/orch/topology"
)

// encryptedKey is one key encrypted with "correct horse", made once: the
// KDF is deliberately slow.
var encryptedKey = sync.OnceValues(func() (*testKey, []byte) {
	k := newEd25519Key()
	block, err := gossh.MarshalPrivateKeyWithPassphrase(k.priv, "test", []byte("correct horse"))
	if err != nil {
		panic(err)
	}
	return k, pem.EncodeToMemory(block)
})

func writeEncryptedKey(t *testing.T, dir string) (*testKey, string) {
	key, pemBytes := encryptedKey()
	path := filepath.Join(dir, "encrypted_key")
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	return key, path
}

func TestEncryptedKeyWithPassphrase(t *testing.T) {
	f := newFixture(t)
	key, keyFile := writeEncryptedKey(t, f.dir)
	ts := newTestServer(t, withAuthorized(key.PublicKey()))
	f.trust(ts)
	h := f.host(ts)
	h.SSH.IdentityFiles = []string{keyFile}

	// No passphrase configured and no other way in: the file is named.
	_, err := Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("Dial with an encrypted key and no passphrase succeeded")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: ", keyFile, "encrypted", "passphrase")

	h.SSH.Passphrase = topology.Secret{Env: "TEST_KEY_PASSPHRASE"}
	t.Setenv("TEST_KEY_PASSPHRASE", "wrong")
	_, err = Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("Dial with a wrong passphrase succeeded")
	}
	mustContain(t, err.Error(), keyFile, "cannot decrypt")

	t.Setenv("TEST_KEY_PASSPHRASE", "correct horse")
	s := f.dial(h, f.config())
	if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
}

func TestEncryptedKeySkippedNoteOnAuthFailure(t *testing.T) {
	f := newFixture(t)
	key, keyFile := writeEncryptedKey(t, f.dir)
	// A password exists, so the encrypted key is skipped, not fatal; when
	// login then fails, the error still names the skipped file.
	ts := newTestServer(t, withAuthorized(key.PublicKey()))
	f.trust(ts)
	h := f.host(ts)
	h.SSH.IdentityFiles = []string{keyFile}
	h.SSH.Password = topology.InlineSecret("nope")
	_, err := Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("Dial succeeded")
	}
	mustContain(t, err.Error(), "unable to authenticate", keyFile, "encrypted")
}

func TestPasswordAuth(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t, withAuthorized(), withPassword("s3cret"))
	f.trust(ts)
	h := f.host(ts)
	h.SSH.IdentityFiles = nil // defaults under the empty HOME: none exist
	h.SSH.Password = topology.Secret{Env: "TEST_SSH_PASSWORD"}
	t.Setenv("TEST_SSH_PASSWORD", "s3cret")
	s := f.dial(h, f.config())
	res, err := s.Run(context.Background(), Command{Script: "echo in"})
	if err != nil || string(res.Stdout) != "in\n" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}

	t.Setenv("TEST_SSH_PASSWORD", "wrong")
	_, err = Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("wrong password accepted")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: ssh root@"+ts.addr(), "unable to authenticate")
}

func TestAgentAuth(t *testing.T) {
	f := newFixture(t)
	key := newEd25519Key()
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: key.priv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(f.dir, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { agent.ServeAgent(keyring, c); c.Close() }()
		}
	}()
	t.Setenv("SSH_AUTH_SOCK", sock)

	ts := newTestServer(t, withAuthorized(key.PublicKey()))
	f.trust(ts)
	h := f.host(ts)
	h.SSH.IdentityFiles = nil
	s := f.dial(h, f.config())
	if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
}

func TestNoCredentialsAtAll(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	h := f.host(ts)
	h.SSH.IdentityFiles = nil
	_, err := Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("Dial succeeded")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: no way to log in")
}

func TestMissingExplicitIdentityFile(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	h := f.host(ts)
	h.SSH.IdentityFiles = []string{filepath.Join(f.dir, "absent")}
	_, err := Dial(context.Background(), h, f.config())
	if err == nil {
		t.Fatal("Dial succeeded")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: identity file", "absent")
}

func TestDefaultIdentityFilesUnderHome(t *testing.T) {
	f := newFixture(t)
	ts := newTestServer(t)
	f.trust(ts)
	writeKey(t, filepath.Join(mkdir(t, f.dir, ".ssh"), "id_ecdsa"), clientKey)
	h := f.host(ts)
	h.SSH.IdentityFiles = nil
	s := f.dial(h, f.config())
	if _, err := s.Run(context.Background(), Command{Script: "true"}); err != nil {
		t.Fatal(err)
	}
}
