package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/flavor"
)

// undoContext is the context a rollback runs on: detached from ctx, so that
// the Ctrl-C which stopped a step does not also stop the undoing of it (a
// server left stopped, or on a file it was never checked against), and
// bounded on its own: a stop, a start that may recover a crash, and the
// file work.
func (n *Node) undoContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 2*n.startTimeout()+time.Minute)
}

// rolledBack adds the outcome of the rollback to err and to res.
func rolledBack(res *Result, err, undoErr error) error {
	if undoErr != nil {
		res.RollbackFailed = true
		return errors.Join(err, undoErr)
	}
	res.RolledBack = true
	return fmt.Errorf("%w (restored the previous config)", err)
}

// undo puts the previous file back, restarting the server on it when it
// had been restarted on the new one, and uninstalls an engine plugin this
// apply installed.
func (n *Node) undo(ctx context.Context, r run, p *Plan, installed, restart bool) error {
	ctx, cancel := n.undoContext(ctx)
	defer cancel()
	var err error
	_ = r.step("roll back", func() error {
		err = n.putBack(ctx, p.old)
		if err == nil && restart {
			err = n.Restart(ctx)
		}
		if installed {
			err = errors.Join(err, flavor.Run(ctx, session{n.db}, uninstallStatements(n.Server, p.engine)))
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("rolling back also failed: %w", err)
	}
	return nil
}

// restartOrRollBack restarts the server on the new file. When it does not
// come up (or ctx is cancelled meanwhile), the error log's lines written
// since the attempt explain why, the previous file goes back and the
// server is started on it, on a context of its own.
func (n *Node) restartOrRollBack(ctx context.Context, r run, with string, old fileState, installed bool, e engineInfo) error {
	size, sizeErr := logSize(ctx, n.Exec, n.Facts.ErrorLog)
	err := n.Restart(ctx)
	if err == nil {
		return nil
	}
	interrupted := ctx.Err() != nil
	ctx, cancel := n.undoContext(ctx)
	defer cancel()
	why := []string{err.Error()}
	if sizeErr == nil && !interrupted {
		if slice, lerr := logSince(ctx, n.Exec, n.Facts.ErrorLog, size); lerr == nil {
			if lines := relevantErrors(slice, 5); len(lines) > 0 {
				why = lines
			}
		}
	}
	if r.progress != nil {
		r.progress("roll back: stop, restore the previous config, start")
	}
	_ = n.Stop(ctx) // a half-started server, or a service manager retrying
	base := fmt.Sprintf("%s: server did not start %s: %s", n.Host, with, strings.Join(why, "; "))
	msg := fmt.Sprintf("%s: server did not start %s (restored the previous one): %s", n.Host, with, strings.Join(why, "; "))
	if interrupted {
		base = fmt.Sprintf("%s: interrupted while restarting %s", n.Host, with)
		msg = base + " (restored the previous config and started the server on it)"
	}
	if perr := n.putBack(ctx, old); perr != nil {
		r.res.RollbackFailed = true
		return fmt.Errorf("%s; and restoring the previous config failed: %w", base, perr)
	}
	if serr := n.Start(ctx); serr != nil {
		r.res.RollbackFailed = true
		return fmt.Errorf("%s; restored the previous config, but the server did not start with it either: %w", base, serr)
	}
	r.res.RolledBack = true
	if installed {
		if uerr := flavor.Run(ctx, session{n.db}, uninstallStatements(n.Server, e)); uerr != nil {
			return fmt.Errorf("%s; and uninstalling %s failed: %w", msg, e.name, uerr)
		}
	}
	return errors.New(msg)
}
