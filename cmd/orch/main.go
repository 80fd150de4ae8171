// Command orch orchestrates database benchmarks on real MySQL-family
// clusters: inventory, SSH, preflight checks, cluster setup, benchmark runs
// and reports.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/orch-bench/orch/orchestrator"
	"github.com/orch-bench/orch/topology"
)

// Exit statuses: 1 for failures on hosts, 2 for bad input (usage, inventory).
const (
	exitFailure = 1
	exitUsage   = 2
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:]))
}

// run executes the CLI and maps errors to exit statuses. It is separate from
// main so CLI tests can run orch in-process.
func run(ctx context.Context, args []string) int {
	root := newRootCmd()
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var silent *silentError
	if !errors.As(err, &silent) {
		fmt.Fprintln(os.Stderr, "orch: "+capLines(err.Error()))
	}
	return exitCode(err)
}

func exitCode(err error) int {
	var code *exitError
	var invErr *topology.Error
	var usage *usageError
	switch {
	case errors.As(err, &code):
		return code.code
	case errors.As(err, &invErr), errors.As(err, &usage), orchestrator.IsBadInput(err):
		return exitUsage
	}
	return exitFailure
}

// usageError marks bad command-line input (exit status 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitError carries an explicit exit status, e.g. when a command already
// printed per-host failures and only the status is left to report.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// silentError is an error whose message was already printed.
type silentError struct{ err error }

func (e *silentError) Error() string { return e.err.Error() }
func (e *silentError) Unwrap() error { return e.err }
