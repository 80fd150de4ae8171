package runner

import (
	"context"

	"github.com/orch-bench/orch/orchestrator/rundir"
	"github.com/orch-bench/orch/orchestrator/server"
)

// A server that logs to its unit's journal (log_error unset under
// systemd, as Debian ships it) gets its run-window slice from journalctl
// instead of an error log file: marked before the run, saved after it as
// hosts/NAME/error.log like a file's slice.

func (r *run) markJournal(ctx context.Context, n *server.Node) error {
	m, err := n.MarkLog(ctx)
	if err != nil {
		r.logf("run: %s: journal: %v (no error log slice)", n.Host, err)
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journals == nil {
		r.journals = map[string]server.LogMark{}
	}
	r.journals[n.Host.Name] = m
	return nil
}

func (r *run) saveJournal(ctx context.Context, n *server.Node) error {
	r.mu.Lock()
	m, ok := r.journals[n.Host.Name]
	r.mu.Unlock()
	if !ok {
		return nil
	}
	slice, err := n.LogSince(ctx, m)
	if err != nil {
		r.logf("run: %s: journal since the run started: %v", n.Host, err)
		return nil
	}
	r.writeFile(rundir.HostFile(n.Host.Name, rundir.HostErrorLog), []byte(slice))
	return nil
}
