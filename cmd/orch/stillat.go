package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/orch-bench/orch/orchestrator/runner"
	"github.com/orch-bench/orch/orchestrator/up"
)

// upStillAt prints, every runner.WaitEvery while up works, which host is
// at which step: a restart that takes a minute (a large buffer pool, a
// crash recovery) would otherwise be a silent minute after its first line.
func upStillAt(ctx context.Context, w io.Writer, prefix string, t *up.Tracker) (stop func()) {
	return runner.Heartbeat(ctx, runner.WaitEvery, func(el time.Duration) {
		if doing := t.Unfinished(); len(doing) > 0 {
			fmt.Fprintf(w, "%s: still at it, %s (%s)\n", prefix, el, strings.Join(doing, "; "))
		}
	})
}
