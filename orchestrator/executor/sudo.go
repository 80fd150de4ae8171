package executor

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// sudoMode is how this connection's user becomes root, found by probing.
type sudoMode int

const (
	sudoUnknown    sudoMode = iota
	sudoNoPassword          // sudo -n works (NOPASSWD)
	sudoPassword            // sudo -S with the password on stdin's first line
)

// sudoState caches the probe: the mode, the verified password, or the
// definitive reason sudo cannot be used.
type sudoState struct {
	mode     sudoMode
	password string
	err      error
}

// asRoot wraps p so it runs as root. Root logins run it as is. The password
// never enters argv: `sudo -S` reads it from stdin's first line, ahead of the
// secret lines and the caller's stdin. `-k` makes sudo always ask, so the
// line is always consumed; the probe verified the password, so sudo never
// retries by reading further lines.
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
	inner := "sh -c " + shell.Quote(p.script)
	if st.mode == sudoNoPassword {
		return prepared{script: "sudo -n -- " + inner, prefix: p.prefix}, nil
	}
	prefix := append([]byte(st.password+"\n"), p.prefix...)
	return prepared{script: "sudo -S -k -p '' -- " + inner, prefix: prefix}, nil
}

// probeSudo finds how sudo works here, once per executor: `sudo -n true`,
// and when that needs a password, a check that the configured one works.
// Transport failures are not cached.
func (s *SSH) probeSudo(ctx context.Context) (sudoState, error) {
	s.sudoMu.Lock()
	defer s.sudoMu.Unlock()
	if s.sudo.mode != sudoUnknown || s.sudo.err != nil {
		return s.sudo, s.sudo.err
	}
	out := newOutputs(Command{})
	code, err := s.exec(ctx, "sudo -n true", nil, out, false)
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
	out = newOutputs(Command{})
	code, err = s.exec(ctx, "sudo -S -k -p '' true", strings.NewReader(password+"\n"), out, false)
	if err != nil {
		return sudoState{}, fmt.Errorf("sudo probe: %w", err)
	}
	if code != 0 {
		s.sudo.err = fmt.Errorf("sudo refused the configured password (ssh.sudo_password, else ssh.password): %s", oneLine(out.stderrTail()))
		return s.sudo, s.sudo.err
	}
	s.sudo = sudoState{mode: sudoPassword, password: password}
	return s.sudo, nil
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
