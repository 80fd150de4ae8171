package executor

// File transfer is exec-based: Upload pipes the data into `cat` writing a
// temporary file next to the target, then `chmod` and `mv` it into place;
// Download runs `stat` and `cat`. That beats pkg/sftp here because:
//   - it works through sudo, so root-owned paths (/etc/mysql/..., datadirs)
//     can be written by a non-root login; an SFTP server runs as the login
//     user and cannot be elevated per file;
//   - it needs no sftp subsystem on the host (minimal images, chroots and
//     hardened sshd configs often disable it) and no extra dependency;
//   - it rides the same multiplexed connection as every other command and
//     gets the same cancellation, sudo and error handling for free.
// Data is streamed through the session in both directions, so any size
// works without buffering a whole file.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"time"

	"github.com/orch-bench/orch/orchestrator/shell"
)

// runFunc runs a command without adding the host to its errors.
type runFunc func(ctx context.Context, cmd Command) (Result, error)

// cleanupTimeout bounds removing a temporary file after a failed upload,
// which runs even when the upload's context was cancelled.
const cleanupTimeout = 10 * time.Second

// Upload streams r to path on the host. See Executor.
func (s *SSH) Upload(ctx context.Context, r io.Reader, path string, mode os.FileMode, sudo bool) error {
	return execUpload(ctx, s.run, s.name, r, path, mode, sudo)
}

// Download streams the file at path to w. See Executor.
func (s *SSH) Download(ctx context.Context, path string, w io.Writer, sudo bool) (os.FileMode, error) {
	return execDownload(ctx, s.run, s.name, path, w, sudo)
}

// execUpload writes the data in one command and installs the file in a
// second one, so a source that fails half way never replaces the target:
// `cat` cannot tell a truncated stream from a complete one.
func execUpload(ctx context.Context, run runFunc, host string, r io.Reader, dst string, mode os.FileMode, sudo bool) error {
	op := "upload " + dst
	dir, base := path.Split(dst)
	if base == "" || base == "." || base == ".." {
		return &opError{host, op, errors.New("not a file path")}
	}
	tmp := path.Join(dir, "."+base+".orch-"+randomSuffix())
	src := &sourceReader{ctx: ctx, r: r}
	// noclobber and a private umask: the temporary file is created fresh,
	// never through a symlink planted in a shared directory.
	write := "set -C; umask 077; cat > " + shell.Quote(tmp)
	_, err := run(ctx, Command{Script: write, Sudo: sudo, Stdin: src, Stdout: io.Discard})
	if src.err != nil {
		err = fmt.Errorf("reading source: %w", src.err)
	}
	if err == nil {
		install := fmt.Sprintf("chmod %s %s && mv -f -- %s %s || { rm -f -- %s; exit 1; }",
			octalMode(mode), shell.Quote(tmp), shell.Quote(tmp), shell.Quote(dst), shell.Quote(tmp))
		if _, err = run(ctx, Command{Script: install, Sudo: sudo}); err == nil {
			return nil
		}
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	_, _ = run(cctx, Command{Script: "rm -f -- " + shell.Quote(tmp), Sudo: sudo})
	return &opError{host, op, err}
}

// execDownload streams the file after a one-line header holding its mode,
// all in one command.
func execDownload(ctx context.Context, run runFunc, host, src string, w io.Writer, sudo bool) (os.FileMode, error) {
	op := "download " + src
	q := shell.Quote(src)
	hw := &modeHeader{w: w}
	script := "stat -L -c %a -- " + q + " && exec cat -- " + q
	if _, err := run(ctx, Command{Script: script, Sudo: sudo, Stdout: hw}); err != nil {
		if hw.err != nil {
			err = hw.err
		}
		return 0, &opError{host, op, err}
	}
	if !hw.done {
		return 0, &opError{host, op, errors.New("no file mode received")}
	}
	return hw.mode, nil
}

// opError names the host and the operation. A command's non-zero exit is
// shown as its status and stderr (the ExitError stays reachable).
type opError struct {
	host, op string
	err      error
}

func (e *opError) Error() string {
	var ee *ExitError
	if errors.As(e.err, &ee) {
		msg := fmt.Sprintf("%s: %s: exited %d", e.host, e.op, ee.ExitCode)
		if ee.Stderr != "" {
			msg += ": " + ee.Stderr
		}
		return msg
	}
	return fmt.Sprintf("%s: %s: %v", e.host, e.op, e.err)
}

func (e *opError) Unwrap() error { return e.err }

// sourceReader remembers why reading the upload's source failed, and stops
// when ctx is done.
type sourceReader struct {
	ctx context.Context
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	if err := s.ctx.Err(); err != nil {
		s.err = err
		return 0, err
	}
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.err = err
	}
	return n, err
}

// modeHeader parses the octal mode line in front of a download, then passes
// the rest through.
type modeHeader struct {
	w    io.Writer
	line []byte
	done bool
	mode os.FileMode
	err  error
}

func (h *modeHeader) Write(p []byte) (int, error) {
	n := len(p)
	for !h.done && len(p) > 0 {
		c := p[0]
		p = p[1:]
		if c != '\n' {
			if h.line = append(h.line, c); len(h.line) > 8 {
				h.err = fmt.Errorf("bad file mode header %q", h.line)
				return 0, h.err
			}
			continue
		}
		bits, err := strconv.ParseUint(string(h.line), 8, 32)
		if err != nil {
			h.err = fmt.Errorf("bad file mode %q", h.line)
			return 0, h.err
		}
		h.mode, h.done = fileMode(uint32(bits)), true
	}
	if len(p) > 0 {
		if _, err := h.w.Write(p); err != nil {
			h.err = err
			return 0, err
		}
	}
	return n, nil
}

// octalMode renders mode for chmod, special bits included.
func octalMode(m os.FileMode) string {
	bits := uint32(m.Perm())
	if m&os.ModeSetuid != 0 {
		bits |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		bits |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		bits |= 0o1000
	}
	return fmt.Sprintf("%04o", bits)
}

// fileMode is the inverse of octalMode.
func fileMode(bits uint32) os.FileMode {
	m := os.FileMode(bits & 0o777)
	if bits&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if bits&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if bits&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

func randomSuffix() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
