package executor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/orch-bench/orch/topology"
)

// fakeSudo behaves like sudo for the options orch uses: -n fails unless
// NOPASSWD is on; -S reads the password from stdin's first line (byte by
// byte through the shell's read, as sudo does). Every call is logged.
// FAKE_SUDO_NOPASSWD_CMD (a program name) and FAKE_SUDO_NOPASSWD_MATCH (a
// word in the command's arguments) are sudoers NOPASSWD rules for one
// command: sudo runs it without asking, so -S reads nothing.
const fakeSudo = `#!/bin/sh
stdin_pw= opts=
while [ $# -gt 0 ]; do
  case "$1" in
    -n|-k) opts="$opts$1 " ;;
    -S) opts="$opts$1 "; stdin_pw=1 ;;
    -p) shift; opts="$opts-p '$1' " ;;
    --) opts="$opts-- "; shift; break ;;
    -*) echo "fake sudo: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
echo "$opts$1" >> "$FAKE_SUDO_LOG"
nopw=$FAKE_SUDO_NOPASSWD
[ -n "$FAKE_SUDO_NOPASSWD_CMD" ] && [ "$1" = "$FAKE_SUDO_NOPASSWD_CMD" ] && nopw=1
case "$*" in *"${FAKE_SUDO_NOPASSWD_MATCH:-no match set}"*) nopw=1 ;; esac
if [ "$nopw" = 1 ]; then
  :
elif [ -n "$stdin_pw" ]; then
  IFS= read -r pw || { echo "sudo: no password was provided" >&2; exit 1; }
  [ "$pw" = "$(cat "$FAKE_SUDO_PASSWORD_FILE")" ] || { echo "sudo: 1 incorrect password attempt" >&2; exit 1; }
else
  echo "sudo: a password is required" >&2; exit 1
fi
FAKE_SUDO_ROOT=1 exec "$@"
`

type sudoEnv struct {
	log string
}

// newSudoServer starts a server whose PATH has the fake sudo first.
func newSudoServer(t *testing.T, f *fixture, nopasswd bool, password string, extraEnv ...string) (*testServer, *sudoEnv) {
	t.Helper()
	bin := mkdir(t, f.dir, "bin")
	if err := os.WriteFile(filepath.Join(bin, "sudo"), []byte(fakeSudo), 0o755); err != nil {
		t.Fatal(err)
	}
	pwFile := filepath.Join(f.dir, "sudo-password")
	os.WriteFile(pwFile, []byte(password+"\n"), 0o600)
	env := &sudoEnv{log: filepath.Join(f.dir, "sudo.log")}
	nopw := "0"
	if nopasswd {
		nopw = "1"
	}
	ts := newTestServer(t, withEnv(append([]string{"PATH=" + bin + ":" + os.Getenv("PATH"), "FAKE_SUDO_LOG=" + env.log,
		"FAKE_SUDO_PASSWORD_FILE=" + pwFile, "FAKE_SUDO_NOPASSWD=" + nopw}, extraEnv...)...))
	f.trust(ts)
	return ts, env
}

