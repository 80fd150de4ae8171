// Package executor runs commands and moves files on one host: over SSH for
// cluster hosts, or locally for the control machine. Everything that acts on
// a host goes through the Executor interface, so steps can be tested against
// either implementation.
package executor

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Executor runs commands on one host. Implementations are safe for
// concurrent use: an SSH executor multiplexes sessions on one connection.
type Executor interface {
	// Run executes cmd and waits for it. A non-zero exit is reported as an
	// *ExitError (the Result is filled either way); transport failures and
	// context cancellation are other errors.
	Run(ctx context.Context, cmd Command) (Result, error)
	// Upload streams r to path on the host, creating or replacing it
	// atomically with the given permissions.
	Upload(ctx context.Context, r io.Reader, path string, mode os.FileMode, sudo bool) error
	// Download streams the file at path to w and returns its permissions.
	Download(ctx context.Context, path string, w io.Writer, sudo bool) (os.FileMode, error)
	// Name is "name address", the way errors identify the host.
	Name() string
	Close() error
}

// Command is one command to run through the host's POSIX shell.
type Command struct {
	// Script is shell text. Build it with shell.Join / shell.Quote: never
	// splice unquoted values into it.
	Script string
	// Sudo runs the script as root through sudo when the host's user is not
	// root (a no-op for root).
	Sudo bool
	// Env is exported before Script runs. Values are quoted; they appear in
	// the remote shell's argv, so never put secrets here.
	Env map[string]string
	// SecretEnv is exported too, but delivered on stdin ahead of Stdin so it
	// never appears in any argv or in the command text.
	SecretEnv map[string]string
	Stdin     io.Reader
	// Stdout and Stderr stream output as it arrives. When nil, output is
	// captured into Result.
	Stdout, Stderr io.Writer
	// Timeout bounds this command (0: only ctx bounds it).
	Timeout time.Duration
}

// Result is what a command produced.
type Result struct {
	ExitCode int
	// Stdout and Stderr hold captured output when the Command had no writer.
	Stdout, Stderr []byte
	Duration       time.Duration
}

// ExitError is returned when a command ran and exited non-zero.
type ExitError struct {
	Host     string
	Script   string
	ExitCode int
	Stderr   string // last lines of stderr, trimmed
}

func (e *ExitError) Error() string {
	msg := fmt.Sprintf("%s: command exited %d", e.Host, e.ExitCode)
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}
