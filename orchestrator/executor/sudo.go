package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// sudoMode is how this connection's user becomes root, found by probing.
type sudoMode int

const (
	sudoUnknown    sudoMode = iota
	sudoNoPassword          // sudo -n works for orch's command shape (NOPASSWD)
	sudoPassword            // sudo -S with the password on stdin's first line, then the guard's nonce
)

// sudoState caches the probe: the mode, the verified password, or the
// definitive reason sudo cannot be used.
type sudoState struct {
	mode     sudoMode
	password string
	nonce    string // the guard's line after the password
	err      error
}

// rootShape is the command line every root command runs as: sudo rules
// name commands (NOPASSWD: /bin/sh), so the probe asks about this shape.
const rootShape = "-- sh -c "

// guardExit is the status of a root command refused because sudo did not
// read the password (see sudoGuard).
const guardExit = 98

// sudoGuard proves that sudo consumed the password line: the password is
// followed on stdin by a nonce line, and the root shell reads the next line
// before anything else. If sudo ran the command without asking (a NOPASSWD
// rule orch's probe did not see), the line the guard reads is the password
// itself: it is discarded, the command does not run, and nothing of the
// caller's ever reads it.
func sudoGuard(nonce string) string {
	return "IFS= read -r orch_sudo_nonce || exit " + strconv.Itoa(guardExit) + "\n" +
		`[ "$orch_sudo_nonce" = ` + shell.Quote(nonce) + ` ] || { orch_sudo_nonce=; ` +
		`echo 'orch: sudo ran the command without reading the password (a NOPASSWD rule for it?); refusing to run it' >&2; exit ` + strconv.Itoa(guardExit) + "; }\n" +
		"unset orch_sudo_nonce\n"
}

// asRoot wraps p so it runs as root. Root logins run it as is. The password
// never enters argv: `sudo -S` reads it from stdin's first line, ahead of the
// guard's nonce line, the secret lines and the caller's stdin. `-k` makes
// sudo ask whenever a password is needed at all; the guard proves it did.
func (s *SSH) asRoot(ctx context.Context, p prepared) (prepared, error) {
	user := s.route.target.user
	if user == "root" {
		return p, nil
	}
	if !s.host.SSH.Sudo {
		return prepared{}, fmt.Errorf("command needs root, but ssh user %s is not root: set ssh.sudo: true (or log in as root)", user)
	}
	st, err := s.probeSudo(ctx)
	if err != nil {
		return prepared{}, err
	}
	if st.mode == sudoNoPassword {
		return prepared{script: "sudo -n " + rootShape + shell.Quote(p.script), prefix: p.prefix}, nil
	}
	prefix := append([]byte(st.password+"\n"+st.nonce+"\n"), p.prefix...)
	return prepared{script: "sudo -S -k -p '' " + rootShape + shell.Quote(sudoGuard(st.nonce)+p.script), prefix: prefix}, nil
}

// probeSudo finds how sudo works here, once per executor: `sudo -n` with
// the shape of orch's root commands, and when that needs a password, that
// the configured one works and sudo reads it. Transport failures are not
// cached.
func (s *SSH) probeSudo(ctx context.Context) (sudoState, error) {
	s.sudoMu.Lock()
	defer s.sudoMu.Unlock()
	if s.sudo.mode != sudoUnknown || s.sudo.err != nil {
		return s.sudo, s.sudo.err
	}
	out := newOutputs(Command{})
	code, err := s.exec(ctx, "sudo -n "+rootShape+"'exit 0'", nil, out, false)
	if err != nil {
		return sudoState{}, fmt.Errorf("sudo probe: %w", err)
	}
	if code == 0 {
		s.sudo = sudoState{mode: sudoNoPassword}
		return s.sudo, nil
	}
	if code == 127 {
		s.sudo.err = errors.New("sudo is not installed: install it or log in as root")
		return s.sudo, s.sudo.err
	}
	password, err := s.sudoPassword()
	if err != nil {
		return sudoState{}, err
	}
	if password == "" {
		s.sudo.err = fmt.Errorf("sudo needs a password: set ssh.sudo_password or allow NOPASSWD (sudo -n said: %s)", oneLine(out.stderrTail()))
		return s.sudo, s.sudo.err
	}
	if strings.ContainsAny(password, "\n\r") {
		s.sudo.err = errors.New("sudo password contains a newline, which sudo -S cannot read")
		return s.sudo, s.sudo.err
	}
	nonce, err := newNonce()
	if err != nil {
		return sudoState{}, err
	}
	out = newOutputs(Command{})
	code, err = s.exec(ctx, "sudo -S -k -p '' "+rootShape+shell.Quote(sudoGuard(nonce)+"exit 0"), strings.NewReader(password+"\n"+nonce+"\n"), out, false)
	switch {
	case err != nil:
		return sudoState{}, fmt.Errorf("sudo probe: %w", err)
	case code == guardExit:
		s.sudo.err = fmt.Errorf("sudo -n refused, yet sudo -S ran without reading the password: %s", oneLine(out.stderrTail()))
		return s.sudo, s.sudo.err
	case code != 0:
		s.sudo.err = fmt.Errorf("sudo refused the configured password (ssh.sudo_password, else ssh.password): %s", oneLine(out.stderrTail()))
		return s.sudo, s.sudo.err
	}
	s.sudo = sudoState{mode: sudoPassword, password: password, nonce: nonce}
	return s.sudo, nil
}

// newNonce is the guard's line: random, so no password can equal it.
func newNonce() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("sudo: nonce: %w", err)
	}
	return "orch-sudo-" + hex.EncodeToString(b), nil
}

// sudoPassword is ssh.sudo_password, else the SSH password, else "".
func (s *SSH) sudoPassword() (string, error) {
	for _, sec := range []struct {
		name string
		set  bool
		get  func() (string, error)
	}{
		{"ssh.sudo_password", s.host.SSH.SudoPassword.IsSet(), s.host.SSH.SudoPassword.Resolve},
		{"ssh.password", s.host.SSH.Password.IsSet(), s.host.SSH.Password.Resolve},
	} {
		if !sec.set {
			continue
		}
		v, err := sec.get()
		if err != nil {
			return "", fmt.Errorf("%s: %w", sec.name, err)
		}
		return v, nil
	}
	return "", nil
}

func oneLine(s string) string {
	if s == "" {
		return "no message"
	}
	return strings.ReplaceAll(s, "\n", "; ")
}
