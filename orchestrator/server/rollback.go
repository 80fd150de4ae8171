package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/orch-bench/orch/orchestrator/flavor"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/step"
)

// sequence is a step sequence for this host whose undo has room for a
// stop, a start that may recover a crash, and the file work.
func (n *Node) sequence(events step.HostEvents) *step.Sequence {
	return &step.Sequence{Host: n.Host.String(), Events: events, UndoTimeout: 2*n.startTimeout() + time.Minute}
}

// undoContext is the context cleanup outside a sequence runs on: detached
// from ctx, so that the Ctrl-C which stopped a step does not also stop the
// undoing of it, and bounded on its own.
func (n *Node) undoContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*n.startTimeout()+time.Minute)
}

// rollBack undoes every step q did and words err with the outcome.
func (n *Node) rollBack(ctx context.Context, q *step.Sequence, res *Result, err error) (*Result, error) {
	if !q.Pending() {
		return res, err
	}
	if uerr := q.Undo(ctx); uerr != nil {
		res.RollbackFailed = true
		return res, errors.Join(err, fmt.Errorf("rolling back also failed: %w", uerr))
	}
	res.RolledBack = true
	return res, fmt.Errorf("%w (restored the previous config)", err)
}

// serverState is what a restart step did to the server, for the undo of
// the file step before it: the server goes back on the previous file only
// if it was restarted on the new one, and is started (not restarted) if the
// failed restart left it stopped.
type serverState struct {
	restarted, stopped bool
	// mark is the error log's end before the restart (marked: it was
	// read), where the start's own lines begin.
	mark   LogMark
	marked bool
}

// fileUndo puts the previous file back, then the server on it.
func (n *Node) fileUndo(old fileState, st *serverState) func(context.Context) error {
	return func(ctx context.Context) error {
		if err := n.putBack(ctx, old); err != nil {
			return err
		}
		switch {
		case st.stopped:
			return n.Start(ctx)
		case st.restarted:
			return n.Restart(ctx)
		}
		return nil
	}
}

// restartStep restarts the server on the file now in place. When it does
// not come up (or ctx is cancelled meanwhile), the error log's lines written
// since the attempt explain why, and the server is stopped (a half-started
// server, or a service manager retrying) for the file step's undo to start
// it on the previous file.
func (n *Node) restartStep(with string, st *serverState) step.Step {
	return step.Step{Name: "restart", Do: func(ctx context.Context) error {
		st.restarted = true
		mark, markErr := n.MarkLog(ctx)
		st.mark, st.marked = mark, markErr == nil
		err := n.Restart(ctx)
		if err == nil {
			return nil
		}
		interrupted := ctx.Err() != nil
		uctx, cancel := n.undoContext(ctx)
		defer cancel()
		why := []string{err.Error()}
		if markErr == nil && !interrupted {
			if lines := n.startErrors(uctx, mark); len(lines) > 0 {
				why = lines
			}
		}
		_ = n.Stop(uctx)
		st.stopped = true
		if interrupted {
			return fmt.Errorf("%s: interrupted while restarting %s", n.Host, with)
		}
		return fmt.Errorf("%s: server did not start %s: %s", n.Host, with, strings.Join(why, "; "))
	}}
}

// journalLag bounds how long a failed start waits for the server's last
// lines to reach the journal: systemd can report the unit failed before
// journald has read the server's stderr stream, so a first read may miss
// the [ERROR] line that explains the failure.
const journalLag = 3 * time.Second

// startErrors is the error log's explanation of a failed start: its
// [ERROR] lines since mark, else its last lines.
func (n *Node) startErrors(ctx context.Context, mark LogMark) []string {
	deadline := time.Now().Add(journalLag)
	for {
		slice, err := n.LogSince(ctx, mark)
		if err != nil {
			return nil
		}
		if !n.Journal() || errorTag.MatchString(slice) || time.Now().After(deadline) {
			return explainedErrors(slice)
		}
		select {
		case <-ctx.Done():
			return explainedErrors(slice)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// explainedErrors are a failed start's [ERROR] lines, after the cause of
// an engine that did not load when the log names a known one (TokuDB
// without jemalloc: the server then aborts on default_storage_engine).
func explainedErrors(slice string) []string {
	lines := relevantErrors(slice, 5)
	if cause := flavor.EngineLoadFailure(slice); cause != "" {
		lines = append([]string{cause}, lines...)
	}
	return lines
}
