package up

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/executor"
	"github.com/orch-bench/orch/orchestrator/server"
)

// outcome says in a few words where one host was left by Apply.
func outcome(res *server.Result, err error) string {
	switch {
	case res == nil && errors.Is(err, context.Canceled):
		return "not changed (interrupted before its turn)"
	case res == nil:
		return "not changed"
	case res.Unchanged:
		return "unchanged"
	case res.RollbackFailed:
		return "written, rolling back failed: its state is in the error above"
	case res.RolledBack:
		return "written, rolled back: runs its previous config"
	case err != nil && res.Written:
		return "written, then failed"
	case err != nil:
		return "not changed"
	case res.Restarted:
		return "written, restarted: runs the new config"
	case len(res.SetGlobal) > 0:
		return "written, set at run time: runs the new config"
	}
	return "written: runs the new config"
}

// reachTimeout bounds the check, after a failure, of whether a host still
// answers at all.
const reachTimeout = 5 * time.Second

// applyFailed builds Up's error when applying failed on some host or was
// interrupted: every host's own error, then where each host was left
// (written, restarted, rolled back, unreachable), so that nobody has to
// guess which servers run which config.
func applyFailed(ctx context.Context, nodes []*server.Node, results []*server.Result, errs []error, backErrs ...error) error {
	var lines []string
	for i, n := range nodes {
		line := n.Host.String() + ": " + outcome(results[i], errs[i])
		if errs[i] != nil && !errors.Is(errs[i], context.Canceled) {
			if why := reachable(ctx, n.Exec); why != nil {
				line += "; unreachable now: " + why.Error()
			}
		}
		lines = append(lines, line)
	}
	summary := "where the hosts were left:\n  " + strings.Join(lines, "\n  ")
	var real []error
	for _, err := range append(append([]error(nil), errs...), backErrs...) {
		if err != nil && !errors.Is(err, context.Canceled) {
			real = append(real, err)
		}
	}
	if ctx.Err() != nil {
		return &Interrupted{Summary: summary, Err: errors.Join(real...)}
	}
	return fmt.Errorf("%w\n%s", errors.Join(real...), summary)
}

// reachable runs a no-op command on the host, on a context of its own.
func reachable(ctx context.Context, ex executor.Executor) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reachTimeout)
	defer cancel()
	_, err := ex.Run(ctx, executor.Command{Script: "true", Timeout: reachTimeout})
	return err
}

// Interrupted is Up's error when Ctrl-C stopped it: what was undone and
// where each host was left.
type Interrupted struct {
	Summary string
	Err     error // failures besides the interruption (rollbacks that failed)
}

func (e *Interrupted) Error() string {
	msg := "interrupted; " + e.Summary
	if e.Err != nil {
		msg = e.Err.Error() + "\n" + msg
	}
	return msg
}

func (e *Interrupted) Unwrap() error { return context.Canceled }
