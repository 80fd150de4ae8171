package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/crypto/ssh"
)

const (
	// abandonGrace is how long a cancelled command may take to report its
	// end after being killed before Run returns without it.
	abandonGrace = 2 * time.Second
	// pgidGrace is how long a cancel waits for the process group's id.
	pgidGrace = 2 * time.Second
	// killTimeout bounds the extra session that kills a cancelled command.
	killTimeout = 5 * time.Second
	// refusedRetries is how often a refused session open is retried when
	// none of ours are open (with some open, it waits for one to end).
	refusedRetries = 6
)

// pgidPrelude makes the remote login shell, which sshd started as a process
// group leader, report that group first thing on stderr. The line is
// stripped from the output.
const pgidPrelude = `printf '\036orch-pgid:%s\n' "$$" >&2` + "\n"

// Run executes cmd on the host. See Executor.
func (s *SSH) Run(ctx context.Context, cmd Command) (Result, error) {
	res, err := s.run(ctx, cmd)
	return res, nameHost(s.name, err)
}

// nameHost prefixes err with the host; an ExitError names it already.
func nameHost(host string, err error) error {
	var ee *ExitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return fmt.Errorf("%s: %w", host, err)
}

// run is Run without the host in its errors (an ExitError still has it).
func (s *SSH) run(ctx context.Context, cmd Command) (Result, error) {
	start := time.Now()
	if cmd.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cmd.Timeout)
		defer cancel()
	}
	p, err := prepare(cmd)
	if err != nil {
		return Result{ExitCode: -1}, err
	}
	if cmd.Sudo {
		if p, err = s.asRoot(ctx, p); err != nil {
			return Result{ExitCode: -1}, err
		}
	}
	out := newOutputs(cmd)
	code, err := s.exec(ctx, p.script, p.stdin(cmd.Stdin), out, cmd.Sudo)
	res := Result{ExitCode: code, Duration: time.Since(start)}
	out.fill(&res)
	if err != nil {
		return res, stopError(ctx, cmd, err)
	}
	if code != 0 {
		return res, &ExitError{Host: s.name, Script: cmd.Script, ExitCode: code, Stderr: out.stderrTail()}
	}
	return res, nil
}

// stopError says why a command did not finish: its timeout, a cancelled
// context, or a transport failure.
func stopError(ctx context.Context, cmd Command, err error) error {
	switch {
	case ctx.Err() == nil:
		return err
	case cmd.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("command timed out after %s: %w", cmd.Timeout, ctx.Err())
	}
	return fmt.Errorf("command stopped: %w", ctx.Err())
}

// exec runs text in a new session and returns its exit status. An error
// means the command could not start, was cancelled (its process group is
// killed and the session closed), or its outcome is unknown because the
// connection broke. sudo says the command runs as root, so killing it
// needs root too.
func (s *SSH) exec(ctx context.Context, text string, stdin io.Reader, out *outputs, sudo bool) (int, error) {
	select {
	case s.sessions <- struct{}{}:
	case <-ctx.Done():
		return -1, ctx.Err()
	}
	defer func() { <-s.sessions }()

	out.scanPGID = true
	sess, err := s.start(ctx, pgidPrelude+text, stdin, out)
	if err != nil {
		return -1, err
	}
	defer sess.Close()
	waitErr := make(chan error, 1)
	go func() { waitErr <- sess.Wait() }()
	select {
	case err = <-waitErr:
		out.flush()
	case <-ctx.Done():
		s.kill(ctx, sess, awaitProcessGroup(out, waitErr), sudo)
		select {
		case <-waitErr:
		case <-time.After(abandonGrace):
		}
		out.disable()
		return -1, ctx.Err()
	}
	var exitErr *ssh.ExitError
	var missing *ssh.ExitMissingError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exitErr):
		return exitErr.ExitStatus(), nil
	case errors.As(err, &missing):
		return -1, errors.New("connection lost before the command reported its exit status")
	}
	return -1, fmt.Errorf("command i/o: %w", err)
}

// awaitProcessGroup is the command's process group. A cancel can land
// before the prelude's line has been read; without the group, kill could
// only send the session signal, which sshd refuses for root logins, and
// the command would outlive its cancel. The line is already on its way,
// so this waits for it briefly (or until the command ends).
func awaitProcessGroup(out *outputs, ended <-chan error) int {
	deadline := time.Now().Add(pgidGrace)
	for {
		if pgid := out.processGroup(); pgid > 1 || time.Now().After(deadline) || len(ended) > 0 {
			return pgid
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill stops a cancelled command. The signal request alone is not enough:
// OpenSSH refuses it for root logins (their sessions are served by the
// privileged monitor), and closing the session does not stop a process
// that neither reads nor writes. So the process group is also killed from
// a second session, as root when the command ran through sudo.
func (s *SSH) kill(ctx context.Context, sess *ssh.Session, pgid int, sudo bool) {
	_ = sess.Signal(ssh.SIGKILL)
	if pgid > 1 {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
		defer cancel()
		p := prepared{script: fmt.Sprintf("kill -s KILL -- -%d 2>/dev/null; true", pgid)}
		var err error
		if sudo {
			p, err = s.asRoot(ctx, p)
		}
		if err == nil {
			err = s.runBare(ctx, p)
		}
		if err != nil {
			s.logf("killing cancelled command (process group %d): %v", pgid, err)
		}
	}
	_ = sess.Close()
}

// runBare runs a short helper command outside the session limit (the
// cancelled command still holds its slot) and without the pgid prelude.
func (s *SSH) runBare(ctx context.Context, p prepared) error {
	sess, err := s.openSession(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	sess.Stdin = p.stdin(nil)
	return sess.Run(p.script)
}

// start opens a session and starts text in it. Both steps wait on the
// server, so they run aside and ctx can abandon them; a session that
// arrives after that is closed.
func (s *SSH) start(ctx context.Context, text string, stdin io.Reader, out *outputs) (*ssh.Session, error) {
	type started struct {
		sess *ssh.Session
		err  error
	}
	ch := make(chan started, 1)
	go func() {
		sess, err := s.openSession(ctx)
		if err != nil {
			ch <- started{nil, fmt.Errorf("open session: %w", err)}
			return
		}
		sess.Stdin = stdin
		sess.Stdout = out.Stdout()
		sess.Stderr = out.Stderr()
		if err := sess.Start(text); err != nil {
			sess.Close()
			ch <- started{nil, fmt.Errorf("start command: %w", err)}
			return
		}
		ch <- started{sess, nil}
	}()
	select {
	case r := <-ch:
		return r.sess, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.sess != nil {
				_ = r.sess.Signal(ssh.SIGKILL)
				r.sess.Close()
			}
		}()
		out.disable()
		return nil, ctx.Err()
	}
}

// openSession opens a session channel. A refusal while other sessions of
// ours are open is the server's session limit (OpenSSH's MaxSessions, whose
// accounting also lags behind channel closes), so it is retried with
// backoff until a slot frees up.
func (s *SSH) openSession(ctx context.Context) (*ssh.Session, error) {
	delay := 5 * time.Millisecond
	for attempt := 1; ; attempt++ {
		sess, err := withChannel(ctx, s, func(c *ssh.Client) (*ssh.Session, error) { return c.NewSession() })
		var refused *ssh.OpenChannelError
		if err == nil || !errors.As(err, &refused) || (attempt >= refusedRetries && len(s.sessions) <= 1) {
			return sess, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 200*time.Millisecond)
	}
}
