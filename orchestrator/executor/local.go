package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/orch-bench/orch/orchestrator/atomicfile"
)

// Local runs commands on the control machine (the load box when the
// inventory has none) through /bin/sh, with the same Command semantics as
// the SSH executor: env quoting, secrets on stdin, sudo, timeouts.
type Local struct {
	name string
}

var _ Executor = (*Local)(nil)

// NewLocal returns an executor for this machine; name labels its errors.
func NewLocal(name string) *Local { return &Local{name: name} }

// Name is "name localhost".
func (l *Local) Name() string { return l.name + " localhost" }

// Close does nothing: there is no connection.
func (l *Local) Close() error { return nil }

// DialContext connects from this machine, so code written against an SSH
// tunnel (the MySQL driver) works unchanged for the local host.
func (l *Local) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name(), err)
	}
	return c, nil
}

// Run executes cmd with /bin/sh -c. Sudo uses `sudo -n` unless this process
// is root. On cancel or timeout the whole process group is killed, so
// children of the script die too.
func (l *Local) Run(ctx context.Context, cmd Command) (Result, error) {
	res, err := l.run(ctx, cmd)
	return res, nameHost(l.Name(), err)
}

func (l *Local) run(ctx context.Context, cmd Command) (Result, error) {
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
	argv := []string{"/bin/sh", "-c", p.script}
	if cmd.Sudo && os.Geteuid() != 0 {
		argv = append([]string{"sudo", "-n", "--"}, argv...)
	}
	c := exec.CommandContext(ctx, argv[0], argv[1:]...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	// A background child that keeps stdout open must not hang Run forever.
	c.WaitDelay = abandonGrace
	c.Stdin = p.stdin(cmd.Stdin)
	out := newOutputs(cmd)
	c.Stdout, c.Stderr = out.Stdout(), out.Stderr()

	if err := c.Start(); err != nil {
		return Result{ExitCode: -1}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	err = c.Wait()
	out.disable() // pipe copiers abandoned after WaitDelay must not write later
	res := Result{ExitCode: exitCode(c.ProcessState), Duration: time.Since(start)}
	out.fill(&res)
	if err != nil && ctx.Err() != nil {
		res.ExitCode = -1
		return res, stopError(ctx, cmd, ctx.Err())
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, fmt.Errorf("command i/o: %w", err)
	}
	if res.ExitCode != 0 {
		return res, &ExitError{Host: l.Name(), Script: cmd.Script, ExitCode: res.ExitCode, Stderr: out.stderrTail()}
	}
	return res, nil
}

// exitCode follows the shell convention: 128+N for death by signal N.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// Upload writes path through a temporary file in the same directory and a
// rename, so readers never see a partial file. With sudo as a non-root
// user it goes through the exec-based transfer like SSH.
func (l *Local) Upload(ctx context.Context, r io.Reader, path string, mode os.FileMode, sudo bool) error {
	if sudo && os.Geteuid() != 0 {
		return execUpload(ctx, l.run, l.Name(), r, path, mode, true)
	}
	if err := writeFileAtomic(ctx, r, path, mode); err != nil {
		return &opError{l.Name(), "upload " + path, err}
	}
	return nil
}

func writeFileAtomic(ctx context.Context, r io.Reader, path string, mode os.FileMode) error {
	src := &sourceReader{ctx: ctx, r: r}
	if err := atomicfile.Write(path, src, mode); err != nil {
		if src.err != nil {
			return fmt.Errorf("reading source: %w", src.err)
		}
		return err
	}
	return nil
}

// Download copies the file at path to w and returns its permissions.
func (l *Local) Download(ctx context.Context, path string, w io.Writer, sudo bool) (os.FileMode, error) {
	if sudo && os.Geteuid() != 0 {
		return execDownload(ctx, l.run, l.Name(), path, w, true)
	}
	mode, err := readFile(ctx, path, w)
	if err != nil {
		return 0, &opError{l.Name(), "download " + path, err}
	}
	return mode, nil
}

func readFile(ctx context.Context, path string, w io.Writer) (os.FileMode, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.IsDir() {
		return 0, errors.New("is a directory")
	}
	if _, err := io.Copy(w, &sourceReader{ctx: ctx, r: f}); err != nil {
		return 0, err
	}
	return fi.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky), nil
}
