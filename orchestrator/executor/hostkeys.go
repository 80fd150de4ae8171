package executor

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// hostKeys verifies server keys against known_hosts files and, when
// allowed, appends keys of hosts it has never seen to the first one, as
// OpenSSH does with UserKnownHostsFile. A key that differs from a recorded
// one is always refused.
type hostKeys struct {
	file   string   // read, and where new keys go; "" for none at all
	also   []string // read only (UserKnownHostsFile's further files)
	accept bool
	logf   func(format string, args ...any)
}

// hostKeysFor chooses the known_hosts files and the policy for one SSH
// server. An explicit known_hosts (inventory or --known-hosts, anything but
// the default) wins; otherwise ssh_config's UserKnownHostsFile for the
// host does, then the default. New keys are accepted with
// --accept-new-host-keys or when ssh_config's StrictHostKeyChecking is
// accept-new (or no/off, which orch reads as accept-new: a changed key is
// still refused).
func hostKeysFor(cfg DialConfig, defaultFile string, ep endpoint, logf func(string, ...any)) *hostKeys {
	hk := &hostKeys{file: cfg.KnownHostsFile, accept: cfg.AcceptNewHostKeys, logf: logf}
	if hk.file == "" || hk.file == defaultFile {
		hk.file = defaultFile
		if ep.knownHosts != nil {
			hk.file, hk.also = "", nil
			for _, f := range ep.knownHosts {
				switch {
				case f == "none":
				case hk.file == "":
					hk.file = f
				default:
					hk.also = append(hk.also, f)
				}
			}
		}
	}
	switch ep.strict {
	case "accept-new":
		hk.accept = true
	case "no", "off":
		if !hk.accept {
			logf("ssh config: StrictHostKeyChecking %s for %s: accepting keys of new hosts, refusing changed keys", ep.strict, ep.alias)
		}
		hk.accept = true
	}
	return hk
}

// files lists every known_hosts file read, for messages.
func (hk *hostKeys) files() string {
	all := append([]string{hk.file}, hk.also...)
	if hk.file == "" {
		all = hk.also
	}
	if len(all) == 0 {
		return "no known_hosts file (UserKnownHostsFile none)"
	}
	return strings.Join(all, ", ")
}

// hostKeyError is a refused host key. Its message is one line that says
// what to do next.
type hostKeyError struct{ msg string }

func (e *hostKeyError) Error() string { return e.msg }

// load parses the known_hosts files; missing files are empty.
func (hk *hostKeys) load() (ssh.HostKeyCallback, error) {
	var present []string
	for _, f := range append([]string{hk.file}, hk.also...) {
		if f == "" {
			continue
		}
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		present = append(present, f)
	}
	cb, err := knownhosts.New(present...)
	if err != nil {
		return nil, fmt.Errorf("known hosts: %w", err)
	}
	return cb, nil
}

// config returns the host key callback and the preferred host key
// algorithms for a server at addr ("host:port").
func (hk *hostKeys) config(addr string) (ssh.HostKeyCallback, []string, error) {
	db, err := hk.load()
	if err != nil {
		return nil, nil, err
	}
	cb := func(hostname string, remote net.Addr, key ssh.PublicKey) error {
		return hk.verify(db, addr, remote, key)
	}
	return cb, knownAlgorithms(db, addr), nil
}

func (hk *hostKeys) verify(db ssh.HostKeyCallback, addr string, remote net.Addr, key ssh.PublicKey) error {
	err := db(addr, remote, key)
	if err == nil {
		return nil
	}
	var keyErr *knownhosts.KeyError
	var revoked *knownhosts.RevokedError
	switch {
	case errors.As(err, &keyErr) && len(keyErr.Want) > 0:
		return changedKeyError(addr, key, keyErr.Want)
	case errors.As(err, &keyErr):
		if !hk.accept {
			return &hostKeyError{fmt.Sprintf("unknown host key for %s (%s %s), not in %s: verify the fingerprint, then re-run with --accept-new-host-keys",
				addr, key.Type(), ssh.FingerprintSHA256(key), hk.files())}
		}
		return hk.appendKey(addr, remote, key)
	case errors.As(err, &revoked):
		return &hostKeyError{fmt.Sprintf("host key for %s (%s %s) is revoked in %s:%d",
			addr, key.Type(), ssh.FingerprintSHA256(key), revoked.Revoked.Filename, revoked.Revoked.Line)}
	}
	return fmt.Errorf("host key for %s: %w", addr, err)
}

