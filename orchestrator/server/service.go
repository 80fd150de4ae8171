package server

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"github.com/orch-bench/orch/orchestrator/mysqlconn"
	"github.com/orch-bench/orch/topology"
)

// pollInterval is how often a starting server is pinged: the lab measured
// ~1 s starts when polling every 0.1 s against ~2.2 s for a 1 s poll.
const pollInterval = 100 * time.Millisecond

func (n *Node) startTimeout() time.Duration {
	if n.StartTimeout > 0 {
		return n.StartTimeout
	}
	return DefaultStartTimeout
}

// serviceCmd runs one of the service's commands as root.
func (n *Node) serviceCmd(ctx context.Context, what, script string) error {
	return n.serviceCmdExplained(ctx, what, script, nil)
}

// serviceCmdExplained is serviceCmd whose failure is explained first by
// why (when it returns anything) or by the command's own output: a start
// script that shows the error log's end may show why an engine the config
// needs did not load.
func (n *Node) serviceCmdExplained(ctx context.Context, what, script string, why func() string) error {
	_, err := n.Exec.Run(ctx, executor.Command{Script: script, Sudo: true, Timeout: n.startTimeout() + 10*time.Second})
	if err == nil {
		return nil
	}
	cause := flavor.EngineLoadFailure(err.Error())
	if cause == "" && why != nil {
		cause = why()
	}
	if cause != "" {
		return n.errorf("%s server (%s): %s: %w", what, n.Facts.Service.Desc, cause, stripHost(err))
	}
	return n.errorf("%s server (%s): %w", what, n.Facts.Service.Desc, stripHost(err))
}

// startLine begins a server's start in its error log: mysqld_safe's
// "Starting mariadbd daemon" or the server's own "starting as process".
var startLine = regexp.MustCompile(`(?i)starting (mariadbd|mysqld) daemon|starting as process`)

// lastStart is the part of an error log's tail from its last start on, so
// that an older start's failure is not taken for this one's.
func lastStart(log string) string {
	lines := strings.Split(log, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if startLine.MatchString(lines[i]) {
			return strings.Join(lines[i:], "\n")
		}
	}
	return log
}

// stripHost drops an ExitError's own host prefix: the caller's message
// already names the host.
func stripHost(err error) error {
	var ee *executor.ExitError
	if errors.As(err, &ee) {
		msg := fmt.Sprintf("exit %d", ee.ExitCode)
		if ee.Stderr != "" {
			msg += ": " + ee.Stderr
		}
		return errors.New(msg)
	}
	return err
}

// Stop stops the server and waits for the service command to return.
func (n *Node) Stop(ctx context.Context) error {
	n.dropConnections() // while the server can still be told goodbye
	err := n.serviceCmd(ctx, "stop", n.Facts.Service.Stop)
	n.dropConnections()
	return err
}

// Start starts the server and waits until it answers queries.
func (n *Node) Start(ctx context.Context) error {
	if err := n.serviceCmd(ctx, "start", n.Facts.Service.Start); err != nil {
		return err
	}
	return n.WaitReady(ctx, n.startTimeout())
}

// Restart stops, then starts the server. Two steps rather than a
// `restart` verb, so that a failure says which half failed.
func (n *Node) Restart(ctx context.Context) error {
	if err := n.Stop(ctx); err != nil {
		return err
	}
	return n.Start(ctx)
}

// WaitReady polls the server until it answers or timeout passes.
func (n *Node) WaitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := n.db.Query(pctx, "SELECT 1")
		pcancel()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			return n.errorf("server did not answer within %s: %v", timeout, last)
		case <-time.After(pollInterval):
		}
	}
}

// dropConnections closes the pool's idle connections, which a restart has
// broken, so the next query dials afresh; the *sql.DB stays the same.
func (n *Node) dropConnections() {
	if n.DB != nil {
		n.DB.SetMaxIdleConns(0)
		n.DB.SetMaxIdleConns(2)
	}
}

// StartIfStopped starts a host's server when it is really not running,
// with the service control Open would choose, and waits until it answers.
// An orch killed between the stop and the start of a restart leaves a server
// down; the next `orch up` (or a resumed matrix) brings it back instead of
// failing to connect. openErr is why opening the server failed: a server
// that answered it (a refused login) runs, and a service that reports the
// server running is not started again either; both return openErr at once
// rather than starting a running server and waiting minutes for a login
// that cannot succeed. It reports whether it started the server.
func StartIfStopped(ctx context.Context, h *topology.Host, ex executor.Executor, openErr error, open Opener) (bool, error) {
	n := &Node{Host: h, Exec: ex}
	if err := n.stoppedOrWhyNot(ctx, openErr); err != nil {
		return false, err
	}
	// Its error log's last start may say why an engine the config needs
	// did not load (the server then aborts on its default_storage_engine).
	why := func() string {
		if h.MySQL.ErrorLog == "" {
			return ""
		}
		slice, err := logSince(ctx, ex, h.MySQL.ErrorLog, 0)
		if err != nil {
			return ""
		}
		return flavor.EngineLoadFailure(lastStart(slice))
	}
	if err := n.serviceCmdExplained(ctx, "start", n.Facts.Service.Start, why); err != nil {
		return false, err
	}
	deadline := time.Now().Add(n.startTimeout())
	for {
		db, err := open.open(ctx, h, ex)
		if err == nil {
			db.Close()
			return true, nil
		}
		if mysqlconn.ServerAnswered(err) || time.Now().After(deadline) {
			return true, n.errorf("started the server, but it does not answer: %w", err)
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(pollInterval):
		}
	}
}

// stoppedOrWhyNot returns nil when the server is not running (so starting
// it is right), else the error to report instead: openErr itself when the
// server answered it, or openErr with what the service says.
func (n *Node) stoppedOrWhyNot(ctx context.Context, openErr error) error {
	// A server that answered (a refused login), or accepted the connection
	// and then said nothing (hung), has a process: starting another one
	// could only fail, after minutes.
	if mysqlconn.ServerAnswered(openErr) || mysqlconn.Hung(openErr) {
		return openErr
	}
	if err := n.probe(ctx); err != nil {
		return errors.Join(openErr, err)
	}
	st := n.Facts.Service.Status
	if st == "" {
		// Nothing to ask: the server could not be reached and did not
		// answer, which is what a stopped server looks like.
		return nil
	}
	_, err := n.Exec.Run(ctx, executor.Command{Script: st, Sudo: true, Timeout: commandTimeout})
	var ee *executor.ExitError
	switch {
	case err == nil:
		return fmt.Errorf("%w (%s reports the server running, so orch does not start it)", openErr, n.Facts.Service.Desc)
	case errors.As(err, &ee):
		return nil // LSB and systemd: a non-zero status is "not running"
	}
	return errors.Join(openErr, n.errorf("server status (%s): %w", n.Facts.Service.Desc, err))
}