func (e *sudoEnv) calls(t *testing.T) []string {
	b, err := os.ReadFile(e.log)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func sudoHost(f *fixture, ts *testServer) *topology.Host {
	h := f.host(ts)
	h.SSH.User = "alice"
	h.SSH.Sudo = true
	return h
}

// rootCheck prints whether it ran under (fake) sudo, a secret and stdin.
func rootCheck() Command {
	return Command{
		Script:    `printf '%s|%s|' "${FAKE_SUDO_ROOT:-user}" "$TOKEN"; cat`,
		Sudo:      true,
		SecretEnv: map[string]string{"TOKEN": "tok"},
		Stdin:     strings.NewReader("data"),
	}
}

func TestSudoNoPassword(t *testing.T) {
	f := newFixture(t)
	ts, env := newSudoServer(t, f, true, "")
	s := f.dial(sudoHost(f, ts), f.config())
	for i := 0; i < 3; i++ {
		res, err := s.Run(context.Background(), rootCheck())
		if err != nil || string(res.Stdout) != "1|tok|data" {
			t.Fatalf("%q, %v", res.Stdout, err)
		}
	}
	calls := env.calls(t)
	if len(calls) != 4 || calls[0] != "-n -- sh" || calls[1] != "-n -- sh" {
		t.Errorf("sudo calls %q: want one probe, then sudo -n per command", calls)
	}
}

func TestSudoPasswordOnStdin(t *testing.T) {
	f := newFixture(t)
	const pw = `pa ss'word$(x)`
	ts, env := newSudoServer(t, f, false, pw)
	h := sudoHost(f, ts)
	h.SSH.SudoPassword = topology.Secret{Env: "TEST_SUDO_PASSWORD"}
	t.Setenv("TEST_SUDO_PASSWORD", pw)
	s := f.dial(h, f.config())
	res, err := s.Run(context.Background(), rootCheck())
	if err != nil || string(res.Stdout) != "1|tok|data" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	calls := env.calls(t)
	if len(calls) != 3 || calls[0] != "-n -- sh" || calls[1] != "-S -k -p '' -- sh" || calls[2] != "-S -k -p '' -- sh" {
		t.Errorf("sudo calls %q", calls)
	}
	for _, c := range ts.Commands() {
		if strings.Contains(c, "pa ss") || strings.Contains(c, "tok") {
			t.Errorf("secret in command text: %q", c)
		}
	}
	// Without sudo the command runs as the login user.
	res, err = s.Run(context.Background(), Command{Script: `echo "${FAKE_SUDO_ROOT:-user}"`})
	if err != nil || string(res.Stdout) != "user\n" {
		t.Errorf("%q, %v", res.Stdout, err)
	}
}

func TestSudoFallsBackToSSHPassword(t *testing.T) {
	f := newFixture(t)
	ts, _ := newSudoServer(t, f, false, "sshpw")
	h := sudoHost(f, ts)
	h.SSH.Password = topology.InlineSecret("sshpw")
	s := f.dial(h, f.config())
	if res, err := s.Run(context.Background(), rootCheck()); err != nil || string(res.Stdout) != "1|tok|data" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
}

func TestSudoFailures(t *testing.T) {
	f := newFixture(t)
	ts, env := newSudoServer(t, f, false, "right")

	s := f.dial(sudoHost(f, ts), f.config())
	_, err := s.Run(context.Background(), Command{Script: "true", Sudo: true})
	if err == nil {
		t.Fatal("sudo without a password succeeded")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: sudo needs a password: set ssh.sudo_password or allow NOPASSWD")
	// The verdict is cached: no second probe.
	s.Run(context.Background(), Command{Script: "true", Sudo: true})
	if n := len(env.calls(t)); n != 1 {
		t.Errorf("%d sudo calls, want 1", n)
	}

	h := sudoHost(f, ts)
	h.SSH.SudoPassword = topology.InlineSecret("wrong")
	s = f.dial(h, f.config())
	_, err = s.Run(context.Background(), Command{Script: "true", Sudo: true})
	if err == nil {
		t.Fatal("wrong sudo password accepted")
	}
	mustContain(t, err.Error(), "db1 127.0.0.1: sudo refused the configured password", "incorrect password")

	h = sudoHost(f, ts)
	h.SSH.Sudo = false
	s = f.dial(h, f.config())
	_, err = s.Run(context.Background(), Command{Script: "true", Sudo: true})
	if err == nil {
		t.Fatal("root command without ssh.sudo ran")
	}
	mustContain(t, err.Error(), "ssh user alice is not root", "ssh.sudo")
}

func TestSudoSkippedForRoot(t *testing.T) {
	f := newFixture(t)
	ts, env := newSudoServer(t, f, true, "")
	h := f.host(ts) // user root
	h.SSH.Sudo = true
	s := f.dial(h, f.config())
	res, err := s.Run(context.Background(), rootCheck())
	if err != nil || string(res.Stdout) != "user|tok|data" {
		t.Fatalf("%q, %v", res.Stdout, err)
	}
	if calls := env.calls(t); len(calls) != 0 {
		t.Errorf("root used sudo: %q", calls)
	}
}

// A sudoers rule NOPASSWD: /bin/sh (and a password for everything else):
// orch's root commands are `sh -c ...`, so they need no password, and the
// password must never reach the command's stdin. Before, orch probed with
// `sudo -n true`, chose `sudo -S`, and sudo left the password line to the
// command: `cat` printed it.
func TestSudoNopasswdShellGetsNoPassword(t *testing.T) {
	f := newFixture(t)
	const pw = "sudo-secret-pw"
	ts, env := newSudoServer(t, f, false, pw, "FAKE_SUDO_NOPASSWD_CMD=sh")
	h := sudoHost(f, ts)
	h.SSH.SudoPassword = topology.InlineSecret(pw)
	s := f.dial(h, f.config())
	res, err := s.Run(context.Background(), Command{Script: "cat", Sudo: true, Stdin: strings.NewReader("data")})
	if err != nil || string(res.Stdout) != "data" {
		t.Fatalf("sudo cat: %q, %v; want exactly the caller's stdin", res.Stdout, err)
	}
	for _, c := range env.calls(t) {
		if strings.Contains(c, "-S") {
			t.Errorf("sudo -S used although sudo -n works for orch's command shape: %q", env.calls(t))
		}
	}
}

// A NOPASSWD rule for one exact command line the probe cannot see: sudo
// -S runs it without reading the password. The guard reads the password
// line instead of the command, discards it and refuses to run.
func TestSudoGuardRefusesUnreadPassword(t *testing.T) {
	f := newFixture(t)
	const pw = "sudo-secret-pw"
	ts, _ := newSudoServer(t, f, false, pw, "FAKE_SUDO_NOPASSWD_MATCH=nopasswd-marker")
	h := sudoHost(f, ts)
	h.SSH.SudoPassword = topology.InlineSecret(pw)
	s := f.dial(h, f.config())
	// The probe's shape asks for the password: password mode.
	if res, err := s.Run(context.Background(), Command{Script: "echo ok", Sudo: true}); err != nil || string(res.Stdout) != "ok\n" {
		t.Fatalf("sudo echo: %q, %v", res.Stdout, err)
	}
	res, err := s.Run(context.Background(), Command{Script: "cat # nopasswd-marker", Sudo: true, Stdin: strings.NewReader("data")})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.ExitCode != guardExit {
		t.Fatalf("unread password: %v, want the guard exit %d", err, guardExit)
	}
	mustContain(t, ee.Stderr, "sudo ran the command without reading the password")
	if strings.Contains(string(res.Stdout)+string(res.Stderr)+ee.Stderr, pw) {
		t.Fatalf("the password reached the output: %q %q", res.Stdout, res.Stderr)
	}
}