func changedKeyError(addr string, key ssh.PublicKey, want []knownhosts.KnownKey) error {
	known := make([]string, len(want))
	for i, w := range want {
		known[i] = fmt.Sprintf("%s:%d has %s %s", w.Filename, w.Line, w.Key.Type(), ssh.FingerprintSHA256(w.Key))
	}
	return &hostKeyError{fmt.Sprintf("HOST KEY CHANGED for %s: server offered %s %s but %s; this may be a man-in-the-middle attack: if the change is expected, remove the old line and re-run with --accept-new-host-keys",
		addr, key.Type(), ssh.FingerprintSHA256(key), strings.Join(known, ", "))}
}

// appendKey records a new host key. An exclusive flock serialises writers
// (goroutines and other orch processes alike); under the lock the file is
// read again so a key appended meanwhile is neither duplicated nor allowed
// to conflict.
func (hk *hostKeys) appendKey(addr string, remote net.Addr, key ssh.PublicKey) error {
	if hk.file == "" {
		hk.logf("accepted host key for %s (%s %s) without recording it: UserKnownHostsFile is none",
			addr, key.Type(), ssh.FingerprintSHA256(key))
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(hk.file), 0o700); err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	f, err := os.OpenFile(hk.file, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("known hosts: lock %s: %w", hk.file, err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)

	content, err := io.ReadAll(f)
	if err != nil {
		return fmt.Errorf("known hosts: read %s: %w", hk.file, err)
	}
	if db, err := hk.load(); err == nil {
		err := db(addr, remote, key)
		var keyErr *knownhosts.KeyError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &keyErr) && len(keyErr.Want) > 0:
			return changedKeyError(addr, key, keyErr.Want)
		}
	}
	line := knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
	if len(content) > 0 && !bytes.HasSuffix(content, []byte("\n")) {
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		return fmt.Errorf("known hosts: append to %s: %w", hk.file, err)
	}
	hk.logf("added host key for %s (%s %s) to %s", addr, key.Type(), ssh.FingerprintSHA256(key), hk.file)
	return nil
}

// probeKey is a key no server has: checking it against the database lists
// the keys known for an address (knownhosts exposes no lookup).
var probeKey, _ = ssh.NewPublicKey(ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)))

// knownAlgorithms lists host key algorithms matching the keys recorded for
// addr, so a server with several key types presents the one we know instead
// of a different type that would look like a changed key. Nil when nothing
// is known (the library defaults then apply).
func knownAlgorithms(db ssh.HostKeyCallback, addr string) []string {
	// The remote address only matters when the host name is empty.
	remote := &net.TCPAddr{IP: net.IPv4zero}
	var keyErr *knownhosts.KeyError
	if !errors.As(db(addr, remote, probeKey), &keyErr) {
		return nil
	}
	var algos []string
	seen := map[string]bool{}
	for _, w := range keyErr.Want {
		for _, a := range algorithmsFor(w.Key.Type()) {
			if !seen[a] {
				seen[a] = true
				algos = append(algos, a)
			}
		}
	}
	return algos
}

// algorithmsFor maps a key type to the signature algorithms that use it.
func algorithmsFor(keyType string) []string {
	switch keyType {
	case ssh.KeyAlgoRSA:
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256}
	case ssh.CertAlgoRSAv01:
		return []string{ssh.CertAlgoRSASHA512v01, ssh.CertAlgoRSASHA256v01}
	}
	return []string{keyType}
}
